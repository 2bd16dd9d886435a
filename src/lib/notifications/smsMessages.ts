/**
 * The words of every text message (docs/api.md#sms): an invitation or a reminder carrying the
 * recipient's signing link, or a one-time code (docs/api.md#signer-authentication), from the `sms`
 * catalogue (`src/lib/i18n`) in the recipient's locale.
 *
 * A text fits in {@link MAX_SMS_SEGMENTS} segments (3GPP TS 23.038 and TS 23.040: a text of GSM 7-bit
 * default alphabet characters fits 160 septets in one segment, 153 in each of several; any other
 * character makes the whole text UCS-2, 70 UTF-16 code units in one, 67 in each of several). The link
 * is never shortened: when the text is too long, the document's name is shortened first, then the
 * sender's name, each ending in `...`.
 */
import { translate } from '../i18n/index.js';
import type { SmsMessage } from './outbox.js';

/** Most segments a text may take (docs/api.md#sms). */
export const MAX_SMS_SEGMENTS = 2;

/** Shortest a name is cut to before the next one is cut, characters (`...` included). */
const SHORTEST_NAME = 6;

/**
 * The GSM 7-bit default alphabet (3GPP TS 23.038 section 6.2.1), without the escape to the extension
 * table: each character one septet.
 */
const GSM_BASIC = new Set(
  '@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !"#¤%&\'()*+,-./0123456789:;<=>?¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà',
);
/** The default alphabet's extension table (3GPP TS 23.038 section 6.2.1.1): each character two septets (escape and itself). */
const GSM_EXTENSION = new Set('\f^{}\\[~]|€');

/** How a text travels and what it costs (docs/api.md#sms). */
export interface SmsSize {
  encoding: 'GSM-7' | 'UCS-2';
  /** Septets (GSM-7) or UTF-16 code units (UCS-2). */
  units: number;
  segments: number;
}

/** The encoding, length and number of segments of `text` (3GPP TS 23.038, TS 23.040 concatenation). */
export function smsSize(text: string): SmsSize {
  let septets = 0;
  for (const character of text) {
    if (GSM_BASIC.has(character)) septets += 1;
    else if (GSM_EXTENSION.has(character)) septets += 2;
    else return sized('UCS-2', text.length, 70, 67);
  }
  return sized('GSM-7', septets, 160, 153);
}

function sized(encoding: SmsSize['encoding'], units: number, single: number, part: number): SmsSize {
  return { encoding, units, segments: units === 0 ? 1 : units <= single ? 1 : Math.ceil(units / part) };
}

/** `value` cut to `length` characters (code points), ending in `...` when cut. */
function shortened(value: string, length: number): string {
  const characters = [...value];
  return characters.length <= length ? value : `${characters.slice(0, Math.max(0, length - 3)).join('').trimEnd()}...`;
}

/**
 * The text of one message, in its locale, with `link` whole and the names shortened until it fits in
 * {@link MAX_SMS_SEGMENTS} segments (or as short as they go, should a link alone not fit).
 * @param message what the outbox captured
 * @param link the recipient's absolute signing link
 */
export function renderSms(message: Pick<SmsMessage, 'type' | 'locale' | 'documentName' | 'senderName'>, link: string): string {
  return fitted(message, { link });
}

/**
 * The text of a one-time code (`otp`, docs/api.md#signer-authentication) in its locale: the 6-digit
 * code, whole, and who sends which document, the names shortened as {@link renderSms} does until it
 * fits in {@link MAX_SMS_SEGMENTS} segments.
 * @param code the 6-digit code
 */
export function renderSmsCode(message: Pick<SmsMessage, 'locale' | 'documentName' | 'senderName'>, code: string): string {
  return fitted({ ...message, type: 'otp' }, { code });
}

/** The catalogue's text of `message.type` with `values`, the names shortened until it fits. */
function fitted(message: Pick<SmsMessage, 'type' | 'locale' | 'documentName' | 'senderName'>, values: { link: string } | { code: string }): string {
  const render = (document: string, sender: string) => translate(message.locale, 'sms', message.type, { document, sender, ...values });
  const fullDocument = message.documentName.replace(/\s+/g, ' ').trim();
  const fullSender = message.senderName.replace(/\s+/g, ' ').trim();
  let document = fullDocument;
  let sender = fullSender;
  let text = render(document, sender);
  // One character at a time: names are at most a few hundred characters, and each render is cheap.
  while (smsSize(text).segments > MAX_SMS_SEGMENTS) {
    const documentLength = [...document].length;
    const senderLength = [...sender].length;
    if (documentLength > SHORTEST_NAME) document = shortened(fullDocument, documentLength - 1);
    else if (senderLength > SHORTEST_NAME) sender = shortened(fullSender, senderLength - 1);
    else break;
    text = render(document, sender);
  }
  return text;
}
