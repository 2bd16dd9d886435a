/**
 * Fans one webhook event out to the webhooks of the envelope's organisation (docs/api.md#webhooks):
 * the work of one message of the `outbox-events` queue, an {@link OutboxPointer} to an `event`
 * message of an outbox batch. Every member's envelope events reach the organisation's webhooks.
 *
 * For each of the organisation's webhooks that subscribes to the event's type, one delivery row is created
 * (keyed by webhook and event id, so a retried fan-out creates no second delivery) and its first
 * attempt is queued on `webhook-deliveries`; each attempt is its own queue message, so a slow
 * receiver holds back neither the other webhooks nor e-mail. Then the outbox message is marked `sent`.
 *
 * Storage faults are thrown, so the queue trigger retries the message; on its last try
 * (`dequeueCount` ≥ `maxDequeueCount`) the outbox message is marked `failed` before the fault is
 * rethrown (the Functions host then moves the message to `outbox-events-poison`).
 */
import type { OutboxPointer } from '../outboxRepository.js';
import type { Services } from '../../services.js';
import type { WebhookEventBody } from '../outbox.js';
import { envelopeOrganization } from '../../organizations/envelopeOrganization.js';
import { enqueueDelivery } from './deliver.js';
import { organizationWebhooks } from './organizationWebhooks.js';
import type { DeliveryRecord } from './model.js';

export interface FanOutOptions {
  /** The queue message's dequeue count (`context.triggerMetadata.dequeueCount`); 1 on the first try. */
  dequeueCount?: number;
  /** Dequeues before the host gives up on a message (`host.json` `queues.maxDequeueCount`, default 5). */
  maxDequeueCount?: number;
  log?: (message: string) => void;
}

export type FanOutResult =
  | { kind: 'fanned-out'; eventId: string; webhookIds: string[] }
  | { kind: 'skipped'; reason: string };

/**
 * Processes one message of the `outbox-events` queue (see the module comment).
 * @param pointer the decoded queue message (`decodePointer` of the outbox, base64 JSON `{ownerId, batchId, index}`)
 * @throws storage errors (the queue retries the message)
 */
export async function fanOutEvent(services: Services, pointer: OutboxPointer, options: FanOutOptions = {}): Promise<FanOutResult> {
  try {
    return await fanOut(services, pointer);
  } catch (error) {
    if ((options.dequeueCount ?? 1) >= (options.maxDequeueCount ?? 5)) {
      try {
        await services.outbox.setState(pointer, 'failed');
      } catch (inner) {
        (options.log ?? console.warn)(`Could not mark outbox message ${pointer.batchId}/${pointer.index} failed: ${inner instanceof Error ? inner.message : String(inner)}`);
      }
    }
    throw error;
  }
}

async function fanOut(services: Services, pointer: OutboxPointer): Promise<FanOutResult> {
  const batch = await services.outbox.read(pointer.ownerId, pointer.batchId);
  if (batch === null) return { kind: 'skipped', reason: 'the outbox batch does not exist (its change failed)' };
  const message = batch.messages[pointer.index];
  if (message?.kind !== 'event') return { kind: 'skipped', reason: `message ${pointer.index} of the batch is not a webhook event` };
  if (batch.states[pointer.index] != null) return { kind: 'skipped', reason: `the event was already fanned out (${batch.states[pointer.index]})` };

  const event = await withOrganization(services, message.event, pointer.ownerId, batch.envelopeId);
  const webhooks = (await organizationWebhooks(services, event.organizationId!)).filter((webhook) => webhook.events.includes(event.type));
  const createdAt = new Date().toISOString();
  await Promise.all(
    webhooks.map(async (webhook) => {
      const record: DeliveryRecord = {
        webhookId: webhook.id,
        ownerId: webhook.ownerId,
        event,
        createdAt,
        autoAttempt: 0,
        recordedAutoAttempt: 0,
        attemptCount: 0,
        autoAttemptNumber: 0,
        claimedAt: null,
        status: 'pending',
        recentRedeliveries: [],
      };
      const existing = await services.webhookDeliveries.create(record);
      // An existing delivery whose first attempt was never claimed may have lost its queue message
      // (the fan-out died in between): queue it again; a duplicate message is harmless (claims).
      if (existing !== null && existing.record.autoAttempt > 0) return;
      await enqueueDelivery(services.storage.queues.webhookDeliveries, {
        kind: 'attempt',
        ownerId: webhook.ownerId,
        webhookId: webhook.id,
        eventId: event.id,
        attempt: 1,
        notBefore: createdAt,
      });
    }),
  );
  await services.outbox.setState(pointer, 'sent');
  return { kind: 'fanned-out', eventId: event.id, webhookIds: webhooks.map((webhook) => webhook.id) };
}

/**
 * The event with its organisation: as queued, or, for an event queued before organisations, the
 * organisation of its envelope (docs/api.md#events).
 */
async function withOrganization(services: Services, event: WebhookEventBody, ownerId: string, envelopeId: string): Promise<WebhookEventBody> {
  if (event.organizationId !== undefined && event.organizationId !== '') return event;
  const stored = await services.envelopes.read(ownerId, envelopeId);
  const organizationId = await envelopeOrganization(services, stored?.record ?? { ownerId, ownerEmail: null });
  // The key order of an event queued today: organisationId before `data`.
  const { data, ...head } = event;
  return { ...head, organizationId, data };
}

/**
 * Reads an `outbox-events` queue message: the base64 JSON text the outbox sends, its decoded text, or
 * the object the Functions host already parsed.
 * @throws Error when it is not an {@link OutboxPointer}
 */
export function decodeEventPointer(value: unknown): OutboxPointer {
  let parsed: unknown = value;
  if (typeof value === 'string') parsed = JSON.parse(value.trim().startsWith('{') ? value : Buffer.from(value, 'base64').toString('utf8'));
  const pointer = parsed as Partial<OutboxPointer> | null;
  if (pointer !== null && typeof pointer === 'object' && typeof pointer.ownerId === 'string' && typeof pointer.batchId === 'string' && Number.isInteger(pointer.index) && pointer.index! >= 0) {
    return { ownerId: pointer.ownerId, batchId: pointer.batchId, index: pointer.index! };
  }
  throw new Error('not an outbox pointer');
}
