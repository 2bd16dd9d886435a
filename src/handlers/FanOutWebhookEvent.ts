/**
 * The handler of `FanOutWebhookEvent` (queue trigger on `outbox-events`).
 * Registered in `src/functions/FanOutWebhookEvent.ts`, which loads this module on the function's first invocation.
 */
import type { InvocationContext } from '@azure/functions';
import { decodeEventPointer, fanOutEvent } from '../lib/notifications/webhooks/fanOut.js';
import { getBackgroundServices } from '../lib/services.js';

export async function fanOutWebhookEvent(entry: unknown, context: InvocationContext): Promise<void> {
  const result = await fanOutEvent(getBackgroundServices(), decodeEventPointer(entry), {
    dequeueCount: Number(context.triggerMetadata?.dequeueCount ?? 1),
    log: (message) => context.log(message),
  });
  if (result.kind === 'fanned-out') context.debug(`Event ${result.eventId} queued for ${result.webhookIds.length} webhook(s).`);
}
