/**
 * Request bodies of the webhook endpoints (docs/api.md#webhooks), validated with zod at the boundary; the
 * OpenAPI document is generated from the same schemas.
 */
import { z } from 'zod';
import { text } from '../../text.js';
import { WEBHOOK_EVENT_TYPES } from '../outbox.js';
import { MAX_WEBHOOK_DESCRIPTION_LENGTH } from './model.js';
import { MAX_WEBHOOK_URL_LENGTH } from '../../outbound/target.js';

export const webhookEventType = z.enum(WEBHOOK_EVENT_TYPES).meta({ id: 'WebhookEventType', description: 'An event a webhook can receive.' });

/** `POST /api/webhooks`. Unknown fields are refused (docs/api.md#conventions). */
export const createWebhookRequest = z.strictObject({
  url: text(1, MAX_WEBHOOK_URL_LENGTH).meta({
    description:
      'Where deliveries are POSTed: an `https:` URL whose host resolves to public addresses only (checked now and again at every delivery). Without a user name or password.',
    examples: ['https://hooks.example.com/envelopes'],
  }),
  events: z
    .array(webhookEventType)
    .min(1)
    .max(WEBHOOK_EVENT_TYPES.length)
    .optional()
    .meta({ description: 'The events to receive; omitted means all of them. Duplicates count once.' }),
  description: text(0, MAX_WEBHOOK_DESCRIPTION_LENGTH)
    .nullable()
    .optional()
    .meta({ description: `A note for the owner, at most ${MAX_WEBHOOK_DESCRIPTION_LENGTH} characters without control characters, line or paragraph separators or unpaired surrogates; shown back, never sent to the receiver.` }),
});
export type CreateWebhookRequest = z.infer<typeof createWebhookRequest>;
