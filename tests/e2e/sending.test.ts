/**
 * Sending and voiding (docs/api.md#lifecycle, docs/api.md#evidence, docs/api.md#sending-and-signing-order, docs/api.md#e-mail): the events of a send in their order, with
 * their actors; the invitations and webhook events written with the change (one outbox batch) and
 * dispatched after it; a send to 100 recipients in one transaction; voiding; closed envelopes.
 */
import { createHash } from 'node:crypto';
import { describe, expect, test } from '@jest/globals';
import type { EmailMessage, WebhookEventBody } from '../../src/lib/notifications/outbox.js';
import { tokenSha256 } from '../../src/lib/envelopes/signingLinks.js';
import { getServices } from '../../src/lib/services.js';
import { ISO_MS, UUID } from '../support/contract.js';
import { corpusPdf, createEnvelopeWithDocument, expectProblem, serviceForFile, type ApiResponse, type TestService, type TestUser } from '../support/service.js';
import { auditTrail, outboxBatches, outboxMessages, sentEnvelope, signingTokenFor, storedEnvelope } from '../support/signing.js';
import { ada, bob, cat } from '../support/people.js';

let env: TestService;
let owner: TestUser;
serviceForFile((started) => ({ env, owner } = started));

const get = (id: string): Promise<ApiResponse<any>> => env.api.request('GET', `/envelopes/${id}`, { token: owner.token });
const patch = (id: string, json: unknown): Promise<ApiResponse<any>> => env.api.request('PATCH', `/envelopes/${id}`, { token: owner.token, json });
const emails = (messages: Awaited<ReturnType<typeof outboxMessages>>): EmailMessage[] => messages.flatMap((message) => (message.kind === 'email' ? [message] : []));
const webhooks = (messages: Awaited<ReturnType<typeof outboxMessages>>): WebhookEventBody[] => messages.flatMap((message) => (message.kind === 'event' ? [message.event] : []));

describe('a send (docs/api.md#lifecycle, docs/api.md#evidence)', () => {
  test('one request with signers, fields, settings and status records signers_replaced, fields_replaced, settings_changed, envelope.sent, then recipient.invited per invited recipient', async () => {
    const headers = { 'User-Agent': 'sending-test/1.0' };
    const { id, envelope, recipientIds } = await sentEnvelope(env.api, owner, {
      signers: [ada, bob, cat],
      fields: [{ recipient: 0, type: 'signature', page: 2, x: 0.1, y: 0.8, width: 0.3, height: 0.1 }],
      signingOrder: 'parallel',
      headers,
    });
    // The default signing order is parallel: sending it again is no change of settings.
    const events = await auditTrail(env.api, owner, id);
    const owned = { actorId: owner.userId, actorEmail: owner.email, ip: expect.any(String), userAgent: 'sending-test/1.0', apiKeyId: null, organizationId: expect.stringMatching(UUID), at: envelope.sentAt };
    // Each event names the one before it (docs/api.md#chained-audit-trail).
    const chain = (index: number) => ({ prevHash: events[index - 1].hash, hash: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(events.slice(1)).toEqual([
      { sequence: 2, type: 'envelope.signers_replaced', ...owned, ...chain(1), details: { added: recipientIds.map((recipientId, index) => ({ id: recipientId, email: [ada, bob, cat][index]!.email })), removed: [] } },
      { sequence: 3, type: 'envelope.fields_replaced', ...owned, ...chain(2), details: { count: 1 } },
      { sequence: 4, type: 'envelope.sent', ...owned, ...chain(3), details: { documentSha256: envelope.documentSha256, uploadSha256: createHash('sha256').update(await corpusPdf('normal.pdf')).digest('hex'), pageCount: 2, removed: [] } },
      { sequence: 5, type: 'recipient.invited', ...owned, ...chain(4), details: { recipientId: recipientIds[0], email: ada.email, resend: false } },
      { sequence: 6, type: 'recipient.invited', ...owned, ...chain(5), details: { recipientId: recipientIds[1], email: bob.email, resend: false } },
    ]);
    expect(envelope.sentAt).toMatch(ISO_MS);

    const settings = await createEnvelopeWithDocument(env.api, owner, await corpusPdf('normal.pdf'));
    await patch(settings, { signers: [ada] });
    await patch(settings, { signingOrder: 'sequential', remindEveryDays: 2, status: 'sent' });
    expect((await auditTrail(env.api, owner, settings)).slice(2).map((event) => [event.type, event.details])).toEqual([
      ['envelope.settings_changed', { signingOrder: 'sequential', remindEveryDays: 2 }],
      ['envelope.sent', expect.any(Object)],
      ['recipient.invited', expect.any(Object)],
    ]);
  });

  test('writes one outbox batch with the change: an invitation with its link salt to each invited recipient, and the envelope.sent event; cc gets nothing yet', async () => {
    const { id, envelope, recipientIds } = await sentEnvelope(env.api, owner, { signers: [ada, bob, cat] });
    const batches = await outboxBatches(owner.userId, id);
    expect(batches).toHaveLength(1);
    const stored = await storedEnvelope(owner.userId, id);
    const common = { kind: 'email', type: 'invitation', envelopeId: id, documentName: 'contract.pdf', ownerEmail: owner.email, ownerName: null, expiresAt: envelope.expiresAt, reason: null, declinedBy: null, locale: 'en' };
    expect(emails(batches[0]!.messages)).toEqual([
      { ...common, recipientId: recipientIds[0], role: 'signer', to: { email: ada.email, name: ada.name }, linkSalt: stored.signers[0]!.link!.salt },
      { ...common, recipientId: recipientIds[1], role: 'approver', to: { email: bob.email, name: bob.name }, linkSalt: stored.signers[1]!.link!.salt },
    ]);
    expect(webhooks(batches[0]!.messages)).toEqual([
      { id: expect.any(String), type: 'envelope.sent', createdAt: envelope.sentAt, organizationId: expect.stringMatching(UUID), actor: { userId: owner.userId, email: owner.email }, data: { envelopeId: id, status: 'sent', documentSha256: envelope.documentSha256, uploadSha256: createHash('sha256').update(await corpusPdf('normal.pdf')).digest('hex') } },
    ]);
    expect(envelope.signers.map((signer: { status: string; lastEmail: unknown }) => [signer.status, signer.lastEmail])).toEqual([
      ['sent', { type: 'invitation', status: 'queued', at: envelope.sentAt }],
      ['sent', { type: 'invitation', status: 'queued', at: envelope.sentAt }],
      ['sent', null],
    ]);
    expect(stored.signers[2]!.link).toBeNull();
  });

  test('after the commit, the batch is dispatched and every new link resolves', async () => {
    const { id, recipientIds } = await sentEnvelope(env.api, owner, { signers: [ada, bob] });
    const [batch] = await outboxBatches(owner.userId, id);
    const stored = await getServices().outbox.read(owner.userId, batch!.id);
    expect(stored!.dispatchedAt).toMatch(ISO_MS);
    for (const [index, email] of [ada.email, bob.email].entries()) {
      const link = await getServices().signingLinks.find(tokenSha256(await signingTokenFor(owner.userId, id, email)));
      expect(link).toEqual({ tokenSha256: expect.any(String), ownerId: owner.userId, envelopeId: id, recipientId: recipientIds[index] });
    }
  });

  test('a send to 100 recipients: one transaction, 1 + 100 events, one batch of 100 invitations', async () => {
    const signers = Array.from({ length: 100 }, (_, index) => ({ email: `r${index}@example.com`, name: `Recipient ${index}`, role: index === 0 ? 'signer' : 'viewer' }));
    const { id, envelope } = await sentEnvelope(env.api, owner, { signers });
    expect(envelope.signers.every((signer: { status: string }) => signer.status === 'sent')).toBe(true);
    const events = await auditTrail(env.api, owner, id);
    expect(events.map((event) => event.sequence)).toEqual(events.map((_, index) => index + 1));
    expect(events.filter((event) => event.type === 'envelope.sent')).toHaveLength(1);
    expect(events.filter((event) => event.type === 'recipient.invited')).toHaveLength(100);
    const batches = await outboxBatches(owner.userId, id);
    expect(batches).toHaveLength(1);
    expect(emails(batches[0]!.messages)).toHaveLength(100);
  });

  test('the spec\'s draft complete is still there: nobody is invited, the document is sealed as it is', async () => {
    const id = await createEnvelopeWithDocument(env.api, owner, await corpusPdf('normal.pdf'));
    await patch(id, { signers: [ada, cat] });
    const completed = await env.api.request('POST', `/envelopes/${id}/complete`, { token: owner.token });
    expect(completed.status).toBe(200);
    const events = await auditTrail(env.api, owner, id);
    expect(events.map((event) => event.type)).toEqual(['envelope.created', 'envelope.signers_replaced', 'envelope.completed']);
    // Never sent: only the owner hears of the completion; no recipient gets an e-mail or a link.
    const completedMails = emails(await outboxMessages(owner.userId, id)).filter((message) => message.type === 'completed');
    expect(completedMails.map((message) => [message.to.email, message.linkSalt === null])).toEqual([[owner.email, true]]);
    expect((await storedEnvelope(owner.userId, id)).signers.map((signer) => [signer.link, signer.lastEmail])).toEqual([[null, null], [null, null]]);
  });
});

describe('voiding (docs/api.md#lifecycle, docs/api.md#e-mail)', () => {
  test('a sent envelope: voided e-mails to the recipients already invited, the envelope.voided event; links stop working for actions', async () => {
    const { id, recipientIds } = await sentEnvelope(env.api, owner, {
      signers: [{ ...ada, routingOrder: 1 }, { ...bob, routingOrder: 2 }, { ...cat, routingOrder: 1 }],
      signingOrder: 'sequential',
    });
    const raw = await signingTokenFor(owner.userId, id, ada.email);
    const voided = await patch(id, { status: 'voided' });
    expect(voided.status).toBe(200);
    expect(voided.body.status).toBe('voided');
    expect((await auditTrail(env.api, owner, id)).at(-1)).toMatchObject({ type: 'envelope.voided', actorId: owner.userId, actorEmail: owner.email, details: {} });
    const messages = await outboxMessages(owner.userId, id);
    expect(emails(messages).filter((message) => message.type === 'voided').map((message) => message.recipientId)).toEqual([recipientIds[0]]);
    expect(webhooks(messages).at(-1)).toMatchObject({ type: 'envelope.voided', data: { envelopeId: id, status: 'voided' } });
    expect(voided.body.signers[0].lastEmail).toMatchObject({ type: 'voided', status: 'queued' });
    const action = await env.api.request('POST', '/signing/complete', { token: raw, json: { consent: true } });
    expectProblem(action, 409);
    expect(action.body.type).toBe('urn:problem:envelope-closed');
    expect((await env.api.request('GET', '/signing', { token: raw })).body.envelope.status).toBe('voided');
  });

  test('a draft: no e-mail, the envelope.voided webhook event', async () => {
    const id = await createEnvelopeWithDocument(env.api, owner, await corpusPdf('normal.pdf'));
    await patch(id, { signers: [ada] });
    expect((await patch(id, { status: 'voided' })).status).toBe(200);
    const messages = await outboxMessages(owner.userId, id);
    expect(emails(messages)).toEqual([]);
    expect(webhooks(messages).map((event) => [event.type, event.data.status])).toEqual([['envelope.voided', 'voided']]);
  });
});

describe('closed envelopes and repeated statuses (docs/api.md#lifecycle)', () => {
  test('a declined envelope: any update or complete gets 409 envelope-closed naming its status', async () => {
    const { id } = await sentEnvelope(env.api, owner, { signers: [ada] });
    await env.api.request('POST', '/signing/decline', { token: await signingTokenFor(owner.userId, id, ada.email), json: { reason: 'No.' } });
    for (const answer of [await patch(id, { status: 'voided' }), await patch(id, { signers: [] }), await patch(id, { status: 'declined' }), await env.api.request('POST', `/envelopes/${id}/complete`, { token: owner.token })]) {
      expectProblem(answer, 409);
      expect(answer.body.type).toBe('urn:problem:envelope-closed');
      expect(answer.body.detail).toContain('declined');
    }
  });

  test('setting the status a sent envelope already has: 200, no event, no change', async () => {
    const { id } = await sentEnvelope(env.api, owner, { signers: [ada] });
    const before = await get(id);
    const events = await auditTrail(env.api, owner, id);
    const again = await patch(id, { status: 'sent' });
    expect(again.status).toBe(200);
    expect(again.headers.get('etag')).toBe(before.headers.get('etag'));
    expect(await auditTrail(env.api, owner, id)).toEqual(events);
    expect(await outboxBatches(owner.userId, id)).toHaveLength(1);
  });
});
