/**
 * Webhooks seen from a real receiver (docs/api.md#webhooks, docs/api.md#the-sweeper): a loopback HTTP server that verifies
 * EVERY delivery with the `standardwebhooks` library, as any receiver would, and checks each body
 * against the event shape. It receives every event of a parallel and of a sequential envelope
 * (sent, opened, signed, approved, viewed, completed), of a decline, of a void (with its reason), and of an expiry
 * that the `Sweep` timer finds on its own; failed deliveries are retried (500, 500, then 200: the
 * deliveries log shows retrying, retrying, succeeded) and redelivered with the same `webhook-id`;
 * targets that are not allowed are refused at creation.
 *
 * This file runs its own Azurite. The suite's Azurite queues are consumed by every test process's
 * service, each with its own settings: there, a delivery to a loopback receiver could be attempted
 * by a process that refuses private addresses, after its own retry delays, and an expiry could wait
 * for another process's 5-minute sweep. Here the only consumer is this file's service, with
 * WEBHOOK_ALLOW_PRIVATE_NETWORKS=true (loopback receivers), WEBHOOK_RETRY_SECONDS=1,1 and a sweep
 * every second. E-mails still go to the suite's mail catcher, where the signing links are read.
 */
import { createHash, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { webhookEventSchema } from '../../src/lib/openapi/webhooks.js';
import { startAzurite, type RunningAzurite } from '../../src/local/azurite.js';
import { patience, waitUntil } from '../support/patience.js';
import { ISO_MS, UUID, withSettings } from '../support/contract.js';
import { waitForSigningLink } from '../support/mail.js';
import { corpusPdf, createEnvelopeWithDocument, expectProblem, startTestService, type ApiResponse, type TestService, type TestUser } from '../support/service.js';
import { sentEnvelope } from '../support/signing.js';
import { startReceiver, type ReceivedRequest, type Receiver, type ReceiverMode } from '../support/webhookReceiver.js';

const SETTINGS: Record<string, string> = {
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
  WEBHOOK_RETRY_SECONDS: '1,1',
  SWEEP_SCHEDULE: '*/1 * * * * *',
};
const saved = Object.fromEntries(['STORAGE_CONNECTION_STRING', ...Object.keys(SETTINGS)].map((name) => [name, process.env[name]]));

let azurite: RunningAzurite;
let env: TestService;
const receivers: Receiver[] = [];

beforeAll(async () => {
  azurite = await startAzurite();
  Object.assign(process.env, { STORAGE_CONNECTION_STRING: azurite.connectionString, ...SETTINGS });
  env = await startTestService({ logHandler: () => undefined, queueSettings: { minPollingIntervalMs: 25, maxPollingIntervalMs: 200 } });
});

afterAll(async () => {
  await env?.close();
  await Promise.all(receivers.map((receiver) => receiver.close()));
  await azurite?.stop();
  for (const [name, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
});

/** One event as the receiver verified and parsed it, with the request's headers. */
interface Delivered {
  event: { id: string; type: string; createdAt: string; data: { envelopeId: string; status: string; recipient?: { id: string; email: string; name: string; role: string; status: string }; hash?: string; reason?: string } };
  webhookId: string;
  request: ReceivedRequest;
}

interface Hook {
  owner: TestUser;
  receiver: Receiver;
  webhookId: string;
  secret: string;
  /** Every request received so far, each verified with the secret (throws for one that does not verify). */
  delivered(): Delivered[];
  /** Waits until `count` requests arrived, and returns them verified. */
  waitFor(count: number, timeoutMs?: number): Promise<Delivered[]>;
}

/** A new owner with one webhook to a new loopback receiver, for `events` (all when omitted). */
async function hook(mode: ReceiverMode = { kind: 'status', status: 204 }, events?: string[]): Promise<Hook> {
  const owner = await env.newUser();
  const receiver = await startReceiver(mode);
  receivers.push(receiver);
  const created = await env.api.request('POST', '/webhooks', { token: owner.token, json: { url: receiver.url, ...(events === undefined ? {} : { events }) } });
  expect(created.status).toBe(201);
  const { id: webhookId, secret } = created.body as { id: string; secret: string };
  const verifier = new StandardWebhook(secret);
  const verify = (request: ReceivedRequest): Delivered => {
    expect(request.method).toBe('POST');
    expect(request.headers['content-type']).toBe('application/json');
    // Throws when the signature, the id or the timestamp header is missing or wrong.
    const payload = verifier.verify(request.body, request.headers as Record<string, string>);
    const event = webhookEventSchema.parse(payload) as Delivered['event'];
    expect(request.headers['webhook-id']).toBe(event.id);
    expect(request.headers['webhook-timestamp']).toMatch(/^\d{10}$/);
    expect(event.id).toMatch(UUID);
    expect(event.createdAt).toMatch(ISO_MS);
    // Never a signed URL or a signing link (the schema allows no other field; tokens: see the tests).
    expect(request.body).not.toMatch(/sig=|\/api\/sign/);
    return { event, webhookId: String(request.headers['webhook-id']), request };
  };
  return {
    owner,
    receiver,
    webhookId,
    secret,
    delivered: () => receiver.requests.map(verify),
    waitFor: async (count, timeoutMs = 20_000) => (await receiver.waitForRequests(count, timeoutMs)).map(verify),
  };
}

/** The events of an envelope, by type and recipient e-mail, each once. */
function byKey(delivered: Delivered[]): Map<string, Delivered['event']> {
  const events = new Map<string, Delivered['event']>();
  for (const { event } of delivered) {
    const key = `${event.type} ${event.data.recipient?.email ?? ''}`.trim();
    expect([key, events.has(key)]).toEqual([key, false]);
    events.set(key, event);
  }
  return events;
}

async function envelopeOf(owner: TestUser, id: string): Promise<any> {
  return (await env.api.request('GET', `/envelopes/${id}`, { token: owner.token })).body;
}

/** Unique recipients (addresses no other test uses). */
function recipients(): { email: string; name: string; role: string; routingOrder: number }[] {
  const tag = randomUUID().slice(0, 8);
  return [
    { email: `ada-${tag}@example.com`, name: 'Ada Lovelace', role: 'signer', routingOrder: 1 },
    { email: `bob-${tag}@example.com`, name: 'Bob Approver', role: 'approver', routingOrder: 2 },
    { email: `cat-${tag}@example.com`, name: 'Cat Viewer', role: 'viewer', routingOrder: 3 },
    { email: `dan-${tag}@example.com`, name: 'Dan Copy', role: 'cc', routingOrder: 4 },
  ];
}

/** Every invitation's subject: "Please review and sign", "... and approve" or "Please review", by role. */
/**
 * What `envelope.sent` says of the document `sentEnvelope` sends (the corpus's normal.pdf, which has
 * nothing to clean, so frozen as uploaded): both SHA-256 are the upload's.
 */
async function sentHashes(): Promise<{ documentSha256: string; uploadSha256: string }> {
  const upload = createHash('sha256').update(await corpusPdf('normal.pdf')).digest('hex');
  return { documentSha256: upload, uploadSha256: upload };
}

const INVITATION = /^Please review(?: and (?:sign|approve))?: /;
const ACTED = { signer: 'signed', approver: 'approved', viewer: 'viewed' } as Record<string, string>;

describe('every event of an envelope reaches the receiver, signed (docs/api.md#webhooks)', () => {
  test.each(['parallel', 'sequential'] as const)('%s: envelope.sent, recipient.opened and each action, envelope.completed', async (signingOrder) => {
    const webhook = await hook();
    const people = recipients();
    const { id } = await sentEnvelope(env.api, webhook.owner, {
      signers: people,
      fields: [{ recipient: 0, type: 'signature', page: 1, x: 0.1, y: 0.8, width: 0.3, height: 0.08 }],
      signingOrder,
    });
    const tokens: string[] = [];
    for (const person of people.slice(0, 3)) {
      const { token } = await waitForSigningLink(person.email, { subject: INVITATION });
      tokens.push(token);
      const view = await env.api.request('GET', '/signing', { token });
      expect(view.status).toBe(200);
      const values = person.role === 'signer' ? [{ fieldId: view.body.fields[0].id, value: { typed: 'Ada L.' } }] : [];
      expect((await env.api.request('POST', '/signing/complete', { token, json: { consent: true, values } })).status).toBe(200);
    }
    const envelope = await envelopeOf(webhook.owner, id);
    expect(envelope.status).toBe('completed');

    const events = byKey(await webhook.waitFor(8));
    const recipientOf = (email: string) => {
      const signer = envelope.signers.find((candidate: { email: string }) => candidate.email === email);
      return { id: signer.id, email, name: signer.name, role: signer.role };
    };
    const expected = new Map<string, unknown>([['envelope.sent', { envelopeId: id, status: 'sent', ...(await sentHashes()) }]]);
    people.slice(0, 3).forEach((person, index) => {
      expected.set(`recipient.opened ${person.email}`, { envelopeId: id, status: 'sent', recipient: { ...recipientOf(person.email), status: 'opened' } });
      // The viewer acts last and completes the envelope: its event already says completed.
      expected.set(`recipient.${ACTED[person.role]} ${person.email}`, { envelopeId: id, status: index === 2 ? 'completed' : 'sent', recipient: { ...recipientOf(person.email), status: ACTED[person.role] } });
    });
    expected.set('envelope.completed', { envelopeId: id, status: 'completed', hash: envelope.hash });
    expect(new Map([...events].map(([key, event]) => [key, event.data]))).toEqual(expected);
    for (const [key, event] of events) expect([key, event.type]).toEqual([key, key.split(' ')[0]]);
    for (const { request } of webhook.delivered()) for (const token of tokens) expect(request.body).not.toContain(token);
    // Each event once: nothing more arrives for a while (the retries of a 2xx would come after 1 s).
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(webhook.delivered()).toHaveLength(8);
    const log = (await env.api.request('GET', `/webhooks/${webhook.webhookId}/deliveries`, { token: webhook.owner.token })).body as { outcome: string; attempt: number; responseStatus: number }[];
    expect(log).toHaveLength(8);
    for (const attempt of log) expect(attempt).toMatchObject({ outcome: 'succeeded', attempt: 1, responseStatus: 204 });
  }, patience(180_000));

  test('a decline: recipient.declined and envelope.declined, with the reason, the envelope already declined', async () => {
    const webhook = await hook();
    const [ada, bob] = recipients();
    const { id } = await sentEnvelope(env.api, webhook.owner, { signers: [ada!, bob!] });
    const { token } = await waitForSigningLink(bob!.email, { subject: INVITATION });
    expect((await env.api.request('GET', '/signing', { token })).status).toBe(200);
    expect((await env.api.request('POST', '/signing/decline', { token, json: { reason: 'The amount is wrong.' } })).status).toBe(200);
    const envelope = await envelopeOf(webhook.owner, id);
    const bobRecipient = envelope.signers.find((signer: { email: string }) => signer.email === bob!.email);
    const recipient = { id: bobRecipient.id, email: bob!.email, name: bob!.name, role: 'approver', status: 'declined' };
    const events = byKey(await webhook.waitFor(4));
    expect(new Map([...events].map(([key, event]) => [key, event.data]))).toEqual(
      new Map<string, unknown>([
        ['envelope.sent', { envelopeId: id, status: 'sent', ...(await sentHashes()) }],
        [`recipient.opened ${bob!.email}`, { envelopeId: id, status: 'sent', recipient: { ...recipient, status: 'opened' } }],
        [`recipient.declined ${bob!.email}`, { envelopeId: id, status: 'declined', recipient, reason: 'The amount is wrong.' }],
        [`envelope.declined ${bob!.email}`, { envelopeId: id, status: 'declined', recipient, reason: 'The amount is wrong.' }],
      ]),
    );
  }, patience(180_000));

  test('a void: envelope.voided', async () => {
    const webhook = await hook();
    const [ada] = recipients();
    const { id } = await sentEnvelope(env.api, webhook.owner, { signers: [ada!] });
    expect((await env.api.request('PATCH', `/envelopes/${id}`, { token: webhook.owner.token, json: { status: 'voided' } })).status).toBe(200);
    const events = byKey(await webhook.waitFor(2));
    expect(events.get('envelope.voided')?.data).toEqual({ envelopeId: id, status: 'voided' });
    expect(events.get('envelope.sent')?.data).toEqual({ envelopeId: id, status: 'sent', ...(await sentHashes()) });
  });

  test('a void with a reason: envelope.voided carries it as reason', async () => {
    const webhook = await hook(undefined, ['envelope.voided']);
    const [ada] = recipients();
    const { id } = await sentEnvelope(env.api, webhook.owner, { signers: [ada!] });
    const reason = 'The price changed; a new contract follows.';
    expect((await env.api.request('PATCH', `/envelopes/${id}`, { token: webhook.owner.token, json: { status: 'voided', voidedReason: reason } })).status).toBe(200);
    const [delivered] = await webhook.waitFor(1);
    expect(delivered!.event).toMatchObject({ type: 'envelope.voided', data: { envelopeId: id, status: 'voided', reason } });
  });

  test('an expiry found by the Sweep timer on its own: envelope.expired', async () => {
    const webhook = await hook();
    const [ada] = recipients();
    const { id } = await sentEnvelopeExpiringIn(webhook.owner, ada!, 3);
    const events = byKey(await webhook.waitFor(2, 20_000));
    expect(events.get('envelope.expired')?.data).toEqual({ envelopeId: id, status: 'expired' });
    expect((await envelopeOf(webhook.owner, id)).status).toBe('expired');
    expect(Date.parse(events.get('envelope.expired')!.createdAt)).toBeGreaterThanOrEqual(Date.parse((await envelopeOf(webhook.owner, id)).expiresAt));
  });
});

/** Sends an envelope to `signer` that expires `seconds` from now. */
async function sentEnvelopeExpiringIn(owner: TestUser, signer: Record<string, unknown>, seconds: number): Promise<{ id: string }> {
  const id = await createEnvelopeWithDocument(env.api, owner, await corpusPdf('normal.pdf'));
  const expiresAt = new Date(Date.now() + seconds * 1000).toISOString();
  const sent = await env.api.request('PUT', `/envelopes/${id}`, { token: owner.token, json: { signers: [signer], expiresAt, status: 'sent' } });
  expect(sent.status).toBe(200);
  return { id };
}

describe('delivery (docs/api.md#webhooks)', () => {
  test('a receiver answering 500 twice gets the same event again after each delay; the log shows retrying, retrying, succeeded', async () => {
    const webhook = await hook({ kind: 'sequence', statuses: [500, 500, 200] }, ['envelope.voided']);
    const [ada] = recipients();
    const { id } = await sentEnvelope(env.api, webhook.owner, { signers: [ada!] });
    expect((await env.api.request('PATCH', `/envelopes/${id}`, { token: webhook.owner.token, json: { status: 'voided' } })).status).toBe(200);
    const delivered = await webhook.waitFor(3, 20_000);
    expect(delivered.map(({ event }) => event.type)).toEqual(['envelope.voided', 'envelope.voided', 'envelope.voided']);
    expect(new Set(delivered.map(({ webhookId }) => webhookId)).size).toBe(1);
    expect(new Set(delivered.map(({ event }) => event.id)).size).toBe(1);
    // WEBHOOK_RETRY_SECONDS=1,1: each retry at least a second after the attempt before it.
    for (const index of [1, 2]) expect(delivered[index]!.request.at - delivered[index - 1]!.request.at).toBeGreaterThanOrEqual(900);
    const log = await waitUntil(async () => {
      const response = await env.api.request('GET', `/webhooks/${webhook.webhookId}/deliveries`, { token: webhook.owner.token });
      return response.body.length === 3 && response.body[0].outcome === 'succeeded' ? (response.body as any[]) : undefined;
    }, 10_000, 'the third attempt in the log');
    expect(log.map(({ attempt, outcome, responseStatus, eventType }) => ({ attempt, outcome, responseStatus, eventType }))).toEqual([
      { attempt: 3, outcome: 'succeeded', responseStatus: 200, eventType: 'envelope.voided' },
      { attempt: 2, outcome: 'retrying', responseStatus: 500, eventType: 'envelope.voided' },
      { attempt: 1, outcome: 'retrying', responseStatus: 500, eventType: 'envelope.voided' },
    ]);
    expect(new Set(log.map(({ eventId }) => eventId))).toEqual(new Set([delivered[0]!.event.id]));
    expect(log[0].nextAttemptAt).toBeNull();
    expect(log[1].nextAttemptAt).toEqual(expect.stringMatching(ISO_MS));

    // Redelivery: the same event, the same webhook-id, a new attempt in the log.
    const redelivered = await env.api.request('POST', `/webhooks/${webhook.webhookId}/deliveries/${log[0].id}/redeliver`, { token: webhook.owner.token });
    expect(redelivered.status).toBe(202);
    const fourth = (await webhook.waitFor(4))[3]!;
    expect(fourth.webhookId).toBe(delivered[0]!.webhookId);
    expect(fourth.request.body).toBe(delivered[0]!.request.body);
    const after = await waitUntil(async () => {
      const response = await env.api.request('GET', `/webhooks/${webhook.webhookId}/deliveries`, { token: webhook.owner.token });
      return response.body.length === 4 ? (response.body as any[]) : undefined;
    }, 10_000, 'the redelivery in the log');
    expect(after[0]).toMatchObject({ eventId: delivered[0]!.event.id, outcome: 'succeeded', responseStatus: 200 });
    expect(after[0].id).not.toBe(log[0].id);
  });

  test('refuses an http: or private target unless private networks are allowed (400, nothing created)', async () => {
    const owner = await env.newUser();
    const create = (url: string): Promise<ApiResponse<any>> => env.api.request('POST', '/webhooks', { token: owner.token, json: { url } });
    await withSettings({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: undefined }, async () => {
      for (const [url, reason] of [
        ['http://93.184.215.14/hook', 'must be an https: URL'],
        ['https://10.1.2.3/hook', 'private'],
        ['https://127.0.0.1:8443/hook', 'loopback'],
      ]) {
        const refused = await create(url!);
        expectProblem(refused, 400);
        expect(refused.body).toMatchObject({ type: 'urn:problem:invalid-webhook-url' });
        expect(refused.body.detail).toContain(reason);
      }
    });
    expect((await env.api.request('GET', '/webhooks', { token: owner.token })).body).toEqual([]);
    // The same loopback target is accepted with private networks allowed (this file's setting).
    expect((await create('http://127.0.0.1:9/hook')).status).toBe(201);
  });
});
