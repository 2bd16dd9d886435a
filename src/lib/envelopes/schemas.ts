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

const signerId = z.string().min(1, 'must not be empty').max(100, 'must be at most 100 characters');

export const signerInput = z
  .strictObject({
    id: signerId.optional(),
    recipientId: signerId.optional(),
    email: z
      .string({ error: 'is required' })
      .trim()
      .toLowerCase()
      .pipe(z.email({ error: 'must be a valid e-mail address' }).max(254, 'must be at most 254 characters')),
    name: z
      .string({ error: 'is required' })
      .trim()
      .min(1, 'is required')
      .refine((name) => [...name].length <= MAX_SIGNER_NAME, `must be at most ${MAX_SIGNER_NAME} characters`)
      .refine((name) => !/[\u0000-\u001f\u007f]/.test(name), 'must not contain control characters'),
    role: z.enum(SIGNER_ROLES, { error: `must be one of ${SIGNER_ROLES.join(', ')}` }).default('signer'),
  })
  .refine((signer) => signer.id === undefined || signer.recipientId === undefined || signer.id === signer.recipientId, {
    message: 'must equal id when both are sent',
    path: ['recipientId'],
  });
export type SignerInput = z.infer<typeof signerInput>;

/** `null` and `{}` entries are dropped before validation (spec §4 rule 3). */
const signerList = z
  .array(z.unknown(), { error: 'must be an array' })
  .transform((entries) =>
    entries.filter((entry) => entry !== null && !(typeof entry === 'object' && !Array.isArray(entry) && Object.keys(entry).length === 0)),
  )
  .pipe(
    z
      .array(signerInput)
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
  );

export const updateEnvelopeRequest = z.strictObject({
  signers: signerList.optional(),
  status: z.enum(ENVELOPE_STATUSES, { error: `must be one of ${ENVELOPE_STATUSES.join(', ')}` }).optional(),
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
    .refine((name) => /\.pdf$/i.test(name) && name.length > 4, 'must end in .pdf'),
  mimetype: z.string({ error: 'is required' }).min(1, 'is required').max(255, 'must be at most 255 characters'),
});
export type UploadRequest = z.infer<typeof uploadRequest>;

/** Query of the envelope list (CONTRACT §7). */
export const listEnvelopesQuery = z.strictObject({
  status: z.enum(ENVELOPE_STATUSES, { error: `must be one of ${ENVELOPE_STATUSES.join(', ')}` }).optional(),
  limit: z
    .string()
    .regex(/^\d{1,4}$/, 'must be a whole number from 1 to 1000')
    .transform(Number)
    .pipe(z.number().int().min(1, 'must be a whole number from 1 to 1000').max(1000, 'must be a whole number from 1 to 1000'))
    .optional(),
  cursor: z.string().min(1).max(400, 'is not a cursor this service issued').optional(),
});
export type ListEnvelopesQuery = z.infer<typeof listEnvelopesQuery>;
