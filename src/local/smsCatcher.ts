/**
 * A local SMS catcher: a fake of Azure Communication Services' SMS REST API on 127.0.0.1 that keeps
 * every text it accepts instead of sending it, with a web page listing them, as the mail catcher does
 * for e-mail (docs/api.md#sms). `npm start` runs one unless ACS_CONNECTION_STRING is set and points the
 * service's ACS_CONNECTION_STRING at it; tests run their own (`tests/support/sms.ts`).
 *
 * It speaks the API as `@azure/communication-sms` calls it:
 * - `POST /sms?api-version=<version>` with `{from, smsRecipients: [{to, repeatabilityRequestId?,
 *   repeatabilityFirstSent?}], message, smsSendOptions?}`, answered 202
 *   `{value: [{to, messageId, httpStatusCode, repeatabilityResult, successful}]}`;
 * - every request must carry Communication Services' HMAC-SHA256 signature made with the access key of
 *   {@link RunningSmsCatcher.connectionString}: `x-ms-date`, `x-ms-content-sha256` (base64 SHA-256 of
 *   the body) and `Authorization: HMAC-SHA256 SignedHeaders=x-ms-date;host;x-ms-content-sha256&Signature=<base64
 *   HMAC-SHA256 of "<VERB>\n<path and query>\n<x-ms-date>;<host>;<x-ms-content-sha256>">`; anything
 *   else is answered 401 as Communication Services does, with `{error: {code, message}}`;
 * - repeatable requests: a recipient whose `repeatabilityRequestId` was accepted before is answered
 *   with the same message id and `repeatabilityResult: "rejected"`, and not kept twice.
 *
 * Beside the API, for people and tests only (never part of Communication Services):
 * - `GET /` the page of the texts received, newest first;
 * - `GET /api/messages` the texts accepted, oldest first; `GET /api/attempts` every `POST /sms` that
 *   reached it (with the repeatability values and the status answered); `DELETE /api/messages` forgets both;
 * - `POST /api/answers` `{answers: [{status: 429|500|503, retryAfterSeconds?} | {timeout: true}]}`:
 *   the next `POST /sms` requests, one each, are answered so (or held unanswered until the client gives
 *   up) instead of being accepted, so tests can watch the service retry;
 * - Event Grid's side (docs/api.md#events-from-communication-services): `POST /api/event-target`
 *   `{url, secret?}` (or {@link RunningSmsCatcher.sendEventsTo}) names where events go (the service's
 *   `/api/events/acs`) and the `aeg-sas-key` they carry; then `POST /api/replies` `{from, message}`
 *   posts a `Microsoft.Communication.SMSReceived` (a reply such as STOP), `POST /api/delivery-reports`
 *   `{messageId, deliveryStatus?: "Delivered" | "Failed", details?}` a
 *   `Microsoft.Communication.SMSDeliveryReportReceived`, and `POST /api/validation` the subscription's
 *   validation handshake; each answers `{status, body}`, what the service answered. The page has
 *   buttons for the same (reply STOP or START, report a text delivered or failed).
 *
 * Texts are kept in memory, the newest {@link MAX_KEPT} of them.
 */
import { createHash, createHmac, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Most texts and attempts kept; the oldest go first. */
const MAX_KEPT = 1000;
/** Largest request body read, bytes. */
const MAX_BODY_BYTES = 1024 * 1024;
/** How far `x-ms-date` may be from the catcher's clock, milliseconds (Communication Services allows 15 minutes). */
const MAX_CLOCK_SKEW_MS = 15 * 60 * 1000;

/** One text the catcher accepted. */
export interface CaughtSms {
  messageId: string;
  from: string;
  to: string;
  message: string;
  /** The repeatability id it was sent with (`null` when none). */
  repeatabilityRequestId: string | null;
  repeatabilityFirstSent: string | null;
  enableDeliveryReport: boolean;
  tag: string | null;
  /** When it arrived, ISO 8601. */
  receivedAt: string;
}

/** One `POST /sms` that reached the catcher. */
export interface SmsAttempt {
  at: string;
  /** What it answered: 202, 401, 400, a scripted 429/5xx, or `null` when it held the request unanswered. */
  status: number | null;
  to: string[];
  repeatabilityRequestIds: (string | null)[];
  repeatabilityFirstSent: (string | null)[];
  /** The `Repeatability-Request-ID` header, when sent. */
  repeatabilityRequestIdHeader: string | null;
}

/** A scripted answer (`POST /api/answers`). */
export type ScriptedAnswer = { status: number; retryAfterSeconds?: number } | { timeout: true };

export interface SmsCatcherOptions {
  /** Port; 0 picks a free one. */
  port: number;
  /** The access key (base64) requests must be signed with; default 32 random bytes. */
  accessKey?: string;
}

export interface RunningSmsCatcher {
  /** `http://127.0.0.1:<port>`: the page, and the API's endpoint. */
  url: string;
  /** `endpoint=<url>/;accesskey=<key>`, for ACS_CONNECTION_STRING. */
  connectionString: string;
  /**
   * Where Event Grid's events go from now on: the service's `/api/events/acs`, and the secret sent
   * as `aeg-sas-key` (none: the URL carries `?code=`).
   */
  sendEventsTo(url: string, secret?: string): void;
  stop(): Promise<void>;
}

/** What the service answered to an event the catcher posted. */
export interface PostedEvent {
  status: number;
  body: unknown;
}

/**
 * Starts the catcher on 127.0.0.1 and resolves once it listens.
 * @throws Error when the port is taken (the message names it)
 */
export async function startSmsCatcher(options: SmsCatcherOptions): Promise<RunningSmsCatcher> {
  const accessKey = options.accessKey ?? randomBytes(32).toString('base64');
  const key = Buffer.from(accessKey, 'base64');
  const texts: CaughtSms[] = [];
  const attempts: SmsAttempt[] = [];
  const answers: ScriptedAnswer[] = [];
  const held = new Set<ServerResponse>();
  let eventTarget: { url: string; secret: string | undefined } | undefined;

  const keep = <T>(list: T[], item: T) => {
    list.push(item);
    if (list.length > MAX_KEPT) list.splice(0, list.length - MAX_KEPT);
  };

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      if (!response.headersSent) json(response, 500, { error: { code: 'InternalError', message: error instanceof Error ? error.message : String(error) } });
      else response.destroy();
    });
  });

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    const body = await readBody(request);
    if (request.method === 'POST' && url.pathname === '/sms') return send(request, response, url, body);
    if (request.method === 'GET' && url.pathname === '/') return page(response);
    if (request.method === 'GET' && url.pathname === '/api/messages') return json(response, 200, texts);
    if (request.method === 'GET' && url.pathname === '/api/attempts') return json(response, 200, attempts);
    if (request.method === 'DELETE' && url.pathname === '/api/messages') {
      texts.length = 0;
      attempts.length = 0;
      return json(response, 200, { deleted: true });
    }
    if (request.method === 'POST' && url.pathname === '/api/answers') return script(response, body);
    if (request.method === 'POST' && url.pathname === '/api/event-target') return target(response, body);
    if (request.method === 'POST' && (url.pathname === '/api/replies' || url.pathname === '/api/delivery-reports' || url.pathname === '/api/validation')) {
      const fields = jsonFields(body);
      if (fields === null) return json(response, 400, { error: { code: 'BadRequest', message: 'The body must be a JSON object.' } });
      return await postEvent(response, url.pathname, fields, false);
    }
    // The page's buttons: the same, from a form, then back to the page.
    if (request.method === 'POST' && (url.pathname === '/replies' || url.pathname === '/delivery-reports')) {
      return await postEvent(response, `/api${url.pathname}`, Object.fromEntries(new URLSearchParams(body.toString('utf8'))), true);
    }
    json(response, 404, { error: { code: 'NotFound', message: `No ${request.method} ${url.pathname} here.` } });
  }

  function send(request: IncomingMessage, response: ServerResponse, url: URL, body: Buffer): void {
    const refusal = signatureRefusal(request, url, body, key);
    if (refusal !== null) return json(response, 401, { error: { code: 'Denied', message: refusal } });
    let parsed: SendMessageRequest;
    try {
      parsed = parseSendRequest(JSON.parse(body.toString('utf8')));
    } catch (error) {
      return json(response, 400, { error: { code: 'BadRequest', message: error instanceof Error ? error.message : String(error) } });
    }
    if (!url.searchParams.has('api-version')) return json(response, 400, { error: { code: 'MissingApiVersionParameter', message: 'The api-version query parameter is required.' } });
    const attempt: SmsAttempt = {
      at: new Date().toISOString(),
      status: null,
      to: parsed.smsRecipients.map((recipient) => recipient.to),
      repeatabilityRequestIds: parsed.smsRecipients.map((recipient) => recipient.repeatabilityRequestId ?? null),
      repeatabilityFirstSent: parsed.smsRecipients.map((recipient) => recipient.repeatabilityFirstSent ?? null),
      repeatabilityRequestIdHeader: headerOf(request, 'repeatability-request-id'),
    };
    keep(attempts, attempt);
    const scripted = answers.shift();
    if (scripted !== undefined) {
      if ('timeout' in scripted) {
        // Held until the client gives up (or the catcher stops).
        held.add(response);
        response.on('close', () => held.delete(response));
        return;
      }
      attempt.status = scripted.status;
      if (scripted.retryAfterSeconds !== undefined) response.setHeader('Retry-After', String(scripted.retryAfterSeconds));
      return json(response, scripted.status, { error: { code: scripted.status === 429 ? 'TooManyRequests' : 'ServiceUnavailable', message: 'Answered so as the test asked (POST /api/answers).' } });
    }
    attempt.status = 202;
    const value = parsed.smsRecipients.map((recipient) => {
      const repeated = recipient.repeatabilityRequestId === undefined ? undefined : texts.find((text) => text.repeatabilityRequestId === recipient.repeatabilityRequestId);
      if (repeated !== undefined) return { to: recipient.to, messageId: repeated.messageId, httpStatusCode: 202, repeatabilityResult: 'rejected', successful: true };
      const text: CaughtSms = {
        messageId: `Outgoing_${randomUUID()}_noam`,
        from: parsed.from,
        to: recipient.to,
        message: parsed.message,
        repeatabilityRequestId: recipient.repeatabilityRequestId ?? null,
        repeatabilityFirstSent: recipient.repeatabilityFirstSent ?? null,
        enableDeliveryReport: parsed.smsSendOptions?.enableDeliveryReport === true,
        tag: parsed.smsSendOptions?.tag ?? null,
        receivedAt: attempt.at,
      };
      keep(texts, text);
      return { to: recipient.to, messageId: text.messageId, httpStatusCode: 202, repeatabilityResult: 'accepted', successful: true };
    });
    json(response, 202, { value });
  }

  function target(response: ServerResponse, body: Buffer): void {
    const fields = jsonFields(body);
    if (typeof fields?.url !== 'string' || !/^https?:\/\//.test(fields.url)) return json(response, 400, { error: { code: 'BadRequest', message: 'The body must be {url: "http(s)://...", secret?}.' } });
    eventTarget = { url: fields.url, secret: typeof fields.secret === 'string' ? fields.secret : undefined };
    json(response, 200, { url: eventTarget.url });
  }

  /** Posts one event as Event Grid would, and answers what the service answered (or, for the page, goes back to it). */
  async function postEvent(response: ServerResponse, path: string, fields: Record<string, unknown>, fromPage: boolean): Promise<void> {
    if (eventTarget === undefined) return json(response, 409, { error: { code: 'NoEventTarget', message: 'No event target yet: POST /api/event-target {url, secret?} first.' } });
    let event: Record<string, unknown>;
    try {
      event = eventFor(path, fields);
    } catch (error) {
      return json(response, 400, { error: { code: 'BadRequest', message: error instanceof Error ? error.message : String(error) } });
    }
    const answer = await fetch(eventTarget.url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'aeg-event-type': event.eventType === VALIDATION_EVENT ? 'SubscriptionValidation' : 'Notification', ...(eventTarget.secret === undefined ? {} : { 'aeg-sas-key': eventTarget.secret }) },
      body: JSON.stringify([event]),
    });
    const text = await answer.text();
    let answered: unknown = text;
    try {
      answered = JSON.parse(text);
    } catch {
      // Not JSON: kept as text.
    }
    if (fromPage) {
      response.writeHead(303, { Location: '/' });
      response.end();
      return;
    }
    json(response, 200, { status: answer.status, body: answered } satisfies PostedEvent);
  }

  /** The Event Grid event (Event Grid schema) for one of the endpoints above. @throws Error naming a missing field */
  function eventFor(path: string, fields: Record<string, unknown>): Record<string, unknown> {
    const now = new Date().toISOString();
    const base = { id: randomUUID(), topic: '/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/local/providers/Microsoft.Communication/communicationServices/sms-catcher', eventTime: now, dataVersion: '1.0', metadataVersion: '1' };
    if (path === '/api/validation') {
      return { ...base, subject: '', eventType: VALIDATION_EVENT, data: { validationCode: randomUUID(), validationUrl: `${eventTarget?.url ?? ''}&validation=1` } };
    }
    if (path === '/api/replies') {
      if (typeof fields.from !== 'string' || typeof fields.message !== 'string') throw new Error('A reply is {from, message, to?}.');
      const to = typeof fields.to === 'string' ? fields.to : (texts.find((text) => text.to === fields.from || text.to === `+${String(fields.from)}`)?.from ?? '+18005550100');
      return { ...base, subject: `phonenumber/${to.replace(/^\+/, '')}`, eventType: 'Microsoft.Communication.SMSReceived', data: { messageId: `Incoming_${randomUUID()}`, from: fields.from, to, message: fields.message, receivedTimestamp: now } };
    }
    if (typeof fields.messageId !== 'string') throw new Error('A delivery report is {messageId, deliveryStatus?, details?}.');
    const text = texts.find((candidate) => candidate.messageId === fields.messageId);
    const deliveryStatus = typeof fields.deliveryStatus === 'string' ? fields.deliveryStatus : 'Delivered';
    return {
      ...base,
      subject: `phonenumber/${(text?.from ?? '').replace(/^\+/, '')}`,
      eventType: 'Microsoft.Communication.SMSDeliveryReportReceived',
      data: {
        messageId: fields.messageId,
        from: text?.from ?? '',
        to: text?.to ?? '',
        deliveryStatus,
        deliveryStatusDetails: typeof fields.details === 'string' ? fields.details : deliveryStatus === 'Delivered' ? 'No error.' : 'The carrier could not deliver the message.',
        deliveryAttempts: [{ timestamp: now, segmentsSucceeded: deliveryStatus === 'Delivered' ? 1 : 0, segmentsFailed: deliveryStatus === 'Delivered' ? 0 : 1 }],
        receivedTimestamp: now,
        tag: text?.tag ?? null,
      },
    };
  }

  function script(response: ServerResponse, body: Buffer): void {
    let parsed: { answers?: unknown };
    try {
      parsed = JSON.parse(body.toString('utf8')) as { answers?: unknown };
    } catch {
      return json(response, 400, { error: { code: 'BadRequest', message: 'The body must be JSON {answers: [...]}.' } });
    }
    if (!Array.isArray(parsed.answers)) return json(response, 400, { error: { code: 'BadRequest', message: 'answers must be an array.' } });
    for (const answer of parsed.answers as Record<string, unknown>[]) {
      if (answer?.timeout === true) answers.push({ timeout: true });
      else if (typeof answer?.status === 'number' && answer.status >= 400 && answer.status <= 599) {
        answers.push({ status: answer.status, ...(typeof answer.retryAfterSeconds === 'number' ? { retryAfterSeconds: answer.retryAfterSeconds } : {}) });
      } else return json(response, 400, { error: { code: 'BadRequest', message: 'Each answer is {status: 400 to 599, retryAfterSeconds?} or {timeout: true}.' } });
    }
    json(response, 200, { pending: answers.length });
  }

  function page(response: ServerResponse): void {
    const rows = [...texts]
      .reverse()
      .map(
        (text) =>
          `<tr><td>${escape(text.receivedAt)}</td><td>${escape(text.from)}</td><td>${escape(text.to)}</td><td class="text">${escape(text.message)}</td><td>${
            eventTarget === undefined
              ? ''
              : `<form method="post" action="/replies"><input type="hidden" name="from" value="${escape(text.to)}"><input type="hidden" name="to" value="${escape(text.from)}"><button name="message" value="STOP">Reply STOP</button> <button name="message" value="START">Reply START</button></form><form method="post" action="/delivery-reports"><input type="hidden" name="messageId" value="${escape(text.messageId)}"><button name="deliveryStatus" value="Delivered">Report delivered</button> <button name="deliveryStatus" value="Failed">Report failed</button></form>`
          }</td></tr>`,
      )
      .join('\n');
    const html = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta http-equiv="refresh" content="5"><title>SMS catcher</title>
<style>body{font-family:system-ui,sans-serif;margin:2rem}table{border-collapse:collapse;width:100%}th,td{border:1px solid #ccc;padding:.4rem;text-align:start;vertical-align:top}.text{white-space:pre-wrap;word-break:break-all}</style></head>
<body><h1>SMS catcher</h1>
<p>Every text message the service sent through this fake of Azure Communication Services, newest first (${texts.length}). Nothing leaves this machine. The page reloads every 5 seconds.${eventTarget === undefined ? '' : ' The buttons post to the service what Event Grid would: a reply from the recipient, or a delivery report.'}</p>
<table><thead><tr><th>Received</th><th>From</th><th>To</th><th>Text</th><th>Events</th></tr></thead>
<tbody>
${rows || '<tr><td colspan="5">No text messages yet.</td></tr>'}
</tbody></table></body></html>`;
    response.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', 'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'" });
    response.end(html);
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', (error) => reject(new Error(`the SMS catcher could not listen on port ${options.port}: ${error.message}`)));
    server.listen(options.port, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    connectionString: `endpoint=${url}/;accesskey=${accessKey}`,
    sendEventsTo(target, secret) {
      eventTarget = { url: target, secret };
    },
    async stop() {
      for (const response of held) response.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Event Grid's handshake event type. */
const VALIDATION_EVENT = 'Microsoft.EventGrid.SubscriptionValidationEvent';

/** A JSON object body, or `null`. */
function jsonFields(body: Buffer): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(body.toString('utf8'));
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

interface SendMessageRequest {
  from: string;
  smsRecipients: { to: string; repeatabilityRequestId?: string; repeatabilityFirstSent?: string }[];
  message: string;
  smsSendOptions?: { enableDeliveryReport?: boolean; tag?: string };
}

/** The body of `POST /sms`, checked as Communication Services checks it. @throws Error naming what is wrong */
function parseSendRequest(value: unknown): SendMessageRequest {
  const body = value as Partial<SendMessageRequest> | null;
  if (body === null || typeof body !== 'object') throw new Error('The body must be a JSON object.');
  if (typeof body.from !== 'string' || body.from === '') throw new Error('from is required.');
  if (typeof body.message !== 'string' || body.message === '') throw new Error('message is required.');
  if (body.message.length > 2048) throw new Error('message must be at most 2048 characters.');
  if (!Array.isArray(body.smsRecipients) || body.smsRecipients.length === 0) throw new Error('smsRecipients must name at least one recipient.');
  for (const recipient of body.smsRecipients) {
    if (typeof recipient?.to !== 'string' || !/^\+?[1-9][0-9]{6,14}$/.test(recipient.to)) throw new Error('smsRecipients[].to must be a phone number in E.164.');
  }
  return body as SendMessageRequest;
}

/** Why the request's HMAC-SHA256 signature does not hold, or `null` when it does (see the module comment). */
function signatureRefusal(request: IncomingMessage, url: URL, body: Buffer, key: Buffer): string | null {
  const date = headerOf(request, 'x-ms-date');
  const contentHash = headerOf(request, 'x-ms-content-sha256');
  const authorization = headerOf(request, 'authorization');
  const host = headerOf(request, 'host');
  if (date === null || contentHash === null || authorization === null || host === null) return 'x-ms-date, x-ms-content-sha256, host and Authorization are required.';
  const when = Date.parse(date);
  if (Number.isNaN(when) || Math.abs(Date.now() - when) > MAX_CLOCK_SKEW_MS) return 'x-ms-date is missing, malformed or too far from now.';
  if (contentHash !== createHash('sha256').update(body).digest('base64')) return 'x-ms-content-sha256 is not the SHA-256 of the body.';
  const match = /^HMAC-SHA256 SignedHeaders=x-ms-date;host;x-ms-content-sha256&Signature=([A-Za-z0-9+/]+={0,2})$/.exec(authorization);
  if (match === null) return 'Authorization must be HMAC-SHA256 SignedHeaders=x-ms-date;host;x-ms-content-sha256&Signature=<base64>.';
  const query = url.searchParams.toString();
  const stringToSign = `${request.method}\n${url.pathname}${query === '' ? '' : `?${query}`}\n${date};${host};${contentHash}`;
  const expected = createHmac('sha256', key).update(stringToSign, 'utf8').digest();
  const given = Buffer.from(match[1]!, 'base64');
  return given.length === expected.length && timingSafeEqual(given, expected) ? null : 'The signature does not match (wrong access key, or the request was changed after signing).';
}

function headerOf(request: IncomingMessage, name: string): string | null {
  const value = request.headers[name];
  return typeof value === 'string' ? value : null;
}

async function readBody(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new Error('The body is too large.');
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

function json(response: ServerResponse, status: number, value: unknown): void {
  response.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8' });
  response.end(JSON.stringify(value));
}

function escape(text: string): string {
  return text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
}
