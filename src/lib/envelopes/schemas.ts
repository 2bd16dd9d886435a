/**
 * Request shapes of the envelope endpoints (spec §4, CONTRACT §3, §4, §5, §7). Strict: unknown fields
 * are refused, so a client can never set `ownerId`, `hash`, `createdAt`, ... (mass assignment).
 */
import { z } from 'zod';
import { ENVELOPE_STATUSES, SIGNER_ROLES } from './model.js';

/** At most this many signers on one envelope (CONTRACT §3). */
export const MAX_SIGNERS = 100;
/** Longest signer name, characters (CONTRACT §3). */
export const MAX_SIGNER_NAME = 200;
/** Longest document file name, characters (CONTRACT §4). */
export const MAX_FILENAME = 200;

const signerId = z
  .string()
  .min(1, 'must not be empty')
  .max(100, 'must be at most 100 characters')
  .meta({ description: 'The id of a current signer keeps that identity; any other value, or none, gets a new UUID.' });

export const signerInput = z
  .strictObject({
    id: signerId.optional(),
    recipientId: signerId.optional(),
    email: z
      .string({ error: 'is required' })
      .trim()
      .toLowerCase()
      .pipe(z.email({ error: 'must be a valid e-mail address' }).max(254, 'must be at most 254 characters'))
      .meta({ format: 'email', maxLength: 254, description: 'Trimmed and lower-cased; unique within the envelope.', examples: ['bob@example.com'] }),
    name: z
      .string({ error: 'is required' })
      .trim()
      .min(1, 'is required')
      .refine((name) => [...name].length <= MAX_SIGNER_NAME, `must be at most ${MAX_SIGNER_NAME} characters`)
      .refine((name) => !/[\u0000-\u001f\u007f]/.test(name), 'must not contain control characters')
      .meta({ description: `1 to ${MAX_SIGNER_NAME} characters after trimming, no control characters.`, examples: ['Bob Builder'] }),
    role: z.enum(SIGNER_ROLES, { error: `must be one of ${SIGNER_ROLES.join(', ')}` }).default('signer'),
  })
  .refine((signer) => signer.id === undefined || signer.recipientId === undefined || signer.id === signer.recipientId, {
    message: 'must equal id when both are sent',
    path: ['recipientId'],
  })
  .meta({ description: 'A signer in a request: `id` or `recipientId` (equal when both are sent) names an existing signer.' });
export type SignerInput = z.infer<typeof signerInput>;

/**
 * `null` and `{}` entries are dropped before validation (spec §4 rule 3): a preprocess step rather than
 * a transform of `unknown[]`, so that the OpenAPI document shows the signer items.
 */
const signerList = z
  .preprocess(
    (entries) =>
      Array.isArray(entries)
        ? entries.filter((entry) => entry !== null && !(typeof entry === 'object' && !Array.isArray(entry) && Object.keys(entry).length === 0))
        : entries,
    z
      .array(signerInput, { error: 'must be an array' })
      .max(MAX_SIGNERS, `must hold at most ${MAX_SIGNERS} signers`)
      .superRefine((signers, context) => {
        const seen = new Map<string, number>();
        // One signer's identity cannot be kept by two entries (CONTRACT §3: ids identify signers).
        const seenIds = new Map<string, number>();
        signers.forEach((signer, index) => {
          const first = seen.get(signer.email);
          if (first !== undefined) {
            context.addIssue({ code: 'custom', path: [index, 'email'], message: `repeats the e-mail address of signer ${first}` });
          } else {
            seen.set(signer.email, index);
          }
          const id = signer.id ?? signer.recipientId;
          if (id === undefined) return;
          const firstWithId = seenIds.get(id);
          if (firstWithId !== undefined) {
            context.addIssue({ code: 'custom', path: [index, signer.id === undefined ? 'recipientId' : 'id'], message: `repeats the id of signer ${firstWithId}` });
          } else {
            seenIds.set(id, index);
          }
        });
      }),
  )
  .meta({ description: `Replaces the whole list: at most ${MAX_SIGNERS}, e-mail addresses and ids unique; \`null\` and \`{}\` entries are dropped.` });

export const updateEnvelopeRequest = z.strictObject({
  signers: signerList.optional(),
  status: z
    .enum(ENVELOPE_STATUSES, { error: `must be one of ${ENVELOPE_STATUSES.join(', ')}` })
    .optional()
    .meta({ description: '`sent` or `voided` (CONTRACT §5); completing is `POST /api/envelopes/{id}/complete`.' }),
});
export type UpdateEnvelopeRequest = z.infer<typeof updateEnvelopeRequest>;

export const uploadRequest = z.strictObject({
  filename: z
    .string({ error: 'is required' })
    .min(1, 'is required')
    .refine((name) => [...name].length <= MAX_FILENAME, `must be at most ${MAX_FILENAME} characters`)
    .refine((name) => !/[\\/]/.test(name), 'must not contain path separators')
    .refine((name) => !/[\u0000-\u001f\u007f-\u009f]/.test(name), 'must not contain control characters')
    .refine((name) => name !== '..' && !name.startsWith('..'), 'must not start with ..')
    .refine((name) => name.trim() === name, 'must not start or end with white space')
    .refine((name) => /\.pdf$/i.test(name) && name.length > 4, 'must end in .pdf')
    .meta({
      description: `1 to ${MAX_FILENAME} characters ending in \`.pdf\`: no path separators, no control characters, no leading \`..\`, no surrounding white space.`,
      examples: ['contract.pdf'],
    }),
  mimetype: z
    .string({ error: 'is required' })
    .min(1, 'is required')
    .max(255, 'must be at most 255 characters')
    .meta({ description: 'Must be `application/pdf` (else 415).', examples: ['application/pdf'] }),
});
export type UploadRequest = z.infer<typeof uploadRequest>;

/** Query of the envelope list (CONTRACT §7). */
export const listEnvelopesQuery = z.strictObject({
  status: z
    .enum(ENVELOPE_STATUSES, { error: `must be one of ${ENVELOPE_STATUSES.join(', ')}` })
    .optional()
    .meta({ description: 'Only envelopes in this state.' }),
  limit: z
    .string()
    .regex(/^\d{1,4}$/, 'must be a whole number from 1 to 1000')
    .transform(Number)
    .pipe(z.number().int().min(1, 'must be a whole number from 1 to 1000').max(1000, 'must be a whole number from 1 to 1000'))
    .optional()
    .meta({ description: 'Page size, a whole number from 1 to 1000 (default 1000).', examples: ['50'] }),
  cursor: z
    .string()
    .min(1)
    .max(400, 'is not a cursor this service issued')
    .optional()
    .meta({ description: 'Opaque: copy it from the `Link: <...>; rel="next"` header of the previous page.' }),
});
export type ListEnvelopesQuery = z.infer<typeof listEnvelopesQuery>;
