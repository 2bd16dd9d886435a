/**
 * The text the service accepts (docs/api.md#text-the-service-accepts): the rules every request schema uses for the texts a
 * client sends (names, labels, file names, reasons, descriptions, e-mail addresses; passwords are the
 * one exception), in one place, with nothing of HTTP in them.
 *
 * The rule: a text holds no control character (U+0000 to U+001F, U+007F to U+009F), no line or
 * paragraph separator (U+2028, U+2029) and no unpaired surrogate (a lone half of a UTF-16 pair, which
 * no UTF-8 encoder can write); an e-mail address holds no bidirectional control either (U+061C,
 * U+200E, U+200F, U+202A to U+202E, U+2066 to U+2069), which could make one address read as another.
 * Storage, e-mail and PDFs then never meet a character they cannot carry, and a refusal is a 400
 * naming the field rather than a fault further on. Trimmed texts are checked before they are trimmed:
 * a text that holds a refused character is refused wherever it stands.
 *
 * Each schema states its rule in the OpenAPI document (docs/api.md#conventions: a client or gateway that validates
 * against the document accepts exactly what the service accepts). Two choices make that possible:
 * - Lengths count characters as JSON Schema's `minLength`/`maxLength` do: Unicode code points
 *   (JSON Schema 2020-12 §6.3.1), not UTF-16 code units as `z.string().max()` would ("😀" is one
 *   character, two code units).
 * - Where a rule is more than a length, the schema carries a JSON Schema `pattern` (ECMA-262) that
 *   accepts exactly the strings the zod checks accept, whether a validator runs it with the `u` flag
 *   (as ajv does: a surrogate pair is one character) or without (a pair is two code units): a pair is
 *   matched as a pair, a lone surrogate by neither alternative. `tests/unit/schemas.test.ts` holds each
 *   pattern to its checks for every character of the Basic Multilingual Plane.
 */
import { z } from 'zod';

/** Longest e-mail address, characters after trimming (RFC 5321 path limit; docs/api.md#accounts). */
export const MAX_EMAIL_LENGTH = 254;

/** Characters no text may hold, as the body of a character class: C0 and C1 controls, DEL, U+2028, U+2029. */
const REFUSED_CLASS = '\\u0000-\\u001F\\u007F-\\u009F\\u2028\\u2029';
/** Bidirectional controls (Unicode Bidi_Control), refused in e-mail addresses, as the body of a character class. */
const BIDI_CONTROL_CLASS = '\\u061C\\u200E\\u200F\\u202A-\\u202E\\u2066-\\u2069';
const REFUSED = new RegExp(`[${REFUSED_CLASS}]`, 'u');
const BIDI_CONTROL = new RegExp(`[${BIDI_CONTROL_CLASS}]`, 'u');
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
/**
 * White space that `String.prototype.trim` removes (the regular expression class `\s`) and that a text
 * may hold: `\s` without the refused characters (tab, line feed, ..., U+2028, U+2029), as a class body.
 */
const ALLOWED_SPACE_CLASS = ' \\u00A0\\u1680\\u2000-\\u200A\\u202F\\u205F\\u3000\\uFEFF';

/** Number of characters (Unicode code points) in `value`: the unit of JSON Schema's `maxLength`. */
export function characterCount(value: string): number {
  let count = 0;
  for (const _ of value) count++;
  return count;
}

/**
 * Why `value` is not an acceptable text, or `null` when it is: the first refused character, named by
 * its code point (`must not contain U+2028 (control characters, line and paragraph separators and
 * unpaired surrogates are refused)`).
 * @param options `email`: refuse bidirectional controls too
 */
export function textRefusal(value: string, options: { email?: boolean } = {}): string | null {
  const found = REFUSED.exec(value) ?? LONE_SURROGATE.exec(value) ?? (options.email === true ? BIDI_CONTROL.exec(value) : null);
  if (found === null) return null;
  const code = `U+${found[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`;
  const what = options.email === true ? 'control characters, line and paragraph separators, bidirectional controls and unpaired surrogates are refused' : 'control characters, line and paragraph separators and unpaired surrogates are refused';
  return `must not contain ${code} (${what})`;
}

/** Whether `value` holds none of the refused characters (see the module comment). */
export function isAcceptableText(value: string, options: { email?: boolean } = {}): boolean {
  return textRefusal(value, options) === null;
}

/**
 * A regular expression (source) matching one acceptable character that is not in `excluded` (the body
 * of a character class, may be empty): any character but the refused ones, or a surrogate pair.
 */
export function acceptableCharacterPattern(excluded = ''): string {
  return `(?:[^${REFUSED_CLASS}${excluded}\\uD800-\\uDFFF]|[\\uD800-\\uDBFF][\\uDC00-\\uDFFF])`;
}

/**
 * JSON Schema `pattern` of a text of `min` to `max` acceptable characters, none of them in `excluded`
 * (a character class body), with no trimming.
 */
export function textPattern(min: number, max: number, excluded = ''): string {
  return `^${acceptableCharacterPattern(excluded)}{${min},${max}}$`;
}

/**
 * JSON Schema `pattern` of a text that is trimmed (`String.prototype.trim`, whose white space is
 * exactly the regular expression class `\s`) and must then hold 1 to `max` acceptable characters, none
 * of them in `excluded` (a character class body); the white space around it is acceptable too.
 */
export function trimmedTextPattern(max: number, excluded = ''): string {
  const edge = acceptableCharacterPattern(`\\s${excluded}`);
  const inner = acceptableCharacterPattern(excluded);
  return `^[${ALLOWED_SPACE_CLASS}]*${edge}(?:${inner}{0,${max - 2}}${edge})?[${ALLOWED_SPACE_CLASS}]*$`;
}

/**
 * A string of `min` to `max` characters (code points), stated in the document as `minLength` (when
 * above 0) and `maxLength`, with no rule on which characters: for values that are never stored or
 * shown as text (ids, codes, tokens, passwords). Refusals read "is required" (empty when `min` is 1),
 * "must be at least N characters", "must be at most N characters".
 */
export function characters(min: number, max: number): z.ZodString {
  const text = z.string({ error: 'is required' });
  const bounded = min === 0 ? text : text.refine((value) => characterCount(value) >= min, min === 1 ? 'is required' : `must be at least ${min} characters`);
  return bounded.refine((value) => characterCount(value) <= max, `must be at most ${max} characters`).meta({ ...(min === 0 ? {} : { minLength: min }), maxLength: max });
}

/**
 * A zod check (`.check(acceptableText())`) refusing what {@link textRefusal} refuses, with its message;
 * the field's other checks do not run after it refused.
 */
export function acceptableText(options: { email?: boolean } = {}) {
  return z.superRefine<string>((value, context) => {
    const refusal = textRefusal(value, options);
    // `continue: false`: the other checks of the field would only repeat the complaint.
    if (refusal !== null) context.addIssue({ code: 'custom', message: refusal, input: value, continue: false });
  });
}

/**
 * A text of `min` to `max` acceptable characters, kept as sent (no trimming), stated in the document
 * as `minLength`, `maxLength` and a `pattern`.
 */
export function text(min: number, max: number): z.ZodString {
  const checked = z.string({ error: min === 0 ? 'must be a string' : 'is required' }).check(acceptableText());
  const bounded = min === 0 ? checked : checked.refine((value) => characterCount(value) >= min, min === 1 ? 'is required' : `must be at least ${min} characters`);
  return bounded
    .refine((value) => characterCount(value) <= max, `must be at most ${max} characters`)
    .meta({ ...(min === 0 ? {} : { minLength: min }), maxLength: max, pattern: textPattern(min, max) });
}

/**
 * A text of several lines: `min` to `max` code points, kept as sent, where line breaks (`\n`, `\r`)
 * are allowed and every other character obeys {@link textRefusal} (docs/api.md#text-the-service-accepts).
 * Stated in the document as `minLength`, `maxLength` and a `pattern`.
 */
export function multilineText(min: number, max: number): z.ZodString {
  return z
    .string({ error: 'is required' })
    .check(
      z.superRefine<string>((value, context) => {
        const refusal = textRefusal(value.replace(/[\n\r]/g, ''));
        if (refusal !== null) context.addIssue({ code: 'custom', message: refusal, input: value, continue: false });
      }),
    )
    .refine((value) => characterCount(value) >= min, `must be at least ${min} characters`)
    .refine((value) => characterCount(value) <= max, `must be at most ${max} characters`)
    .meta({ minLength: min, maxLength: max, pattern: `^(?:${acceptableCharacterPattern()}|[\\n\\r]){${min},${max}}$` });
}

/**
 * A text that is trimmed and must then hold 1 to `max` acceptable characters; refused characters are
 * refused before trimming, wherever they stand. Refusals read as for {@link characters}, and "is
 * required" for a text of white space only.
 */
export function trimmedText(max: number): z.ZodString {
  return z
    .string({ error: 'is required' })
    .check(acceptableText())
    .trim()
    .refine((value) => value !== '', 'is required')
    .refine((value) => characterCount(value) <= max, `must be at most ${max} characters`)
    .meta({ pattern: trimmedTextPattern(max) });
}

/**
 * The `pattern` of {@link emailAddress}: white space that may be trimmed around an address that zod's
 * e-mail check accepts (`z.regexes.email`, ASCII only, so no control character or bidirectional
 * control can stand inside it) and that holds at most {@link MAX_EMAIL_LENGTH} characters.
 */
export const EMAIL_PATTERN = `^[${ALLOWED_SPACE_CLASS}]*(?=\\S{1,${MAX_EMAIL_LENGTH}}[${ALLOWED_SPACE_CLASS}]*$)${z.regexes.email.source.replace(/^\^/, '').replace(/\$$/, '')}[${ALLOWED_SPACE_CLASS}]*$`;

/**
 * An e-mail address: refused characters refused wherever they stand (bidirectional controls included),
 * then trimmed, then checked (zod's e-mail rule, at most {@link MAX_EMAIL_LENGTH} characters), then
 * lower-cased (docs/api.md#accounts, docs/api.md#the-envelope, docs/api.md#text-the-service-accepts). It is checked before it is lower-cased, so that a character
 * that only lower-cases into ASCII (U+212A KELVIN SIGN becomes `k`) is refused rather than silently
 * changed into another address, and the document's `pattern` can state the rule.
 */
export function emailAddress(description: string, example: string) {
  return z
    .string({ error: 'is required' })
    .check(acceptableText({ email: true }))
    .trim()
    .pipe(z.email({ error: 'must be a valid e-mail address' }).max(MAX_EMAIL_LENGTH, `must be at most ${MAX_EMAIL_LENGTH} characters`).toLowerCase())
    .meta({ pattern: EMAIL_PATTERN, description, examples: [example] });
}

/**
 * Any text given as an e-mail address where it is only looked up (Login: an address not registered is
 * answered 401): refused characters and bidirectional controls refused, then trimmed, then 1 to
 * {@link MAX_EMAIL_LENGTH} characters, then lower-cased.
 */
export function emailLookup(description: string, example: string) {
  return z
    .string({ error: 'is required' })
    .check(acceptableText({ email: true }))
    .trim()
    .refine((value) => value !== '', 'is required')
    .refine((value) => characterCount(value) <= MAX_EMAIL_LENGTH, `must be at most ${MAX_EMAIL_LENGTH} characters`)
    .toLowerCase()
    .meta({ pattern: trimmedTextPattern(MAX_EMAIL_LENGTH, BIDI_CONTROL_CLASS), description, examples: [example] });
}

/**
 * A whole number from `min` to `max` in a request, refused with one message for every way it can be
 * wrong ("must be a whole number from 1 to 30", ending ", or null" when `orNull`, for a value the
 * caller makes `.nullable()`).
 */
export function wholeNumber(min: number, max: number, { orNull = false }: { orNull?: boolean } = {}): z.ZodInt {
  const message = `must be a whole number from ${min} to ${max}${orNull ? ', or null' : ''}`;
  return z.int({ error: message }).min(min, message).max(max, message);
}

/** A timestamp in a request: ISO 8601 with a time zone, stored as UTC with milliseconds. */
export const requestTimestamp = z.iso
  .datetime({ offset: true, error: 'must be an ISO 8601 date and time with a time zone (2026-12-31T23:59:59.000Z)' })
  .transform((value) => new Date(value).toISOString());
