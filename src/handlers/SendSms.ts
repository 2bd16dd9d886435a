/**
 * The handler of `SendSms` (queue trigger on `outbox-sms`).
 * Registered in `src/functions/SendSms.ts`, which loads this module on the function's first invocation.
 */
import type { InvocationContext } from '@azure/functions';
import { parsePointer } from '../lib/notifications/outboxRepository.js';
import { sendOutboxSms } from '../lib/notifications/sendSms.js';
import { getSmsTransport } from '../lib/notifications/smsTransport.js';
import { getBackgroundServices } from '../lib/services.js';

export async function sendSms(entry: unknown, context: InvocationContext): Promise<void> {
  const pointer = parsePointer(entry);
  // Nothing can be done with it; failing keeps it, in the poison queue, for an operator to see.
  if (pointer === null) throw new Error('The queue message is not an outbox pointer {ownerId, batchId, index}.');
  const transport = getSmsTransport();
  const result = await sendOutboxSms({
    services: getBackgroundServices(),
    transport,
    pointer,
    dequeueCount: Number(context.triggerMetadata?.dequeueCount ?? 1),
    invocationId: context.invocationId,
    log: (message) => context.log(message),
  });
  if (result === 'sent') context.debug(`Text message ${pointer.batchId}.${pointer.index} accepted by ${transport.description}.`);
}
