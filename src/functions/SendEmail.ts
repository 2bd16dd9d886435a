/**
 * Queue trigger on `outbox-email` (docs/api.md#e-mail): each message points at one e-mail of an outbox
 * batch (`{ownerId, batchId, index}`, base64 JSON); `sendOutboxEmail` sends it. A throw makes the
 * host retry the message after `host.json`'s visibility timeout; after 5 dequeues it moves to
 * `outbox-email-poison`.
 *
 * Its handler, with all it needs, loads on the function's first invocation: `src/handlers/SendEmail.ts`.
 */
import { QUEUES } from '../lib/storage/queues.js';
import { queueFunction } from '../lib/triggers/register.js';

queueFunction('SendEmail', {
  queueName: QUEUES.email,
  loadHandler: async () => (await import('../handlers/SendEmail.js')).sendEmail,
});
