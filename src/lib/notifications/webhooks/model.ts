/**
 * Webhooks and their deliveries as the domain sees them (docs/api.md#webhooks), and the messages of the
 * `webhook-deliveries` queue.
 */
import type { WebhookEventBody, WebhookEventType } from '../outbox.js';

/** Most webhooks one organisation may have (docs/api.md#webhooks). */
export const MAX_WEBHOOKS_PER_ORGANIZATION = 10;
/** Attempts the deliveries log shows, newest first (docs/api.md#webhooks); older ones are pruned. */
export const DELIVERY_LOG_SIZE = 100;
/** Longest `description`, characters. */
export const MAX_WEBHOOK_DESCRIPTION_LENGTH = 500;

/** A webhook as stored. */
export interface Webhook {
  /** UUIDv7. */
  id: string;
  /**
   * Its partition in table `webhooks` (`webhookRepository.ts`): `org_<organizationId>`, or, for a
   * webhook made before organisations, the user id of the account that made it. Also what its
   * secret's encryption is bound to, and what its deliveries and queue messages name.
   */
  ownerId: string;
  /** Normalized absolute `https:` (or, where allowed, `http:`) URL. */
  url: string;
  /** The event types it receives, in the order of {@link WEBHOOK_EVENT_TYPES}. */
  events: WebhookEventType[];
  description: string | null;
  createdAt: string;
  /** The signing secret, encrypted (`secrets.ts`). */
  encryptedSecret: string;
  /** The partition of the webhook this one was copied from (docs/architecture.md#tables); `null` or absent: none. */
  migratedFrom?: string | null;
}

/** A webhook as responses show it: never its secret. */
export interface WebhookView {
  id: string;
  url: string;
  events: WebhookEventType[];
  description: string | null;
  createdAt: string;
}

/** 201 of `POST /api/webhooks`: the only answer that carries the secret. */
export interface CreatedWebhookView extends WebhookView {
  /** `whsec_` + base64 of 32 random bytes. */
  secret: string;
}

export const ATTEMPT_OUTCOMES = ['succeeded', 'failed', 'retrying'] as const;
/** `retrying`: this attempt failed and another is scheduled at `nextAttemptAt`; `failed`: it failed and none is. */
export type AttemptOutcome = (typeof ATTEMPT_OUTCOMES)[number];

/** One attempt of the deliveries log (docs/api.md#webhooks). */
export interface DeliveryAttemptView {
  /** UUIDv7 whose time is `at`; the `deliveryId` of the redeliver endpoint. */
  id: string;
  /** The event's id: the `webhook-id` header, the same on every attempt of the event. */
  eventId: string;
  eventType: WebhookEventType;
  /** 1 for the first attempt of this event at this webhook, then 2, 3, ... (redeliveries included). */
  attempt: number;
  /** When the attempt was made (the request sent), ISO 8601 UTC with milliseconds. */
  at: string;
  outcome: AttemptOutcome;
  /** The receiver's HTTP status, or `null` when no answer came (refused, unreachable, timed out). */
  responseStatus: number | null;
  /** What went wrong, in a sentence; `null` on success. */
  error: string | null;
  /** When the next attempt is due (`retrying` only), else `null`. */
  nextAttemptAt: string | null;
}

/** Where a delivery stands; internal. */
export type DeliveryStatus = 'pending' | 'retrying' | 'succeeded' | 'failed';

/** One event for one webhook, with the state of its automatic attempts. Internal. */
export interface DeliveryRecord {
  webhookId: string;
  ownerId: string;
  event: WebhookEventBody;
  createdAt: string;
  /** The last automatic attempt claimed (1-based), 0 before the first. */
  autoAttempt: number;
  /** Automatic attempt whose outcome is recorded, 0 before the first. */
  recordedAutoAttempt: number;
  /** Attempts claimed so far, automatic and redeliveries: the `attempt` number of the newest. */
  attemptCount: number;
  /** The `attempt` number given to the current automatic attempt. */
  autoAttemptNumber: number;
  /** When the current automatic attempt was claimed, or `null`. */
  claimedAt: string | null;
  status: DeliveryStatus;
  /** Ids of the newest redeliveries already made (so a duplicated queue message makes none twice). */
  recentRedeliveries: string[];
}

/**
 * A message of the `webhook-deliveries` queue (base64 of its JSON, as the Functions host's queue
 * trigger reads it): one attempt to make.
 * - `attempt`: the `attempt`-th automatic attempt of the event at the webhook, due at `notBefore`
 *   (ISO 8601; a message that arrives early waits again, so delays longer than the queue's 7-day
 *   visibility limit work).
 * - `redelivery`: a redelivery the owner asked for; one attempt, no automatic retries.
 */
export type DeliveryMessage =
  | { kind: 'attempt'; ownerId: string; webhookId: string; eventId: string; attempt: number; notBefore: string }
  | { kind: 'redelivery'; ownerId: string; webhookId: string; eventId: string; redeliveryId: string };

/** Queue message text: base64 of the JSON, the encoding the Functions host's queue trigger expects. */
export function encodeDeliveryMessage(message: DeliveryMessage): string {
  return Buffer.from(JSON.stringify(message), 'utf8').toString('base64');
}

/**
 * Reads a queue message (the base64 text, or the object the Functions host already decoded).
 * @throws Error when it is not a {@link DeliveryMessage}
 */
export function decodeDeliveryMessage(value: unknown): DeliveryMessage {
  let parsed: unknown = value;
  if (typeof value === 'string') {
    const text = value.trim().startsWith('{') ? value : Buffer.from(value, 'base64').toString('utf8');
    parsed = JSON.parse(text);
  }
  const message = parsed as Partial<Record<string, unknown>> | null;
  const text = (key: string) => typeof message?.[key] === 'string' && message[key] !== '';
  if (message !== null && typeof message === 'object' && text('ownerId') && text('webhookId') && text('eventId')) {
    if (message.kind === 'attempt' && Number.isInteger(message.attempt) && (message.attempt as number) >= 1 && text('notBefore')) return message as DeliveryMessage;
    if (message.kind === 'redelivery' && text('redeliveryId')) return message as DeliveryMessage;
  }
  throw new Error('not a webhook delivery message');
}
