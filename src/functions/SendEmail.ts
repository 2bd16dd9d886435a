/**
 * Queue trigger on `outbox-email` (CONTRACT §12.1): each message points at one e-mail of an outbox
 * batch (`{ownerId, batchId, index}`, base64 JSON); `sendOutboxEmail` sends it. A throw makes the
 * host retry the message after `host.json`'s visibility timeout; after 5 dequeues it moves to
 * `outbox-email-poison`.
 */
import type { InvocationContext } from '@azure/functions';
import { parsePointer } from '../lib/notifications/outboxRepository.js';
import { sendOutboxEmail } from '../lib/notifications/sendEmail.js';
import { getEmailTransport } from '../lib/notifications/transport.js';
import { getServices } from '../lib/services.js';
import { QUEUES } from '../lib/storage/clients.js';
import { queueFunction } from '../lib/triggers/register.js';

export async function sendEmail(entry: unknown, context: InvocationContext): Promise<void> {
  const pointer = parsePointer(entry);
  // Nothing can be done with it; failing keeps it, in the poison queue, for an operator to see.
  if (pointer === null) throw new Error('The queue message is not an outbox pointer {ownerId, batchId, index}.');
  const transport = getEmailTransport();
  const result = await sendOutboxEmail({
    services: getServices(),
    transport,
    pointer,
    dequeueCount: Number(context.triggerMetadata?.dequeueCount ?? 1),
    invocationId: context.invocationId,
    log: (message) => context.log(message),
  });
  if (result === 'sent') context.debug(`E-mail ${pointer.batchId}.${pointer.index} accepted by ${transport.description}.`);
}

queueFunction('SendEmail', {
  queueName: QUEUES.email,
  handler: sendEmail,
});
