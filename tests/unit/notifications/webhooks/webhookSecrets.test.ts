/**
 * Webhook secrets (docs/api.md#webhooks): their form, their encryption at rest (AES-256-GCM under a key
 * derived from JWT_SECRET with HKDF, bound to the webhook), and that a Standard Webhooks signature
 * made with one is the HMAC-SHA256 of the secret's bytes, as any receiver computes it.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { describe, expect, test } from '@jest/globals';
import { Webhook } from 'standardwebhooks';
import { decryptWebhookSecret, encryptWebhookSecret, generateWebhookSecret, secretEncryptionKey } from '../../../../src/lib/notifications/webhooks/secrets.js';

const context = { ownerId: '0193a5b0-1f2e-7a6b-8c9d-0e1f2a3b4c5d', webhookId: '0193a5c4-2b7d-7e10-8f3a-5c6d7e8f9a0b' };

describe('webhook secrets', () => {
  test('are whsec_ and base64 of 32 random bytes, different every time', () => {
    const secrets = Array.from({ length: 50 }, generateWebhookSecret);
    for (const secret of secrets) {
      expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
      expect(Buffer.from(secret.slice(6), 'base64')).toHaveLength(32);
    }
    expect(new Set(secrets).size).toBe(50);
  });

  test('decrypt to themselves, and the stored text does not contain them', () => {
    const key = secretEncryptionKey(randomBytes(48));
    const secret = generateWebhookSecret();
    const stored = encryptWebhookSecret(secret, key, context);
    expect(stored).toMatch(/^v1\.[A-Za-z0-9+/=]+\.[A-Za-z0-9+/=]+$/);
    expect(stored).not.toContain(secret.slice(6, 20));
    expect(decryptWebhookSecret(stored, key, context)).toBe(secret);
    expect(encryptWebhookSecret(secret, key, context)).not.toBe(stored);
  });

  test('do not decrypt under another JWT_SECRET, for another webhook or owner, or when tampered with', () => {
    const jwtSecret = randomBytes(48);
    const key = secretEncryptionKey(jwtSecret);
    const stored = encryptWebhookSecret(generateWebhookSecret(), key, context);
    expect(() => decryptWebhookSecret(stored, secretEncryptionKey(randomBytes(48)), context)).toThrow();
    expect(() => decryptWebhookSecret(stored, key, { ...context, webhookId: '0193a5c4-2b7d-7e10-8f3a-5c6d7e8f9a0c' })).toThrow();
    expect(() => decryptWebhookSecret(stored, key, { ...context, ownerId: '0193a5b0-1f2e-7a6b-8c9d-0e1f2a3b4c5e' })).toThrow();
    const [version, iv, sealed] = stored.split('.') as [string, string, string];
    const flipped = Buffer.from(sealed, 'base64');
    flipped[0] = flipped[0]! ^ 1;
    expect(() => decryptWebhookSecret(`${version}.${iv}.${flipped.toString('base64')}`, key, context)).toThrow();
    expect(() => decryptWebhookSecret('plain-text', key, context)).toThrow('not an encrypted webhook secret');
    // The derivation is deterministic: the same JWT_SECRET decrypts after a restart.
    expect(decryptWebhookSecret(stored, secretEncryptionKey(Buffer.from(jwtSecret)), context)).toMatch(/^whsec_/);
  });

  test('sign as Standard Webhooks specifies: v1, base64 HMAC-SHA256 with the secret bytes over id.timestamp.body', () => {
    const secret = generateWebhookSecret();
    const body = JSON.stringify({ id: 'e1', type: 'envelope.sent', data: { text: 'grüße' } });
    const at = new Date('2026-11-22T10:15:30.999Z');
    const expected = createHmac('sha256', Buffer.from(secret.slice(6), 'base64')).update(`msg_1.${Math.floor(at.getTime() / 1000)}.${body}`).digest('base64');
    expect(new Webhook(secret).sign('msg_1', at, body)).toBe(`v1,${expected}`);
  });
});
