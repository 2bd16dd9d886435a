/**
 * One-time codes e-mailed to recipients (docs/api.md#signer-authentication): 6 digits derived from a random salt with a
 * key derived from `JWT_SECRET`, so that storage and the outbox keep only the salt and the e-mail
 * sender derives the code as it writes the e-mail (as signing tokens, `signingLinks.ts`).
 */
import { createHmac, hkdfSync } from 'node:crypto';

/** The key that turns one-time code salts into codes: HKDF-SHA256 of the JWT key, its own info. */
function otpKey(jwtSecret: Uint8Array): Uint8Array {
  return new Uint8Array(hkdfSync('sha256', jwtSecret, new Uint8Array(0), 'envelope-signing/one-time-codes/v1', 32));
}

/** The 6-digit one-time code of a salt (HMAC-SHA256, dynamic truncation as HOTP, RFC 4226 §5.3). */
export function oneTimeCode(jwtSecret: Uint8Array, salt: string): string {
  const mac = createHmac('sha256', otpKey(jwtSecret)).update(salt, 'utf8').digest();
  const offset = mac[mac.length - 1]! & 0x0f;
  const number = (mac.readUInt32BE(offset) & 0x7fffffff) % 1_000_000;
  return number.toString().padStart(6, '0');
}

