/**
 * Text messages the service sent during a test file, read from an SMS catcher of the file's own (the
 * local host's fake of Azure Communication Services' SMS API, `src/local/smsCatcher.ts`), which the
 * service reaches with the real `@azure/communication-sms` SDK through `ACS_CONNECTION_STRING`.
 * Helpers poll its API (`GET /api/messages`, `GET /api/attempts`); they never sleep a fixed time.
 *
 * ```ts
 * const sms = smsCatcherForFile();                     // before the file's service starts
 * const [text] = await waitForTexts(sms.url(), '+4915123456789');
 * const { token } = signingLinkInText(text.message);
 * ```
 */
import { afterAll, beforeAll } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { startSmsCatcher, type CaughtSms, type PostedEvent, type RunningSmsCatcher, type ScriptedAnswer, type SmsAttempt } from '../../src/local/smsCatcher.js';
import { patience, waitUntil } from './patience.js';
import { ownAzuriteForFile, startTestService, type TestService, type TestUser } from './service.js';

/**
 * Starts an SMS catcher in a `beforeAll` (call this before the file's other hooks) and points
 * `ACS_CONNECTION_STRING` and `SMS_FROM` at it, and sets `ACS_EVENT_SECRET`; stops it and gives the
 * settings back in an `afterAll`.
 * @returns `url()`: the catcher's address, once started; `eventSecret`: the secret of events
 */
export function smsCatcherForFile(from = 'Signing'): { url: () => string; eventSecret: string } {
  let catcher: RunningSmsCatcher | undefined;
  const saved = { ACS_CONNECTION_STRING: process.env.ACS_CONNECTION_STRING, SMS_FROM: process.env.SMS_FROM, ACS_EVENT_SECRET: process.env.ACS_EVENT_SECRET };
  // The secret Event Grid's events carry (docs/api.md#events-from-communication-services).
  const eventSecret = randomBytes(32).toString('base64url');
  beforeAll(async () => {
    catcher = await startSmsCatcher({ port: 0 });
    process.env.ACS_CONNECTION_STRING = catcher.connectionString;
    process.env.SMS_FROM = from;
    process.env.ACS_EVENT_SECRET = eventSecret;
  });
  afterAll(async () => {
    await catcher?.stop();
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  });
  return { url: () => catcher!.url, eventSecret };
}

/** The texts the catcher accepted for `to` (E.164), oldest first. */
export async function textsTo(catcherUrl: string, to: string): Promise<CaughtSms[]> {
  const all = (await (await fetch(`${catcherUrl}/api/messages`)).json()) as CaughtSms[];
  return all.filter((text) => text.to === to);
}

/** Every `POST /sms` that reached the catcher for `to`, oldest first (refused and held ones included). */
export async function attemptsTo(catcherUrl: string, to: string): Promise<SmsAttempt[]> {
  const all = (await (await fetch(`${catcherUrl}/api/attempts`)).json()) as SmsAttempt[];
  return all.filter((attempt) => attempt.to.includes(to));
}

/**
 * Waits until the catcher accepted `count` texts (default 1) for `to`.
 * @throws Error after `timeoutMs` (default 30 s, scaled by `patience`)
 */
export async function waitForTexts(catcherUrl: string, to: string, { count = 1, timeoutMs = 30_000 }: { count?: number; timeoutMs?: number } = {}): Promise<CaughtSms[]> {
  return await waitUntil(async () => {
    const texts = await textsTo(catcherUrl, to);
    return texts.length >= count ? texts : undefined;
  }, timeoutMs, `${count} text message(s) to ${to}`);
}

/** Makes the catcher answer its next `POST /sms` requests so, one each (`429`, `500`, time-outs). */
export async function scriptAnswers(catcherUrl: string, answers: ScriptedAnswer[]): Promise<void> {
  const response = await fetch(`${catcherUrl}/api/answers`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ answers }) });
  if (response.status !== 200) throw new Error(`the SMS catcher refused the answers: ${response.status} ${await response.text()}`);
}

/** The signing link of a text and its token (`<origin>/api/sign#<token>`). @throws Error when it holds none */
export function signingLinkInText(text: string): { url: string; token: string } {
  const match = /(\S+\/api\/sign#([A-Za-z0-9_-]+))/.exec(text);
  if (match === null) throw new Error(`no signing link in the text: ${text}`);
  return { url: match[1]!, token: match[2]! };
}

/** Points the catcher's events (Event Grid's side) at the service's `POST /api/events/acs`, with `aeg-sas-key: <secret>`. */
export async function sendEventsTo(catcherUrl: string, apiUrl: string, secret: string): Promise<void> {
  const response = await fetch(`${catcherUrl}/api/event-target`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ url: `${apiUrl}/events/acs`, secret }) });
  if (response.status !== 200) throw new Error(`the SMS catcher refused the event target: ${response.status} ${await response.text()}`);
}

/** Has the catcher post an event as Event Grid would (`replies`, `delivery-reports`, `validation`); resolves with the service's answer. */
export async function postEvent(catcherUrl: string, kind: 'replies' | 'delivery-reports' | 'validation', fields: Record<string, unknown> = {}): Promise<PostedEvent> {
  const response = await fetch(`${catcherUrl}/api/${kind}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(fields) });
  if (response.status !== 200) throw new Error(`the SMS catcher did not post the event: ${response.status} ${await response.text()}`);
  return (await response.json()) as PostedEvent;
}

let nextMobile = 0;
/**
 * A German mobile number (`+49 15x ...`, plan type MOBILE) no other call in this process returns: as a
 * client writes it, in E.164, and masked as the certificate prints it (docs/api.md#how-each-recipient-was-identified).
 * @param prefix the network prefix, `151` or `160`, so that files sharing a catcher never meet
 */
export function uniqueMobile(prefix: '151' | '160' = '151'): { written: string; e164: string; masked: string } {
  const digits = String(20_000_000 + Math.floor(Math.random() * 70_000_000) + nextMobile++).slice(0, 8);
  const e164 = `+49${prefix}${digits}`;
  return { written: `+49 ${prefix} ${digits}`, e164, masked: `+49 *** *** ${e164.slice(-4, -2)} ${e164.slice(-2)}` };
}

/**
 * What a text message test file runs against: an Azurite of its own (its `outbox-sms` queue is this
 * file's alone), an SMS catcher of its own ({@link smsCatcherForFile}), and the service with a failed
 * delivery back after 1 s instead of host.json's minute, and one owner named `ownerName`. Call before
 * the file's other hooks.
 * @returns the catcher, and `started()`: the service and the owner, once the file's `beforeAll` runs
 */
export function smsServiceForFile(ownerName: string): { sms: ReturnType<typeof smsCatcherForFile>; started: () => { env: TestService; owner: TestUser } } {
  const azurite = ownAzuriteForFile();
  const sms = smsCatcherForFile();
  let started: { env: TestService; owner: TestUser } | undefined;
  beforeAll(async () => {
    const env = await startTestService({ logHandler: () => undefined, queueSettings: { visibilityTimeoutSeconds: 1, minPollingIntervalMs: 25, maxPollingIntervalMs: 200 } });
    started = { env, owner: await env.newUser({ name: ownerName }) };
  }, patience(60_000));
  afterAll(async () => {
    await started?.env.close();
    await azurite.stop();
  });
  return {
    sms,
    started: () => {
      if (started === undefined) throw new Error('the SMS test service has not started: call smsServiceForFile before the file\'s own hooks');
      return started;
    },
  };
}
