/**
 * Recipients' phone numbers (docs/api.md#phone-numbers): a number is parsed with `libphonenumber-js`
 * and its full metadata (`libphonenumber-js/max`, which tells a number's type), and kept in E.164
 * (ITU-T E.164: `+` then country code and subscriber number, digits only).
 *
 * Refused, each with a sentence for the 400 that names the field: text that is not a number, a number
 * without `+` and a country code, a country code no country uses, a number its country's numbering plan
 * does not allow, a landline (type `FIXED_LINE`; a number the plan cannot tell from a mobile one,
 * `FIXED_LINE_OR_MOBILE`, is kept), and premium-rate numbers (an invitation must never cost its
 * recipient, nor make the sender pay a premium service).
 */
import { parsePhoneNumberWithError, ParseError } from 'libphonenumber-js/max';

/** Longest phone number text accepted before parsing, characters (spaces and punctuation included). */
export const MAX_PHONE_INPUT = 40;

/** The outcome of {@link parsePhone}: the E.164 form, or why the number is refused. */
export type PhoneParse = { ok: true; e164: string } | { ok: false; message: string };

/**
 * Parses a phone number as a client wrote it (`+49 151 23456789`, `+1 (212) 555-0123`) into E.164.
 * Never throws.
 * @param value the text as sent (at most {@link MAX_PHONE_INPUT} characters)
 */
export function parsePhone(value: string): PhoneParse {
  if ([...value].length > MAX_PHONE_INPUT) return { ok: false, message: `must be at most ${MAX_PHONE_INPUT} characters` };
  let number;
  try {
    number = parsePhoneNumberWithError(value.trim());
  } catch (error) {
    if (!(error instanceof ParseError)) throw error;
    // The library's reasons (libphonenumber-js ParseError messages) in the API's words.
    switch (error.message) {
      case 'INVALID_COUNTRY':
        return { ok: false, message: 'must start with + and a country code that a country uses (E.164, e.g. +49 151 23456789)' };
      case 'TOO_SHORT':
        return { ok: false, message: 'is too short to be a phone number' };
      case 'TOO_LONG':
        return { ok: false, message: 'is too long to be a phone number' };
      default:
        return { ok: false, message: 'is not a phone number (E.164, e.g. +49 151 23456789)' };
    }
  }
  if (number.country === undefined && number.countryCallingCode === undefined) return { ok: false, message: 'names no country that uses its country code' };
  if (!number.isValid()) return { ok: false, message: `is not a valid number of country code +${number.countryCallingCode}` };
  const type = number.getType();
  if (type === 'FIXED_LINE') return { ok: false, message: 'is a landline number, which cannot receive text messages' };
  if (type === 'PREMIUM_RATE') return { ok: false, message: 'is a premium-rate number, which is refused' };
  return { ok: true, e164: number.number };
}

/** Whether `value` is already a phone number in E.164 as {@link parsePhone} writes it. */
export function isE164(value: string): boolean {
  return /^\+[1-9][0-9]{6,14}$/.test(value);
}

/**
 * A number as the certificate and the audit trail show it (docs/api.md#how-each-recipient-was-identified):
 * the country code and the last four digits kept, the rest hidden, grouped as `+49 *** *** 12 34`
 * whatever the number's length, so that the shape tells nothing of the hidden digits.
 * @param e164 a number in E.164 (as stored); anything else is hidden whole but its last four digits
 */
export function maskPhone(e164: string): string {
  const digits = e164.replace(/[^0-9]/g, '');
  const last = digits.slice(-4).padStart(4, '*');
  let countryCode: string | undefined;
  try {
    countryCode = parsePhoneNumberWithError(e164.startsWith('+') ? e164 : `+${digits}`).countryCallingCode;
  } catch (error) {
    if (!(error instanceof ParseError)) throw error;
  }
  return `+${countryCode ?? '**'} *** *** ${last.slice(0, 2)} ${last.slice(2)}`;
}

/**
 * A number as Communication Services' events write it (docs/api.md#events-from-communication-services),
 * in E.164: the `+` may be missing, and spaces or dashes are dropped.
 * @returns the E.164 form, or `null` when it is no phone number (an alphanumeric sender id, a short code)
 */
export function eventPhoneNumber(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const compact = value.trim().replace(/[\s().-]/g, '');
  const withPlus = compact.startsWith('+') ? compact : `+${compact}`;
  return isE164(withPlus) ? withPlus : null;
}
