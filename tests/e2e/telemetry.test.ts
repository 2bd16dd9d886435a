/**
 * Telemetry over OTLP/HTTP (docs/api.md#telemetry), seen by a loopback collector
 * (`tests/support/otlpCollector.ts`, protobuf, the default): a whole envelope's life (register, log
 * in, an API key, a webhook, upload through a SAS URL, send, a one-time code by e-mail, sign, seal,
 * the e-mails and webhooks that follow, a seal that fails with a 503) must arrive as the spans,
 * metrics and log records the reference lists, and no exported value anywhere (span, metric or log
 * attribute, resource, log body, status message) may hold a token, key, password, SAS signature,
 * code or e-mail address: the collector's raw request bytes are searched as well as what it decoded.
 *
 * This file runs its own Azurite (its queues and sweeper are this file's service's only), and sets
 * the OTLP settings before its service starts: the SDK starts with the first invocation.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { flushTelemetry, stopTelemetry } from '../../src/lib/telemetry/index.js';
import { startAzurite, type RunningAzurite } from '../../src/local/azurite.js';
import { withSettings } from '../support/contract.js';
import { waitForEmails, waitForSigningLink } from '../support/mail.js';
import { startOtlpCollector, type CollectedMetric, type CollectedSpan, type OtlpCollector, type OtlpValue } from '../support/otlpCollector.js';
import { patience, waitUntil } from '../support/patience.js';
import { corpusPdf, putToSas, startTestService, type TestService, type TestUser } from '../support/service.js';
import { unusedLoopbackUrl } from '../support/timestampAuthority.js';
import { startReceiver, type Receiver } from '../support/webhookReceiver.js';

const SETTINGS: Record<string, string> = {
  // Short export intervals, so that the test waits little for what it looks for.
  OTEL_METRIC_EXPORT_INTERVAL: '500',
  OTEL_METRIC_EXPORT_TIMEOUT: '400',
  OTEL_BSP_SCHEDULE_DELAY: '100',
  OTEL_BLRP_SCHEDULE_DELAY: '100',
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
  WEBHOOK_RETRY_SECONDS: '1,1',
  SWEEP_SCHEDULE: '*/1 * * * * *',
};
const NAMES = ['STORAGE_CONNECTION_STRING', 'OTEL_EXPORTER_OTLP_ENDPOINT', 'APPLICATIONINSIGHTS_CONNECTION_STRING', ...Object.keys(SETTINGS)];
const saved = Object.fromEntries(NAMES.map((name) => [name, process.env[name]]));

let azurite: RunningAzurite;
let collector: OtlpCollector;
let env: TestService;
let receiver: Receiver;

beforeAll(async () => {
  azurite = await startAzurite();
  collector = await startOtlpCollector();
  delete process.env.APPLICATIONINSIGHTS_CONNECTION_STRING;
  Object.assign(process.env, { STORAGE_CONNECTION_STRING: azurite.connectionString, OTEL_EXPORTER_OTLP_ENDPOINT: collector.url, ...SETTINGS });
  env = await startTestService({ logHandler: () => undefined, queueSettings: { minPollingIntervalMs: 25, maxPollingIntervalMs: 200 } });
}, patience(60_000));

afterAll(async () => {
  await env?.close();
  // The SDK's export timers end with it.
  await stopTelemetry();
  await receiver?.close();
  await collector?.close();
  await azurite?.stop();
  for (const [name, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
});

/** Every secret the life below handles; none may be exported. */
const secrets = new Map<string, string>();
/** Every e-mail address it uses. */
const addresses: string[] = [];

const spansNamed = (name: string): CollectedSpan[] => collector.spans.filter((span) => span.name === name);
const metricNamed = (name: string): CollectedMetric[] => collector.metrics.filter((metric) => metric.name === name);
/** The newest exported value of a counter (cumulative) or a histogram's count, over the points whose attributes match. */
function latest(name: string, match: Record<string, OtlpValue> = {}, field: 'value' | 'count' = 'value'): number {
  const points = metricNamed(name).flatMap((metric) => metric.points).filter((point) => Object.entries(match).every(([key, value]) => point.attributes[key] === value));
  const last = points.at(-1);
  return last === undefined ? 0 : (field === 'count' ? (last.count ?? 0) : last.value);
}

describe('a whole envelope\'s life, exported over OTLP/HTTP with protobuf (docs/api.md#telemetry)', () => {
  let owner: TestUser;
  let envelopeId: string;
  let failedId: string;

  test('the life: register, an API key, a webhook, upload, send, a one-time code, sign and seal; a seal whose timestamp authority is down', async () => {
    owner = await env.newUser();
    secrets.set('password', owner.password);
    secrets.set('access token', owner.token);
    addresses.push(owner.email);

    const key = await env.api.request('POST', '/apikeys', { token: owner.token, json: { name: 'telemetry' } });
    expect(key.status).toBe(201);
    secrets.set('API key', key.body.key);
    expect((await env.api.request('GET', '/envelopes', { token: key.body.key })).status).toBe(200);

    // The first delivery fails (500), its retry succeeds: `webhook.failures` counts one.
    receiver = await startReceiver({ kind: 'sequence', statuses: [500, 204] });
    const webhook = await env.api.request('POST', '/webhooks', { token: owner.token, json: { url: receiver.url, events: ['envelope.completed'] } });
    expect(webhook.status).toBe(201);
    secrets.set('webhook secret', webhook.body.secret);
    secrets.set('webhook secret, base64', String(webhook.body.secret).replace(/^whsec_/, ''));

    const ticket = await env.api.request('POST', '/GetUploadUrl', { token: owner.token, json: { filename: 'contract.pdf', mimetype: 'application/pdf' } });
    expect(ticket.status).toBe(201);
    const signature = new URL(ticket.body.uploadUrl).searchParams.get('sig')!;
    expect(signature).toBeTruthy();
    secrets.set('SAS signature', signature);
    secrets.set('SAS signature, URL-encoded', encodeURIComponent(signature));
    envelopeId = ticket.body.envelopeId;
    expect((await putToSas(ticket.body.uploadUrl, await corpusPdf('normal.pdf'))).status).toBe(201);

    const signer = `telemetry-${randomUUID().slice(0, 8)}@example.com`;
    addresses.push(signer);
    const sent = await env.api.request('PUT', `/envelopes/${envelopeId}`, {
      token: owner.token,
      json: { status: 'sent', signers: [{ id: randomUUID(), email: signer, name: 'Tess Elemetry', authentication: { method: 'emailOtp' } }] },
    });
    expect(sent.status).toBe(200);

    const link = await waitForSigningLink(signer);
    secrets.set('signing token', link.token);
    expect((await env.api.request('POST', '/signing/otp', { token: link.token })).status).toBe(202);
    const [codeEmail] = await waitForEmails(signer, { subject: /^Your code for /, count: 1 });
    const code = /\b(\d{6})\b/.exec(codeEmail!.text)![1]!;
    secrets.set('one-time code', code);
    expect((await env.api.request('POST', '/signing/authenticate', { token: link.token, json: { code } })).status).toBe(200);
    const signed = await env.api.request('POST', '/signing/complete', { token: link.token, json: { consent: true } });
    expect(signed.status).toBe(200);
    expect(signed.body.envelope.status).toBe('completed');
    await receiver.waitForRequests(2, patience(20_000));

    // A draft completed while the timestamp authority is down: 503, a seal that failed.
    const draft = await env.api.request('POST', '/GetUploadUrl', { token: owner.token, json: { filename: 'draft.pdf', mimetype: 'application/pdf' } });
    failedId = draft.body.envelopeId;
    expect((await putToSas(draft.body.uploadUrl, await corpusPdf('normal.pdf'))).status).toBe(201);
    const second = `telemetry-${randomUUID().slice(0, 8)}@example.com`;
    addresses.push(second);
    expect((await env.api.request('PUT', `/envelopes/${failedId}`, { token: owner.token, json: { signers: [{ id: randomUUID(), email: second, name: 'Dora Draft' }] } })).status).toBe(200);
    const deadTsa = await unusedLoopbackUrl();
    await withSettings({ TSA_URL: deadTsa }, async () => {
      const refused = await env.api.request('POST', `/envelopes/${failedId}/complete`, { token: owner.token });
      expect(refused.status).toBe(503);
    });
  });

  test('each request is a server span named by its route\'s template, with method and status; a 5xx is an error and counted', async () => {
    const complete = await waitUntil(() => spansNamed('POST /api/signing/complete').find((span) => span.attributes['http.response.status_code'] === 200n), patience(20_000), 'the span of POST /api/signing/complete');
    expect(complete.kind).toBe(2);
    expect(complete.attributes).toMatchObject({ 'http.request.method': 'POST', 'http.route': '/api/signing/complete' });
    expect(complete.resource['service.name']).toBe('envelope-signing-service');

    const failed = await waitUntil(() => spansNamed('POST /api/envelopes/{id}/complete').find((span) => span.attributes['http.response.status_code'] === 503n), patience(20_000), 'the span of the 503');
    expect(failed.attributes).toMatchObject({ 'http.route': '/api/envelopes/{id}/complete', 'error.type': '503' });
    expect(failed.status.code).toBe(2);
    // Other routes, by template: the upload ticket, the envelope by id, the one-time code.
    for (const name of ['POST /api/GetUploadUrl', 'PUT /api/envelopes/{id}', 'POST /api/signing/otp', 'POST /api/signing/authenticate', 'POST /api/Register', 'POST /api/Login', 'GET /api/envelopes']) {
      expect([name, spansNamed(name).length > 0]).toEqual([name, true]);
    }
    await waitUntil(() => latest('http.server.errors', { 'http.route': '/api/envelopes/{id}/complete', 'http.response.status_code': 503n }) >= 1 || undefined, patience(20_000), 'http.server.errors');
  });

  test('the seal and its steps are spans of the request that sealed, and seal.duration records both outcomes', async () => {
    const complete = spansNamed('POST /api/signing/complete').find((span) => span.attributes['http.response.status_code'] === 200n)!;
    const seal = spansNamed('seal').find((span) => span.traceId === complete.traceId && span.attributes['envelope.id'] === envelopeId);
    expect(seal).toBeDefined();
    expect(seal!.status.code).not.toBe(2);
    for (const step of ['seal.read', 'seal.sign', 'seal.store']) {
      expect([step, spansNamed(step).some((span) => span.parentSpanId === seal!.spanId)]).toEqual([step, true]);
    }
    const failed = spansNamed('seal').find((span) => span.attributes['envelope.id'] === failedId);
    expect(failed?.status.code).toBe(2);
    expect(failed?.attributes['error.type']).toBe('urn:problem:timestamp-authority-unavailable');

    await waitUntil(() => (latest('seal.duration', { 'seal.outcome': 'sealed' }, 'count') >= 1 && latest('seal.duration', { 'seal.outcome': 'failed' }, 'count') >= 1) || undefined, patience(20_000), 'seal.duration');
    expect(metricNamed('seal.duration')[0]).toMatchObject({ type: 'histogram', unit: 's' });
  });

  test('storage calls are client spans naming the operation and the table, container or queue', async () => {
    const storage = collector.spans.filter((span) => typeof span.attributes['db.system.name'] === 'string');
    const has = (system: string, operation: string, collection: string) =>
      storage.some((span) => span.kind === 3 && span.attributes['db.system.name'] === system && span.attributes['db.operation.name'] === operation && span.attributes['db.collection.name'] === collection);
    expect(has('azure.storage.table', 'getEntity', 'envelopes')).toBe(true);
    expect(has('azure.storage.table', 'submitTransaction', 'envelopes')).toBe(true);
    expect(has('azure.storage.blob', 'upload', 'sealed')).toBe(true);
    expect(has('azure.storage.queue', 'sendMessage', 'outbox-email')).toBe(true);
    const getEntity = storage.find((span) => span.attributes['db.operation.name'] === 'getEntity')!;
    expect(getEntity.name).toBe(`getEntity ${getEntity.attributes['db.collection.name']}`);
    expect(typeof getEntity.attributes['http.response.status_code']).toBe('bigint');
  });

  test('e-mails, webhook deliveries, queue and timer invocations are spans; the metrics of sending, completing, failing webhooks and the outbox arrive', async () => {
    await waitUntil(() => spansNamed('webhook.deliver').length >= 2 || undefined, patience(20_000), 'two webhook.deliver spans');
    const deliveries = spansNamed('webhook.deliver');
    expect(deliveries.map((span) => span.attributes['http.response.status_code'])).toEqual(expect.arrayContaining([204n, 500n]));
    expect(deliveries.find((span) => span.attributes['http.response.status_code'] === 500n)!.attributes).toMatchObject({ 'webhook.event_type': 'envelope.completed', 'error.type': '500' });

    const types = ['invitation', 'otp', 'completed'];
    await waitUntil(() => types.every((type) => spansNamed('email.send').some((span) => span.attributes['notification.type'] === type)) || undefined, patience(30_000), 'the e-mails\' spans');
    const emails = spansNamed('email.send');
    expect(emails.every((span) => span.kind === 3 && span.status.code !== 2)).toBe(true);
    const invocation = await waitUntil(() => spansNamed('process outbox-email').find((span) => span.spanId === emails[0]!.parentSpanId), patience(20_000), 'the invocation of an e-mail\'s span');
    expect(invocation).toMatchObject({ kind: 5, attributes: { 'faas.trigger': 'pubsub', 'messaging.destination.name': 'outbox-email' } });
    expect(spansNamed('process webhook-deliveries').length).toBeGreaterThan(0);
    const sweep = await waitUntil(() => spansNamed('Sweep').find((span) => span.attributes['faas.trigger'] === 'timer'), patience(20_000), 'a Sweep span');
    expect(spansNamed('sweep.outbox').some((span) => span.traceId === sweep.traceId)).toBe(true);

    await waitUntil(() => (latest('envelopes.sent') >= 1 && latest('envelopes.completed') >= 1 && latest('webhook.failures') >= 1 && metricNamed('outbox.oldest_age').length > 0) || undefined, patience(20_000), 'the metrics');
    expect(metricNamed('envelopes.sent')[0]).toMatchObject({ type: 'sum' });
    expect(metricNamed('webhook.failures').flatMap((metric) => metric.points)[0]!.attributes).toMatchObject({ 'webhook.outcome': 'retrying', 'http.response.status_code': 500n });
    expect(metricNamed('outbox.oldest_age')[0]).toMatchObject({ type: 'gauge', unit: 's' });
    expect(metricNamed('outbox.oldest_age').flatMap((metric) => metric.points).every((point) => point.value >= 0)).toBe(true);
  });

  test('the service\'s log lines are log records, in the trace of the request that logged them', async () => {
    // The 503's problem is logged as a warning (src/lib/http/problem.ts).
    const failed = spansNamed('POST /api/envelopes/{id}/complete').find((span) => span.attributes['http.response.status_code'] === 503n)!;
    const record = await waitUntil(() => collector.logs.find((log) => log.traceId === failed.traceId && typeof log.body === 'string' && log.body.includes('timestamp')), patience(20_000), 'the 503\'s log record');
    expect(record.severityText).toBe('WARNING');
  });

  test('no exported value holds a token, key, password, SAS signature, code or e-mail address', async () => {
    // What is still buffered is exported first.
    await flushTelemetry();
    expect(secrets.size).toBeGreaterThanOrEqual(9);
    const strings = collector.strings();
    expect(strings.length).toBeGreaterThan(100);
    // The raw bytes of every request, whatever field a value sits in (protobuf keeps strings as UTF-8).
    const raw = collector.requests.map((request) => request.body.toString('latin1'));
    // The searches below find what is there: the envelope's id (not a secret) is, in both forms.
    expect(raw.some((body) => body.includes(envelopeId))).toBe(true);
    expect(strings).toContain(envelopeId);
    for (const [what, secret] of [...secrets, ...addresses.map((address): [string, string] => ['address', address])]) {
      // A short secret (the 6-digit code) only as a whole word: ids and hashes hold digit runs.
      const pattern = new RegExp(`(?<![0-9A-Za-z])${secret.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}(?![0-9A-Za-z])`);
      const found = (text: string) => (secret.length >= 12 ? text.includes(secret) : pattern.test(text));
      expect([what, strings.filter(found)]).toEqual([what, []]);
      expect([what, raw.some(found)]).toEqual([what, false]);
    }
    // Any address at all, any SAS signature, any credential in a header's form.
    expect(strings.filter((value) => /[^\s@<>"'(]+@[^\s@<>"')]+\.[A-Za-z]{2,}/.test(value))).toEqual([]);
    expect(strings.filter((value) => /\bsig=(?!\[redacted\])|\bBearer (?!\[redacted\])/.test(value))).toEqual([]);
  });
});
