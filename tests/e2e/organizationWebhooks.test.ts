/**
 * Webhooks belong to the organisation (docs/api.md#webhooks, docs/api.md#what-members-share): an
 * admin's webhook receives the events of a sender's envelope, each naming the organisation and, where
 * a member acted, that member (`actor`), and none where a recipient acted; a sender cannot create,
 * list or delete webhooks; a webhook an account made before organisations (in its own partition, as
 * that code wrote it) becomes its organisation's on first use and keeps delivering, signed with the
 * same secret. The audit events of a member's envelope carry the organisation's id.
 *
 * Real HTTP, a real loopback receiver verifying every delivery with the `standardwebhooks` library,
 * and an Azurite of this file's own (its deliveries queue is consumed by this file's service only,
 * which allows loopback receivers).
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { uuidv7 } from '../../src/lib/ids.js';
import { WEBHOOK_EVENT_TYPES } from '../../src/lib/notifications/outbox.js';
import { encryptWebhookSecret, generateWebhookSecret, secretEncryptionKey } from '../../src/lib/notifications/webhooks/secrets.js';
import { webhookEventSchema } from '../../src/lib/openapi/webhooks.js';
import { getServices } from '../../src/lib/services.js';
import { accountWithoutOrganization, joinedMember, organizationIdOf } from '../support/organizations.js';
import { patience } from '../support/patience.js';
import { corpusPdf, createEnvelopeWithDocument, expectType, ownAzuriteForFile, startTestService, type TestService, type TestUser } from '../support/service.js';
import { rewriteStoredEnvelope, sentEnvelope, storedEnvelope } from '../support/signing.js';
import { waitForSigningLink } from '../support/mail.js';
import { startReceiver, type Receiver } from '../support/webhookReceiver.js';

const SETTINGS: Record<string, string> = { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', WEBHOOK_RETRY_SECONDS: '1,1' };
const saved = Object.fromEntries(Object.keys(SETTINGS).map((name) => [name, process.env[name]]));
const azurite = ownAzuriteForFile();
let env: TestService;
const receivers: Receiver[] = [];

beforeAll(async () => {
  Object.assign(process.env, SETTINGS);
  env = await startTestService({ logHandler: () => undefined, queueSettings: { minPollingIntervalMs: 25, maxPollingIntervalMs: 200 } });
}, patience(60_000));

afterAll(async () => {
  await env?.close();
  await Promise.all(receivers.map((receiver) => receiver.close()));
  await azurite.stop();
  for (const [name, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
});

interface Event {
  id: string;
  type: string;
  organizationId?: string;
  actor?: { userId: string; email: string };
  data: { envelopeId: string; recipient?: { email: string } };
}

async function receiver(): Promise<Receiver> {
  const started = await startReceiver({ kind: 'status', status: 204 });
  receivers.push(started);
  return started;
}

/** The receiver's requests, each verified with `secret` and parsed with the published event schema. */
function verified(from: Receiver, secret: string): Event[] {
  const verifier = new StandardWebhook(secret);
  return from.requests.map((request) => webhookEventSchema.parse(verifier.verify(request.body, request.headers as Record<string, string>)) as Event);
}

function oneSigner(): { email: string; name: string; role: string }[] {
  return [{ email: `signer-${randomUUID()}@example.com`, name: 'Ada Signer', role: 'signer' }];
}

describe('the organisation\'s webhooks', () => {
  test('an admin\'s webhook receives a sender\'s envelope events with organizationId, and actor where the sender acted', async () => {
    const owner = await env.newUser();
    const admin = await joinedMember(env.api, owner, 'admin');
    const sender = await joinedMember(env.api, owner, 'sender');
    const organizationId = await organizationIdOf(owner);
    const hooked = await receiver();
    const created = await env.api.request('POST', '/webhooks', { token: admin.token, json: { url: hooked.url, events: ['envelope.sent', 'recipient.declined'] } });
    expect(created.status).toBe(201);
    // The owner sees the admin's webhook: it is the organisation's.
    expect((await env.api.request('GET', '/webhooks', { token: owner.token })).body.map((webhook: { id: string }) => webhook.id)).toEqual([created.body.id]);

    const signers = oneSigner();
    const { id } = await sentEnvelope(env.api, sender, { signers });
    const { token } = await waitForSigningLink(signers[0]!.email);
    expect((await env.api.request('GET', '/signing', { token })).status).toBe(200);
    expect((await env.api.request('POST', '/signing/decline', { token, json: { reason: 'Not me' } })).status).toBe(200);

    await hooked.waitForRequests(2, 20_000);
    const events = verified(hooked, created.body.secret as string);
    const sent = events.find((event) => event.type === 'envelope.sent');
    const recipientDeclined = events.find((event) => event.type === 'recipient.declined');
    expect(sent).toMatchObject({ organizationId, actor: { userId: sender.userId, email: sender.email }, data: { envelopeId: id } });
    expect(recipientDeclined).toMatchObject({ organizationId, data: { envelopeId: id, recipient: { email: signers[0]!.email } } });
    // A recipient acted: no member is named.
    expect(recipientDeclined!.actor).toBeUndefined();
  }, patience(90_000));

  test('a sender cannot create, list or delete the organisation\'s webhooks', async () => {
    const owner = await env.newUser();
    const sender = await joinedMember(env.api, owner, 'sender');
    const hooked = await receiver();
    const created = await env.api.request('POST', '/webhooks', { token: owner.token, json: { url: hooked.url } });
    expect(created.status).toBe(201);
    expectType(await env.api.request('POST', '/webhooks', { token: sender.token, json: { url: hooked.url } }), 403, 'forbidden-role');
    expectType(await env.api.request('GET', '/webhooks', { token: sender.token }), 403, 'forbidden-role');
    expectType(await env.api.request('DELETE', `/webhooks/${created.body.id}`, { token: sender.token }), 403, 'forbidden-role');
    expect((await env.api.request('GET', '/webhooks', { token: owner.token })).body.map((webhook: { id: string }) => webhook.id)).toEqual([created.body.id]);
  }, patience(60_000));

  test('a webhook an account made before organisations becomes its organisation\'s and keeps delivering, with the same secret', async () => {
    const services = getServices();
    const legacy = await accountWithoutOrganization();
    const hooked = await receiver();
    // The webhook as the code before organisations stored it: in the account's own partition.
    const secret = generateWebhookSecret();
    const webhookId = uuidv7();
    await services.webhooks.create(
      {
        id: webhookId,
        ownerId: legacy.userId,
        url: hooked.url,
        events: [...WEBHOOK_EVENT_TYPES],
        description: 'made before organisations',
        createdAt: new Date().toISOString(),
        encryptedSecret: encryptWebhookSecret(secret, secretEncryptionKey(services.config.jwt.secret), { ownerId: legacy.userId, webhookId }),
      },
      10,
    );
    const loggedIn = await env.api.request('POST', '/Login', { json: { email: legacy.email, password: legacy.password } });
    expect(loggedIn.status).toBe(200);
    const user: TestUser = { email: legacy.email, password: legacy.password, userId: legacy.userId, token: loggedIn.body.token as string };

    // Its first request makes its organisation, and copies the webhook in.
    const listed = await env.api.request('GET', '/webhooks', { token: user.token });
    expect(listed.status).toBe(200);
    const organizationId = await organizationIdOf(user);
    expect(listed.body).toEqual([expect.objectContaining({ id: webhookId, url: hooked.url, description: 'made before organisations' })]);
    // An admin who joins later sees it too, and the organisation's limit counts it.
    const admin = await joinedMember(env.api, user, 'admin');
    expect((await env.api.request('GET', '/webhooks', { token: admin.token })).body.map((webhook: { id: string }) => webhook.id)).toEqual([webhookId]);

    const { id } = await sentEnvelope(env.api, user, { signers: oneSigner() });
    await hooked.waitForRequests(1, 20_000);
    const [sent] = verified(hooked, secret);
    expect(sent).toMatchObject({ type: 'envelope.sent', organizationId, actor: { userId: legacy.userId, email: legacy.email }, data: { envelopeId: id } });
    const deliveries = await env.api.request('GET', `/webhooks/${webhookId}/deliveries`, { token: admin.token });
    expect(deliveries.status).toBe(200);
    expect(deliveries.body[0]).toMatchObject({ eventId: sent!.id, outcome: 'succeeded' });

    // Deleted by the organisation, it is gone from the old partition too.
    expect((await env.api.request('DELETE', `/webhooks/${webhookId}`, { token: admin.token })).status).toBe(204);
    expect(await services.webhooks.read(legacy.userId, webhookId)).toBeNull();
    expect((await env.api.request('GET', '/webhooks', { token: user.token })).body).toEqual([]);
  }, patience(90_000));
});

describe('GET /api/envelopes/{id}/audit', () => {
  test('every event of a member\'s envelope carries the organisation\'s id', async () => {
    const owner = await env.newUser();
    const sender = await joinedMember(env.api, owner, 'sender');
    const organizationId = await organizationIdOf(owner);
    const { id } = await sentEnvelope(env.api, sender, { signers: oneSigner() });
    const audit = await env.api.request('GET', `/envelopes/${id}/audit`, { token: sender.token });
    expect(audit.status).toBe(200);
    expect(audit.body.length).toBeGreaterThan(1);
    for (const event of audit.body) expect(event.organizationId).toBe(organizationId);
  }, patience(60_000));

  test('an envelope made before organisations has its owner\'s organisation, recorded on it by its next change', async () => {
    const owner = await env.newUser();
    const organizationId = await organizationIdOf(owner);
    const id = await createEnvelopeWithDocument(env.api, owner, await corpusPdf('normal.pdf'));
    expect((await storedEnvelope(owner.userId, id)).organizationId).toBe(organizationId);
    // As the code before organisations stored it: no organisation on the envelope row.
    await rewriteStoredEnvelope(owner.userId, id, (record) => {
      record.organizationId = null;
    });
    expect((await storedEnvelope(owner.userId, id)).organizationId).toBeNull();
    const audit = await env.api.request('GET', `/envelopes/${id}/audit`, { token: owner.token });
    expect(audit.status).toBe(200);
    expect(audit.body.map((event: { organizationId: string }) => event.organizationId)).toEqual([organizationId]);
    expect((await env.api.request('PUT', `/envelopes/${id}`, { token: owner.token, json: { signers: oneSigner() } })).status).toBe(200);
    expect((await storedEnvelope(owner.userId, id)).organizationId).toBe(organizationId);
  }, patience(60_000));
});
