/**
 * The handler of `SendEmail` (queue trigger on `outbox-email`).
 * Registered in `src/functions/SendEmail.ts`, which loads this module on the function's first invocation.
 */
import type { InvocationContext } from '@azure/functions';
import { queuedDelivery } from '../lib/notifications/outboxDelivery.js';
import { sendOutboxEmail } from '../lib/notifications/sendEmail.js';
import { getEmailTransport } from '../lib/notifications/transport.js';
import { getBackgroundServices } from '../lib/services.js';

export async function sendEmail(entry: unknown, context: InvocationContext): Promise<void> {
  const delivery = queuedDelivery(entry, context, getBackgroundServices());
  const transport = getEmailTransport();
  if ((await sendOutboxEmail({ ...delivery, transport })) === 'sent') context.debug(`E-mail ${delivery.pointer.batchId}.${delivery.pointer.index} accepted by ${transport.description}.`);
}
