/**
 * Request bodies of the organisation endpoints (docs/api.md#organizations). Strict: unknown fields
 * are refused.
 */
import { z } from 'zod';
import { MAX_ORGANIZATION_NAME } from '../storage/organizationRepository.js';
import { localeSchema } from '../i18n/schema.js';
import { emailAddress, multilineText, trimmedText } from '../text.js';
import { SUPPORTED_LOCALES } from '../i18n/locales.js';

/** Shortest and longest disclosure an organisation may set, code points (docs/api.md#the-organizations-disclosures). */
export const MIN_DISCLOSURE = 50;
export const MAX_DISCLOSURE = 10_000;

/** A role a member can be given: every role but `owner`, which changes hands only by transfer. */
export const assignableRole = z
  .enum(['admin', 'sender', 'viewer'])
  .meta({ id: 'AssignableRole', description: '`admin`, `sender` or `viewer` (docs: Roles). `owner` changes hands only by `POST /api/organization/transfer`.' });

/** Shortest and longest retention period an organisation may set, days (docs/api.md#retention). */
export const MIN_RETENTION_DAYS = 30;
export const MAX_RETENTION_DAYS = 3650;

export const updateOrganizationRequest = z.strictObject({
  name: trimmedText(MAX_ORGANIZATION_NAME)
    .optional()
    .meta({ description: `1 to ${MAX_ORGANIZATION_NAME} characters after trimming; no control characters.`, examples: ['Lovelace & Partners'] }),
  locale: localeSchema.optional().meta({ description: 'The language of the organization\'s invitation e-mails (`en` until changed).', examples: ['de'] }),
  disclosure: z
    .partialRecord(localeSchema, multilineText(MIN_DISCLOSURE, MAX_DISCLOSURE).nullable())
    .optional()
    .meta({
      description: `The organization's own disclosure about electronic records and signatures, per locale (${SUPPORTED_LOCALES.join(', ')}): ${MIN_DISCLOSURE} to ${MAX_DISCLOSURE} characters (code points), line breaks allowed, no other control characters. Its recipients reading that locale are shown it and agree to it instead of the service's. \`null\` removes the organization's text for that locale (the service's applies again); locales not named keep theirs.`,
      examples: [{ ja: '電子記録および電子署名の使用への同意。このチェックボックスをオンにすることにより、当社との取引に係る書面を電子的に受領し、電子署名することに同意します。' }],
    }),
  retentionDays: z
    .int()
    .min(MIN_RETENTION_DAYS)
    .max(MAX_RETENTION_DAYS)
    .nullable()
    .optional()
    .meta({
      description: `Days a finished envelope (completed, declined, voided, expired) is kept, ${MIN_RETENTION_DAYS} to ${MAX_RETENTION_DAYS}: the sweeper then purges its documents as \`DELETE /api/envelopes/{id}\` does and records it in the purge log. \`null\`: kept for ever (the default).`,
      examples: [365],
    }),
});
export type UpdateOrganizationRequest = z.infer<typeof updateOrganizationRequest>;

export const createOrganizationInvitationRequest = z.strictObject({
  email: emailAddress('The address invited: trimmed, then a valid address of at most 254 characters, then lower-cased.', 'grace@example.com'),
  role: assignableRole,
});
export type CreateOrganizationInvitationRequest = z.infer<typeof createOrganizationInvitationRequest>;

export const updateMemberRequest = z.strictObject({ role: assignableRole });
export type UpdateMemberRequest = z.infer<typeof updateMemberRequest>;

export const removeMemberRequest = z.strictObject({
  transferTo: z.uuid().meta({
    description: 'The member who receives the removed member\'s envelopes and templates: another member of the organization who is not a `viewer`.',
    examples: ['0193a5b2-7c1d-7e2f-8a3b-4c5d6e7f8a9b'],
  }),
});
export type RemoveMemberRequest = z.infer<typeof removeMemberRequest>;

export const transferOrganizationRequest = z.strictObject({
  userId: z.uuid().meta({ description: 'The member who becomes the owner; the caller becomes an `admin`.', examples: ['0193a5b2-7c1d-7e2f-8a3b-4c5d6e7f8a9b'] }),
});
export type TransferOrganizationRequest = z.infer<typeof transferOrganizationRequest>;
