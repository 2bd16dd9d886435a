/**
 * Webhook signing secrets (docs/api.md#webhooks): `whsec_` + base64 of 32 random bytes, shown to the owner
 * once, at creation. The service must keep it to sign every delivery, so it cannot store a hash: it
 * stores the secret encrypted with AES-256-GCM under a key derived from `JWT_SECRET` with HKDF-SHA256
 * (RFC 5869), bound to its owner and webhook id as additional authenticated data, so a ciphertext
 * copied to another row does not decrypt. Someone who reads the table alone learns no secret.
 *
 * Consequence: changing `JWT_SECRET` makes the stored secrets unreadable; deliveries of the existing
 * webhooks then fail (their log says so) until the webhooks are created again (docs/api.md, "How secrets are kept").
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

const PREFIX = 'whsec_';
/** Bytes of a secret (docs/api.md#webhooks). */
export const SECRET_BYTES = 32;
/** HKDF `info`: names the purpose, so the derived key serves nothing else. */
const HKDF_INFO = 'envelope-signing-service/webhook-secret-encryption/v1';
const VERSION = 'v1';

/** A new secret, `whsec_<base64 of 32 random bytes>`. */
export function generateWebhookSecret(): string {
  return `${PREFIX}${randomBytes(SECRET_BYTES).toString('base64')}`;
}

/** The AES-256 key for secrets, derived from the JWT key bytes. */
export function secretEncryptionKey(jwtSecret: Uint8Array): Buffer {
  return Buffer.from(hkdfSync('sha256', jwtSecret, new Uint8Array(0), HKDF_INFO, 32));
}

/**
 * Encrypts a secret for storage.
 * @param context the owner and webhook ids the ciphertext is bound to
 * @returns `v1.<base64 IV>.<base64 ciphertext and 16-byte tag>`
 */
export function encryptWebhookSecret(secret: string, key: Uint8Array, context: { ownerId: string; webhookId: string }): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(`${context.ownerId}/${context.webhookId}`, 'utf8'));
  const sealed = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final(), cipher.getAuthTag()]);
  return `${VERSION}.${iv.toString('base64')}.${sealed.toString('base64')}`;
}

/**
 * Decrypts what {@link encryptWebhookSecret} stored.
 * @throws Error when the text is not such a ciphertext, or the key or context differ (the key was
 *   derived from another `JWT_SECRET`, or the ciphertext belongs to another webhook)
 */
export function decryptWebhookSecret(stored: string, key: Uint8Array, context: { ownerId: string; webhookId: string }): string {
  const [version, ivText, sealedText] = stored.split('.');
  if (version !== VERSION || ivText === undefined || sealedText === undefined) throw new Error('not an encrypted webhook secret');
  const sealed = Buffer.from(sealedText, 'base64');
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(ivText, 'base64'));
  decipher.setAAD(Buffer.from(`${context.ownerId}/${context.webhookId}`, 'utf8'));
  decipher.setAuthTag(sealed.subarray(sealed.length - 16));
  return Buffer.concat([decipher.update(sealed.subarray(0, sealed.length - 16)), decipher.final()]).toString('utf8');
}
