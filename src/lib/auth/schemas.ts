/**
 * Request bodies of Register and Login (spec §4, CONTRACT §2). Strict: unknown fields are refused.
 */
import { z } from 'zod';
import { MAX_PASSWORD_BYTES } from './password.js';

/** Trimmed, lower-cased, valid, at most 254 characters (CONTRACT §2). */
export const emailAddress = z
  .string({ error: 'is required' })
  .trim()
  .toLowerCase()
  .pipe(z.email({ error: 'must be a valid e-mail address' }).max(254, 'must be at most 254 characters'))
  .meta({ format: 'email', maxLength: 254, description: 'Trimmed and lower-cased; a valid address of at most 254 characters.', examples: ['ada@example.com'] });

/** At least 8 characters, at most 72 bytes of UTF-8 (bcrypt's limit: longer is refused, never truncated). */
export const newPassword = z
  .string({ error: 'is required' })
  .min(8, 'must be at least 8 characters')
  .refine((value) => Buffer.byteLength(value, 'utf8') <= MAX_PASSWORD_BYTES, `must be at most ${MAX_PASSWORD_BYTES} bytes in UTF-8`)
  .meta({
    description: `At least 8 characters and at most ${MAX_PASSWORD_BYTES} bytes in UTF-8 (bcrypt's limit: longer is refused, never truncated).`,
    examples: ['correct horse battery'],
  });

const turnstileToken = z
  .string()
  .max(2048, 'must be at most 2048 characters')
  .optional()
  .meta({ description: 'Cloudflare Turnstile token; verified only when the service has a Turnstile secret (CONTRACT §2).' });

export const registerRequest = z.strictObject({
  email: emailAddress,
  password: newPassword,
  invitationCode: z
    .string({ error: 'is required' })
    .min(1, 'is required')
    .max(200, 'must be at most 200 characters')
    .meta({ description: 'From an operator (`npm run invite`); single-use unless created with more uses.', examples: ['inv_q3Xx7bqfVbQ1bG9m0hTQwZ8kL2pN4sRt'] }),
  turnstileToken,
});
export type RegisterRequest = z.infer<typeof registerRequest>;

export const loginRequest = z.strictObject({
  email: z.string({ error: 'is required' }).trim().toLowerCase().min(1, 'is required').max(254, 'must be at most 254 characters'),
  password: z.string({ error: 'is required' }).min(1, 'is required').max(1024, 'must be at most 1024 characters'),
  turnstileToken,
});
export type LoginRequest = z.infer<typeof loginRequest>;
