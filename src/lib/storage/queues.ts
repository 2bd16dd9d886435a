/**
 * Azure Storage queues (docs/api.md#e-mail): outbox messages for the queue-triggered functions. E-mail, text
 * messages (docs/api.md#sms) and webhook events have queues of their own, so a failing e-mail never holds back a webhook. Each
 * webhook delivery attempt is a message of `webhook-deliveries`, so a slow receiver holds back
 * neither e-mail nor the fan-out of events. Each message of `bulk-jobs` names a bulk job to run
 * (docs/api.md#bulk-send). The Functions host moves a message that failed 5 times
 * to `<queue>-poison`.
 *
 * A module of its own, without the SDKs, because the queue functions name their queue when their
 * module loads (`src/functions`), and the storage clients load on first use.
 */
export const QUEUES = {
  email: 'outbox-email',
  sms: 'outbox-sms',
  events: 'outbox-events',
  webhookDeliveries: 'webhook-deliveries',
  bulkJobs: 'bulk-jobs',
} as const;

/** Dequeues after which the host moves a failing message to the poison queue (`host.json` `extensions.queues.maxDequeueCount`). */
export const MAX_DEQUEUE_COUNT = 5;
