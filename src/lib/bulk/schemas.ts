/**
 * Request shapes of bulk send (docs/api.md#bulk-send). The body is checked in two steps: its frame
 * here (`rows` an array, `send`), then each row on its own (`bulkRowInput`, then against the
 * template, `rows.ts`), so that every bad row is named by its number rather than stopping at the
 * first.
 */
import { z } from 'zod';
import { DELIVERIES } from '../envelopes/model.js';
import { listEnvelopesQuery } from '../envelopes/schemas.js';
import { characters } from '../text.js';
import { MAX_ROLE_NAME } from '../templates/schemas.js';

/** Most `metadata` entries of a row, longest key and value, characters (docs/api.md#bulk-send). */
export const MAX_METADATA_ENTRIES = 20;
export const MAX_METADATA_KEY = 100;
export const MAX_METADATA_VALUE = 500;
/** Longest field label a `prefill` key may be (a template field's `label`). */
const MAX_PREFILL_KEY = 200;

export const bulkRecipientInput = z
  .strictObject({
    roleName: characters(1, MAX_ROLE_NAME).meta({ description: 'The role this recipient takes, by name (case-insensitive).' }),
    // Checked by the envelope's own rules at the second step (a signer's email, name, locale, phone, delivery).
    email: z.string({ error: 'must be a string' }).meta({ description: 'As a signer\'s `email`.' }),
    name: z.string({ error: 'must be a string' }).meta({ description: 'As a signer\'s `name`.' }),
    locale: z.string({ error: 'must be a string' }).optional().meta({ description: 'As a signer\'s `locale`.' }),
    phone: z.string({ error: 'must be a string' }).optional().meta({ description: 'As a signer\'s `phone` (international form).' }),
    delivery: z
      .union([z.string(), z.array(z.string())], { error: 'must be a string or an array of strings' })
      .optional()
      .meta({ description: `As a signer's \`delivery\`: ${DELIVERIES.map((channel) => `"${channel}"`).join(', ')} or a list of them.` }),
  })
  .meta({ id: 'BulkRecipientInput', description: 'The person who takes one role of the template in this row.' });

export const bulkRowInput = z
  .strictObject({
    recipients: z.array(bulkRecipientInput, { error: 'must be an array' }).max(100, 'must hold at most 100 recipients').meta({ description: 'Exactly one recipient per role of the template, by `roleName`.' }),
    prefill: z
      .record(characters(1, MAX_PREFILL_KEY), z.unknown())
      .optional()
      .meta({ description: 'Prefilled values by the template fields\' `label` (case-insensitive); each value as the field\'s type takes it (`docs/api.md#field-types-and-their-values`).' }),
    metadata: z
      .record(characters(1, MAX_METADATA_KEY), characters(0, MAX_METADATA_VALUE), { error: 'must be an object of strings' })
      .refine((entries) => Object.keys(entries).length <= MAX_METADATA_ENTRIES, `must hold at most ${MAX_METADATA_ENTRIES} entries`)
      .optional()
      .meta({ description: `Strings the row's envelope carries as its \`metadata\`: at most ${MAX_METADATA_ENTRIES} entries, keys 1 to ${MAX_METADATA_KEY} characters, values at most ${MAX_METADATA_VALUE}.` }),
  })
  .meta({ id: 'BulkRowInput', description: 'One envelope of the job.' });
export type BulkRowInput = z.infer<typeof bulkRowInput>;

export const bulkJsonRequest = z
  .strictObject({
    rows: z.array(z.unknown(), { error: 'must be an array' }).min(1, 'must hold at least one row').meta({ description: 'The rows, each a `BulkRowInput`; at most `BULK_MAX_ROWS` (default 1000).' }),
    send: z.boolean({ error: 'must be true or false' }).default(true).meta({ description: '`true` (default): each envelope is sent as it is made; `false`: each stays `draft`.' }),
  })
  .meta({ description: 'A bulk send as JSON, its rows read one by one (`bulkRowInput`).' });

/** Query of `GET /api/bulk/{id}/rows`: the cursor of the previous page. */
export const bulkRowsQuery = z.strictObject({
  cursor: z.string().max(200).optional().meta({ description: 'The `nextCursor` of the previous page.' }),
});

/** Query of `GET /api/bulk`: `limit` and `cursor` as for envelopes. */
export const listBulkJobsQuery = z.strictObject({ limit: listEnvelopesQuery.shape.limit, cursor: listEnvelopesQuery.shape.cursor });
export type ListBulkJobsQuery = z.infer<typeof listBulkJobsQuery>;
