/**
 * Queue trigger on `outbox-sms` (docs/api.md#sms): each message points at one text message of an
 * outbox batch (`{ownerId, batchId, index}`, base64 JSON); `sendOutboxSms` sends it. A throw makes the
 * host retry the message after `host.json`'s visibility timeout; after 5 dequeues it moves to
 * `outbox-sms-poison`.
 *
 * Its handler, with all it needs, loads on the function's first invocation: `src/handlers/SendSms.ts`.
 */
import { QUEUES } from '../lib/storage/queues.js';
import { queueFunction } from '../lib/triggers/register.js';

queueFunction('SendSms', {
  queueName: QUEUES.sms,
  loadHandler: async () => (await import('../handlers/SendSms.js')).sendSms,
});
