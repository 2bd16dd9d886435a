/**
 * Byte helpers of the verifier that run alike in Node.js and in a browser (docs/evidence.md): no
 * `Buffer`, no `node:` module; hashing through Web Crypto (`globalThis.crypto.subtle`).
 */

/**
 * The bytes as text, one character per byte, for finding PDF syntax by pattern: offsets in the text
 * are offsets in the file. Decoded as the Encoding Standard's `latin1` (windows-1252), which maps every
 * byte to one character and ASCII to itself.
 */
export function latin1(bytes: Uint8Array): string {
  return new TextDecoder('latin1').decode(bytes);
}

/** Lower-case hex of `bytes`. */
export function toHex(bytes: Uint8Array): string {
  let hex = '';
  for (const byte of bytes) hex += byte.toString(16).padStart(2, '0');
  return hex;
}

/**
 * The bytes of a hex string (white space ignored; an odd last digit counts as followed by 0, as
 * ISO 32000-2 §7.3.4.3 reads hexadecimal strings).
 * @throws Error on a character that is neither a hex digit nor white space
 */
export function fromHex(hex: string): Uint8Array {
  const digits = hex.replace(/\s+/g, '');
  if (!/^[0-9a-fA-F]*$/.test(digits)) throw new Error('not hexadecimal');
  const even = digits.length % 2 === 0 ? digits : `${digits}0`;
  const bytes = new Uint8Array(even.length / 2);
  for (let index = 0; index < bytes.length; index++) bytes[index] = Number.parseInt(even.slice(index * 2, index * 2 + 2), 16);
  return bytes;
}

/** The bytes of base64url text (RFC 4648 §5, padding optional). @throws Error when it is not base64url */
export function fromBase64Url(text: string): Uint8Array {
  if (!/^[A-Za-z0-9_-]*={0,2}$/.test(text)) throw new Error('not base64url');
  const binary = atob(text.replace(/=+$/, '').replace(/-/g, '+').replace(/_/g, '/').padEnd(Math.ceil(text.replace(/=+$/, '').length / 4) * 4, '='));
  return Uint8Array.from(binary, (character) => character.charCodeAt(0));
}

/** The bytes of `parts`, one after the other. */
export function concat(...parts: readonly Uint8Array[]): Uint8Array {
  const joined = new Uint8Array(parts.reduce((total, part) => total + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    joined.set(part, offset);
    offset += part.length;
  }
  return joined;
}

/** Whether two byte strings are equal. */
export function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((byte, index) => byte === b[index]);
}

/** Web Crypto digest names by what the verifier meets: CMS digest algorithm OIDs (RFC 5754 §2) and plain names. */
const DIGESTS: Record<string, string> = {
  '2.16.840.1.101.3.4.2.1': 'SHA-256',
  '2.16.840.1.101.3.4.2.2': 'SHA-384',
  '2.16.840.1.101.3.4.2.3': 'SHA-512',
  '1.3.14.3.2.26': 'SHA-1',
};

/** The Web Crypto name of a digest algorithm OID, or `null` when the verifier does not know it. */
export function digestName(oid: string): string | null {
  return DIGESTS[oid] ?? null;
}

/**
 * The digest of `data` with `algorithm` (a Web Crypto name, e.g. `SHA-256`).
 * @throws Error when Web Crypto lacks the algorithm
 */
export async function digest(algorithm: string, data: Uint8Array): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.digest(algorithm, data as Uint8Array<ArrayBuffer>));
}

/** Lower-case hex SHA-256 of `data` (bytes, or text as UTF-8). */
export async function sha256Hex(data: Uint8Array | string): Promise<string> {
  return toHex(await digest('SHA-256', typeof data === 'string' ? new TextEncoder().encode(data) : data));
}
