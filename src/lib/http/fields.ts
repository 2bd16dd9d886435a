/**
 * String rules shared by the request schemas (`src/lib/auth/schemas.ts`, `src/lib/envelopes/schemas.ts`),
 * written so that the OpenAPI document states exactly what they accept (CONTRACT §1: a client or
 * gateway that validates against the document accepts exactly what the service accepts).
 *
 * Two choices make that possible:
 * - Lengths count characters as JSON Schema's `minLength`/`maxLength` do: Unicode code points
 *   (JSON Schema 2020-12 §6.3.1), not UTF-16 code units as `z.string().max()` would ("😀" is one
 *   character, two code units).
 * - Where a rule is more than a length (trimming, a character set, an e-mail address), the schema
 *   carries a JSON Schema `pattern` (ECMA-262, as ajv and Prism run it) that accepts exactly the
 *   strings the zod checks accept; `tests/unit/schemas.test.ts` holds each pattern to its checks.
 */
import { z } from 'zod';

/** Longest e-mail address, characters after trimming (RFC 5321 path limit; CONTRACT §2). */
export const MAX_EMAIL_LENGTH = 254;

/** Number of characters (Unicode code points) in `value`: the unit of JSON Schema's `maxLength`. */
export function characterCount(value: string): number {
  let count = 0;
  for (const _ of value) count++;
  return count;
}

/**
 * A string of `min` to `max` characters (code points), stated in the document as `minLength` (when
 * above 0) and `maxLength`. Refusals read "is required" (empty when `min` is 1), "must be at least N characters",
 * "must be at most N characters".
 */
export function characters(min: number, max: number): z.ZodString {
  const text = z.string({ error: 'is required' });
  const bounded = min === 0 ? text : text.refine((value) => characterCount(value) >= min, min === 1 ? 'is required' : `must be at least ${min} characters`);
  return bounded.refine((value) => characterCount(value) <= max, `must be at most ${max} characters`).meta({ ...(min === 0 ? {} : { minLength: min }), maxLength: max });
}

/**
 * JSON Schema `pattern` of a string that is trimmed (`String.prototype.trim`, whose white space is
 * exactly the regular expression class `\s`) and must then hold 1 to `max` characters, none of them in
 * `forbidden` (the body of a character class, e.g. `\\u0000-\\u001F`; may be empty).
 */
export function trimmedTextPattern(max: number, forbidden = ''): string {
  const edge = `[^\\s${forbidden}]`;
  const inner = forbidden === '' ? '[\\s\\S]' : `[^${forbidden}]`;
  return `^\\s*${edge}(?:${inner}{0,${max - 2}}${edge})?\\s*$`;
}

/**
 * The `pattern` of {@link emailAddress}: optional white space around an address that zod's e-mail
 * check accepts (`z.regexes.email`, ASCII only) and that holds at most {@link MAX_EMAIL_LENGTH}
 * characters.
 */
export const EMAIL_PATTERN = `^\\s*(?=\\S{1,${MAX_EMAIL_LENGTH}}\\s*$)${z.regexes.email.source.replace(/^\^/, '').replace(/\$$/, '')}\\s*$`;

/**
 * An e-mail address: trimmed, then checked (zod's e-mail rule, at most {@link MAX_EMAIL_LENGTH}
 * characters), then lower-cased (CONTRACT §2, §3). It is checked before it is lower-cased, so that a
 * character that only lower-cases into ASCII (U+212A KELVIN SIGN becomes `k`) is refused rather than
 * silently changed into another address, and the document's `pattern` can state the rule.
 */
export function emailAddress(description: string, example: string) {
  return z
    .string({ error: 'is required' })
    .trim()
    .pipe(z.email({ error: 'must be a valid e-mail address' }).max(MAX_EMAIL_LENGTH, `must be at most ${MAX_EMAIL_LENGTH} characters`).toLowerCase())
    .meta({ pattern: EMAIL_PATTERN, description, examples: [example] });
}
