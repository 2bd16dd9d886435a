/**
 * Communication Services' events, as Event Grid delivers them to `POST /api/events/acs`
 * (docs/api.md#events-from-communication-services):
 *
 * - the caller proves it is the service's subscription with the shared secret `ACS_EVENT_SECRET`, in
 *   the `aeg-sas-key` header or the `code` query parameter, compared in constant time; without it, or
 *   without a secret set, nothing is read ({@link assertEventSecret});
 * - `Microsoft.EventGrid.SubscriptionValidationEvent`: the handshake of a new subscription, answered
 *   with `{validationResponse: <validationCode>}`;
 * - `Microsoft.Communication.SMSReceived`: a reply; STOP and its synonyms opt the sender's number out,
 *   START and its synonyms back in (`smsOptOut.ts`);
 * - `Microsoft.Communication.SMSDeliveryReportReceived`: a carrier's report, which sets the recipient's
 *   `lastSms` (`smsOptOut.ts`);
 * - any other event is accepted and ignored.
 *
 * Events come in the Event Grid schema (`eventType`, `data`), in an array; the CloudEvents 1.0 schema
 * (`type`, `data`) is read too.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { eventPhoneNumber } from '../phone.js';
import { problem } from '../problems.js';
import type { Services } from '../services.js';
import { deliveryStatus, recordDeliveryReport, recordOptOutInTrails, replyKeyword } from './smsOptOut.js';

/** The event types this endpoint acts on. */
export const ACS_EVENT_TYPES = {
  validation: 'Microsoft.EventGrid.SubscriptionValidationEvent',
  received: 'Microsoft.Communication.SMSReceived',
  deliveryReport: 'Microsoft.Communication.SMSDeliveryReportReceived',
} as const;

/** Most events read from one request (Event Grid batches fewer). */
export const MAX_EVENTS_PER_REQUEST = 5000;

/**
 * Checks the secret of an event request: `aeg-sas-key` or `?code=` equal to `ACS_EVENT_SECRET`, the
 * two compared as SHA-256 digests with `timingSafeEqual`, so the time taken tells nothing of the secret.
 * @throws AppError 401 `invalid-event-secret` when neither matches, or no secret is set
 */
export function assertEventSecret(secret: string | undefined, given: { header: string | null; code: string | null }): void {
  const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest();
  const expected = secret === undefined ? null : digest(secret);
  // Both candidates are compared whatever the first gave, so the time does not tell which one was sent.
  const matches = [given.header, given.code].map((candidate) => expected !== null && candidate !== null && timingSafeEqual(digest(candidate), expected));
  if (!matches.includes(true)) throw problem('invalidEventSecret');
}

/** One event as this endpoint reads it. */
interface IncomingEvent {
  type: string;
  data: Record<string, unknown>;
}

/**
 * The events of a request body: an array of Event Grid (or CloudEvents) events, or one event.
 * @throws AppError 400 `validation-failed` naming the first event that is not an object with a type
 */
export function readAcsEvents(body: unknown): IncomingEvent[] {
  const list = Array.isArray(body) ? body : [body];
  if (list.length > MAX_EVENTS_PER_REQUEST) {
    throw problem('validationFailed', { detail: `At most ${MAX_EVENTS_PER_REQUEST} events per request.`, errors: [{ path: '', message: `must hold at most ${MAX_EVENTS_PER_REQUEST} events` }] });
  }
  return list.map((event, index) => {
    const value = event as { eventType?: unknown; type?: unknown; data?: unknown } | null;
    const type = typeof value?.eventType === 'string' ? value.eventType : typeof value?.type === 'string' ? value.type : null;
    if (value === null || typeof value !== 'object' || type === null) {
      throw problem('validationFailed', { detail: 'Each event must be an object with an eventType.', errors: [{ path: Array.isArray(body) ? String(index) : '', message: 'must be an Event Grid event with eventType' }] });
    }
    const data = value.data !== null && typeof value.data === 'object' ? (value.data as Record<string, unknown>) : {};
    return { type, data };
  });
}

/** What the endpoint answers: the handshake's code, or how many events it read. */
export type AcsEventsAnswer = { validationResponse: string } | { received: number };

/**
 * Acts on the events of one request, in order (see the module comment).
 * @returns the handshake's answer when the request is a validation event, else the count of events
 */
export async function handleAcsEvents(services: Services, events: readonly IncomingEvent[], now: Date, log?: (message: string) => void): Promise<AcsEventsAnswer> {
  const validation = events.find((event) => event.type === ACS_EVENT_TYPES.validation);
  if (validation !== undefined) {
    const code = validation.data.validationCode;
    if (typeof code !== 'string' || code === '') {
      throw problem('validationFailed', { detail: 'The validation event carries no validationCode.', errors: [{ path: 'data.validationCode', message: 'is required' }] });
    }
    return { validationResponse: code };
  }
  for (const event of events) {
    if (event.type === ACS_EVENT_TYPES.received) await reply(services, event, now, log);
    else if (event.type === ACS_EVENT_TYPES.deliveryReport) await report(services, event, now);
  }
  return { received: events.length };
}

/** A reply: STOP opts the number out (and reaches the trails of the envelopes waiting on it), START back in. */
async function reply(services: Services, event: IncomingEvent, now: Date, log?: (message: string) => void): Promise<void> {
  const number = eventPhoneNumber(event.data.from);
  const wish = replyKeyword(event.data.message);
  if (number === null || wish === null) return;
  const optOut = await services.smsNumbers.setOptedOut(number, wish.wish === 'out', wish.keyword, now);
  if (optOut.optedOut) await recordOptOutInTrails(services, optOut, now, log);
}

/** A delivery report: the recipient's `lastSms`, when the text is known and the status final. */
async function report(services: Services, event: IncomingEvent, now: Date): Promise<void> {
  const { messageId } = event.data;
  const status = deliveryStatus(event.data.deliveryStatus);
  if (typeof messageId !== 'string' || messageId === '' || status === null) return;
  const reported = typeof event.data.receivedTimestamp === 'string' && !Number.isNaN(Date.parse(event.data.receivedTimestamp)) ? new Date(event.data.receivedTimestamp) : now;
  const details = event.data.deliveryStatusDetails;
  await recordDeliveryReport(services, { messageId, status, at: reported.toISOString(), ...(typeof details === 'string' ? { details } : {}) });
}
