/**
 * Text messages fit in two segments (docs/api.md#sms) in every locale: the invitation and the reminder,
 * with a long sender's name, a long document name and a realistic signing link, counted here with the
 * test's own reading of 3GPP TS 23.038 (the GSM 7-bit default alphabet and its extension table) and
 * TS 23.040 (concatenated messages: 153 septets or 67 UCS-2 units a segment, 160 and 70 for one).
 */
import { describe, expect, test } from '@jest/globals';
import { SUPPORTED_LOCALES } from '../../../src/lib/i18n/index.js';
import { SMS_TYPES } from '../../../src/lib/notifications/outbox.js';
import { MAX_SMS_SEGMENTS, renderSms, renderSmsCode, smsSize } from '../../../src/lib/notifications/smsMessages.js';

/**
 * 3GPP TS 23.038 section 6.2.1, the GSM 7-bit default alphabet table, row by row (bits b7..b5 as
 * columns 0x00, 0x10, ... 0x70; each string holds the 16 characters of one column, b4..b1 = 0 to F).
 * 0x1B is the escape to the extension table, not a character of its own (written here as null).
 */
const DEFAULT_ALPHABET_COLUMNS: (string | null)[][] = [
  ['@', '£', '$', '¥', 'è', 'é', 'ù', 'ì', 'ò', 'Ç', '\n', 'Ø', 'ø', '\r', 'Å', 'å'],
  ['Δ', '_', 'Φ', 'Γ', 'Λ', 'Ω', 'Π', 'Ψ', 'Σ', 'Θ', 'Ξ', null, 'Æ', 'æ', 'ß', 'É'],
  [' ', '!', '"', '#', '¤', '%', '&', "'", '(', ')', '*', '+', ',', '-', '.', '/'],
  ['0', '1', '2', '3', '4', '5', '6', '7', '8', '9', ':', ';', '<', '=', '>', '?'],
  ['¡', 'A', 'B', 'C', 'D', 'E', 'F', 'G', 'H', 'I', 'J', 'K', 'L', 'M', 'N', 'O'],
  ['P', 'Q', 'R', 'S', 'T', 'U', 'V', 'W', 'X', 'Y', 'Z', 'Ä', 'Ö', 'Ñ', 'Ü', '§'],
  ['¿', 'a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j', 'k', 'l', 'm', 'n', 'o'],
  ['p', 'q', 'r', 's', 't', 'u', 'v', 'w', 'x', 'y', 'z', 'ä', 'ö', 'ñ', 'ü', 'à'],
];
/** TS 23.038 section 6.2.1.1, the extension table as the default alphabet uses it: escape 0x1B, then 0x0A ^ ... each two septets. */
const EXTENSION_TABLE = { 0x0a: '\f', 0x14: '^', 0x28: '{', 0x29: '}', 0x2f: '\\', 0x3c: '[', 0x3d: '~', 0x3e: ']', 0x40: '|', 0x65: '€' };

const ONE_SEPTET = new Set(DEFAULT_ALPHABET_COLUMNS.flat().filter((character): character is string => character !== null));
const TWO_SEPTETS = new Set(Object.values(EXTENSION_TABLE));

/** Segments of `text` as TS 23.038 and TS 23.040 count them. */
function segments(text: string): { encoding: 'GSM-7' | 'UCS-2'; segments: number } {
  const characters = [...text];
  if (characters.every((character) => ONE_SEPTET.has(character) || TWO_SEPTETS.has(character))) {
    const septets = characters.reduce((sum, character) => sum + (TWO_SEPTETS.has(character) ? 2 : 1), 0);
    return { encoding: 'GSM-7', segments: septets <= 160 ? 1 : Math.ceil(septets / 153) };
  }
  // UCS-2 as phones send it: UTF-16 code units, a character outside the BMP taking two.
  const units = text.length;
  return { encoding: 'UCS-2', segments: units <= 70 ? 1 : Math.ceil(units / 67) };
}

/** A signing link as a deployment on its own domain writes it: a 43-character token. */
const LINK = 'https://sign.contoso-legal.example/api/sign#Zm9vYmFyYmF6cXV4cXV1eGNvcmdlZ3JhdWx0Z2FycGx';
const SENDER = 'Maximiliane Alexandra Hohenberg-Schmidt';
const DOCUMENT = 'Rahmenvertrag über Beratungsleistungen 2027 – Anlage 3 (Preisblatt, unterschriftsreif).pdf';

describe('the alphabet of 3GPP TS 23.038', () => {
  test('has 127 characters of one septet and 10 of two', () => {
    expect(ONE_SEPTET.size).toBe(127);
    expect(TWO_SEPTETS.size).toBe(10);
  });

  test('the service counts as the standard does', () => {
    const cases = ['Hello', 'x'.repeat(160), 'x'.repeat(161), '€'.repeat(80), '€'.repeat(81), 'Grüße', 'ç', 'こんにちは'.repeat(14), 'こんにちは'.repeat(15), '😀'.repeat(35), '😀'.repeat(36)];
    for (const text of cases) expect([text.slice(0, 12), smsSize(text).encoding, smsSize(text).segments]).toEqual([text.slice(0, 12), segments(text).encoding, segments(text).segments]);
  });
});

describe.each(SUPPORTED_LOCALES.map((locale) => [locale]))('text messages in %s', (locale) => {
  test.each(SMS_TYPES.map((type) => [type]))(`the %s fits in ${MAX_SMS_SEGMENTS} segments with a long sender, document and link, the link whole`, (type) => {
    const text = renderSms({ type, locale, documentName: DOCUMENT, senderName: SENDER }, LINK);
    expect(segments(text).segments).toBeLessThanOrEqual(MAX_SMS_SEGMENTS);
    expect(text).toContain(LINK);
    // The names are shortened, not dropped: their beginnings are still there.
    expect(text).toContain(DOCUMENT.slice(0, 3));
    expect(text).toContain(SENDER.slice(0, 3));
  });

  test('short names are not shortened', () => {
    const text = renderSms({ type: 'invitation', locale, documentName: 'NDA.pdf', senderName: 'Ada' }, LINK);
    expect(text).toContain('NDA.pdf');
    expect(text).toContain('Ada');
    expect(text).not.toContain('...');
  });
});

describe.each(SUPPORTED_LOCALES.map((locale) => [locale]))('one-time code texts in %s', (locale) => {
  test(`fit in ${MAX_SMS_SEGMENTS} segments with a long sender and document, the code whole`, () => {
    const text = renderSmsCode({ locale, documentName: DOCUMENT, senderName: SENDER }, '048213');
    expect(segments(text).segments).toBeLessThanOrEqual(MAX_SMS_SEGMENTS);
    expect(text).toContain('048213');
    expect(text).toContain(DOCUMENT.slice(0, 3));
    expect(text).toContain(SENDER.slice(0, 3));
    expect(text).not.toContain('{');
  });
});
