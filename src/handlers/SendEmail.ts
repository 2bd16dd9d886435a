/**
 * The handler of `SendEmail` (queue trigger on `outbox-email`).
 * Registered in `src/functions/SendEmail.ts`, which loads this module on the function's first invocation.
 */
import type { InvocationContext } from '@azure/functions';
import { parsePointer } from '../lib/notifications/outboxRepository.js';
import { sendOutboxEmail } from '../lib/notifications/sendEmail.js';
import { getEmailTransport } from '../lib/notifications/transport.js';
import { getBackgroundServices } from '../lib/services.js';

export async function sendEmail(entry: unknown, context: InvocationContext): Promise<void> {
  const pointer = parsePointer(entry);
  // Nothing can be done with it; failing keeps it, in the poison queue, for an operator to see.
  if (pointer === null) throw new Error('The queue message is not an outbox pointer {ownerId, batchId, index}.');
  const transport = getEmailTransport();
  const result = await sendOutboxEmail({
    services: getBackgroundServices(),
    transport,
    pointer,
    dequeueCount: Number(context.triggerMetadata?.dequeueCount ?? 1),
    invocationId: context.invocationId,
    log: (message) => context.log(message),
  });
  if (result === 'sent') context.debug(`E-mail ${pointer.batchId}.${pointer.index} accepted by ${transport.description}.`);
}
