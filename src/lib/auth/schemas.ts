/**
 * Request bodies of Register and Login (docs/api.md#accounts). Strict: unknown fields are refused.
 * Lengths count characters (code points) and the `pattern`s state the rest, so that the OpenAPI
 * document accepts exactly what these schemas accept (`src/lib/text.ts`), with one exception
 * JSON Schema cannot express: the password's limit in bytes.
 */
import { z } from 'zod';
import { characterCount, characters, emailAddress, emailLookup, MAX_EMAIL_LENGTH, trimmedText } from '../text.js';
import { MAX_PASSWORD_BYTES } from './password.js';

/** Shortest new password, characters (docs/api.md#accounts). */
export const MIN_PASSWORD_LENGTH = 8;

/** Trimmed, valid, at most 254 characters, then lower-cased (docs/api.md#accounts). */
export const emailAddressField = emailAddress('Trimmed, then a valid address of at most 254 characters, then lower-cased.', 'ada@example.com');

/**
 * At least 8 characters, at most 72 bytes of UTF-8 (bcrypt's limit: longer is refused, never truncated).
 * JSON Schema counts characters, never bytes, and no pattern of reasonable size counts UTF-8 bytes
 * (characters weigh 1 to 4 bytes), so the document states `maxLength` 72, the most characters 72
 * bytes can hold, and says in words that the service counts bytes: every password the service accepts
 * passes the document; one of 72 characters or fewer that needs more than 72 bytes passes the
 * document and gets 400.
 */
export const newPassword = z
  .string({ error: 'is required' })
  .refine((value) => characterCount(value) >= MIN_PASSWORD_LENGTH, `must be at least ${MIN_PASSWORD_LENGTH} characters`)
  .refine((value) => Buffer.byteLength(value, 'utf8') <= MAX_PASSWORD_BYTES, `must be at most ${MAX_PASSWORD_BYTES} bytes in UTF-8`)
  .meta({
    minLength: MIN_PASSWORD_LENGTH,
    maxLength: MAX_PASSWORD_BYTES,
    description:
      `At least ${MIN_PASSWORD_LENGTH} characters and at most ${MAX_PASSWORD_BYTES} bytes in UTF-8 (bcrypt's limit: a longer password is refused with 400, never truncated). ` +
      `A character takes 1 byte in ASCII and 2 to 4 bytes beyond it. JSON Schema cannot count bytes, so \`maxLength\` states the most characters ${MAX_PASSWORD_BYTES} bytes can hold: ` +
      `a password within it that needs more than ${MAX_PASSWORD_BYTES} bytes (37 characters like \`é\`, for instance) passes this schema and is refused by the service.`,
    examples: ['correct horse battery'],
  });

/** Longest display name of an owner, characters after trimming (docs/api.md#accounts). */
export const MAX_OWNER_NAME = 200;

/** The owner's display name (docs/api.md#accounts): e-mails, the signing page and the certificate show `Name <address>`. */
export const ownerName = trimmedText(MAX_OWNER_NAME).meta({
  description: `Optional display name: 1 to ${MAX_OWNER_NAME} characters after trimming; no control characters (U+0000 to U+001F, U+007F to U+009F), U+2028, U+2029 or unpaired surrogates. E-mails, the signing page and the certificate name the owner as \`Name <address>\`.`,
  examples: ['Ada Lovelace'],
});

const turnstileToken = characters(0, 2048)
  .optional()
  .meta({ description: 'Cloudflare Turnstile token, at most 2048 characters: verified when the service has a Turnstile secret, else ignored. An empty string counts as no token.' });

export const registerRequest = z
  .strictObject({
    email: emailAddressField,
    password: newPassword,
    invitationCode: characters(1, 200)
      .optional()
      .meta({
        description:
          'From an operator (`npm run invite`): `inv_` and 32 base64url characters. Any other value is answered like an unknown, expired or used-up code: 403 `invalid-invitation`. Exactly one of `invitationCode` and `organizationInvitation` is required.',
        examples: ['inv_q3Xx7bqfVbQ1bG9m0hTQwZ8kL2pN4sRt'],
      }),
    organizationInvitation: characters(1, 200)
      .optional()
      .meta({
        description:
          'Instead of `invitationCode`: the token of an invitation to an organization (the part of its link after `#join=`). The account joins that organization with the invited role, and the invitation is used up. An unknown, expired, deleted or used token: 403 `invalid-invitation`.',
        examples: ['oinv_3Xq7bqfVbQ1bG9m0hTQwZ8kL2pN4sRtq3Xx7bqfVbQ1'],
      }),
    name: ownerName.optional(),
    turnstileToken,
  })
  .refine((body) => (body.invitationCode === undefined) !== (body.organizationInvitation === undefined), {
    message: 'exactly one of invitationCode and organizationInvitation is required',
    path: ['invitationCode'],
  });
export type RegisterRequest = z.infer<typeof registerRequest>;

/** `POST /api/VerifyEmail`: the token from the verification link's fragment. */
export const verifyEmailRequest = z.strictObject({
  token: characters(1, 600).meta({ description: 'The part of the verification link after `#`.', examples: ['YWRhQGV4YW1wbGUuY29t.1796210130.3Xq7bqfVbQ1bG9m0hTQwZ8kL2pN4sRtq3Xx7bqfVbQ1'] }),
});
export type VerifyEmailRequest = z.infer<typeof verifyEmailRequest>;

export const loginRequest = z.strictObject({
  email: emailLookup(
    `Trimmed, then 1 to ${MAX_EMAIL_LENGTH} characters, then lower-cased; no control characters, line or paragraph separators, bidirectional controls or unpaired surrogates. Any other text is accepted here (an address not registered gets 401).`,
    'ada@example.com',
  ),
  password: characters(1, 1024).meta({ description: 'The account\'s password: 1 to 1024 characters.' }),
  turnstileToken,
});
export type LoginRequest = z.infer<typeof loginRequest>;
