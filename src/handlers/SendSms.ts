/**
 * The handler of `SendSms` (queue trigger on `outbox-sms`).
 * Registered in `src/functions/SendSms.ts`, which loads this module on the function's first invocation.
 */
import type { InvocationContext } from '@azure/functions';
import { queuedDelivery } from '../lib/notifications/outboxDelivery.js';
import { sendOutboxSms } from '../lib/notifications/sendSms.js';
import { getSmsTransport } from '../lib/notifications/smsTransport.js';
import { getBackgroundServices } from '../lib/services.js';

export async function sendSms(entry: unknown, context: InvocationContext): Promise<void> {
  const delivery = queuedDelivery(entry, context, getBackgroundServices());
  const transport = getSmsTransport();
  if ((await sendOutboxSms({ ...delivery, transport })) === 'sent') context.debug(`Text message ${delivery.pointer.batchId}.${delivery.pointer.index} accepted by ${transport.description}.`);
}
