/**
 * Request shapes of the public link endpoints (docs/api.md#public-links). Strict: unknown fields are refused.
 */
import { z } from 'zod';
import { signerInput } from '../envelopes/schemas.js';

export const startPublicLinkRequest = z
  .strictObject({
    name: signerInput.shape.name,
    email: signerInput.shape.email,
    turnstileToken: z.string({ error: 'must be a string' }).max(4096, 'must be at most 4096 characters').optional().meta({ description: 'The Turnstile token of the page\'s widget; required while the service has `TURNSTILE_SECRET_KEY`.' }),
  })
  .meta({ id: 'StartPublicLinkRequest', description: 'Who opens the link: the code goes to this address.' });
export type StartPublicLinkRequest = z.infer<typeof startPublicLinkRequest>;

export const verifyPublicLinkRequest = z
  .strictObject({
    email: signerInput.shape.email,
    code: z.string({ error: 'is required' }).regex(/^\s*\d{6}\s*$/, 'must be the 6 digits of the e-mail').transform((value) => value.trim()).meta({ description: 'The 6-digit code of the e-mail.', examples: ['042917'] }),
  })
  .meta({ id: 'VerifyPublicLinkRequest', description: 'The address given at start, and the code e-mailed to it.' });
export type VerifyPublicLinkRequest = z.infer<typeof verifyPublicLinkRequest>;
