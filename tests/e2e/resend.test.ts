/**
 * Resend (docs/api.md#resend-an-invitation): `POST /api/envelopes/{id}/recipients/{recipientId}/resend` → 202 with a new
 * signing link (the old one refused from then on, for reading and acting) and a new invitation; 409 and
 * 404 where docs/api.md#resend-an-invitation says.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, test } from '@jest/globals';
import { ISO_MS } from '../support/contract.js';
import { corpusPdf, createEnvelopeWithDocument, expectProblem, expectType, serviceForFile, type ApiResponse, type TestService, type TestUser } from '../support/service.js';
import { auditTrail, outboxBatches, sentEnvelope, signingTokenFor, storedEnvelope } from '../support/signing.js';
import { ada, bob, cat } from '../support/people.js';

let env: TestService;
let owner: TestUser;
let stranger: TestUser;
serviceForFile(async (started) => {
  ({ env } = started);
  [owner, stranger] = await Promise.all([env.newUser(), env.newUser()]);
});

const resend = (id: string, recipientId: string, user: TestUser = owner): Promise<ApiResponse<any>> =>
  env.api.request('POST', `/envelopes/${id}/recipients/${recipientId}/resend`, { token: user.token });

describe('POST /api/envelopes/{id}/recipients/{recipientId}/resend (docs/api.md#resend-an-invitation)', () => {
  test('202: a new link, the old one refused for GET and actions, a new invitation, recipient.invited with resend true', async () => {
    const { id, recipientIds } = await sentEnvelope(env.api, owner, { signers: [ada, bob] });
    const old = await signingTokenFor(owner.userId, id, ada.email);
    expect((await env.api.request('GET', '/signing', { token: old })).body.recipient.status).toBe('opened');

    const answer = await resend(id, recipientIds[0]!);
    expect(answer.status).toBe(202);
    expect(answer.headers.get('etag')).toBe((await env.api.request('GET', `/envelopes/${id}`, { token: owner.token })).headers.get('etag'));
    expect(answer.body).toEqual({
      id: recipientIds[0], recipientId: recipientIds[0], email: ada.email, name: ada.name, role: 'signer', routingOrder: 1,
      status: 'opened', actedAt: null, declineReason: null, lastEmail: { type: 'invitation', status: 'queued', at: expect.stringMatching(ISO_MS) }, locale: null, delivery: ['email'], authentication: { method: 'none' },
    });

    const fresh = await signingTokenFor(owner.userId, id, ada.email);
    expect(fresh).not.toBe(old);
    for (const refused of [
      await env.api.request('GET', '/signing', { token: old }),
      await env.api.request('POST', '/signing/complete', { token: old, json: { consent: true } }),
      await env.api.request('POST', '/signing/decline', { token: old, json: { reason: 'x' } }),
    ]) {
      expectType(refused, 401, 'invalid-token');
      expect(refused.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');
    }
    expect((await env.api.request('GET', '/signing', { token: fresh })).status).toBe(200);

    const event = (await auditTrail(env.api, owner, id)).at(-1);
    expect(event).toMatchObject({ type: 'recipient.invited', actorId: owner.userId, actorEmail: owner.email, details: { recipientId: recipientIds[0], email: ada.email, resend: true } });
    const batch = (await outboxBatches(owner.userId, id)).at(-1)!;
    const stored = await storedEnvelope(owner.userId, id);
    expect(batch.messages).toEqual([expect.objectContaining({ kind: 'email', type: 'invitation', recipientId: recipientIds[0], linkSalt: stored.signers[0]!.link!.salt })]);
    expect((await env.api.request('POST', '/signing/complete', { token: fresh, json: { consent: true } })).status).toBe(200);
  });

  test('409 for a cc, a recipient who has acted, one who is waiting its turn', async () => {
    const { id, recipientIds } = await sentEnvelope(env.api, owner, {
      signers: [{ ...ada, routingOrder: 1 }, { ...bob, routingOrder: 2 }, { ...cat, routingOrder: 1 }, { ...ada, email: 'ann@example.com', name: 'Ann', routingOrder: 1 }],
      signingOrder: 'sequential',
    });
    await env.api.request('POST', '/signing/complete', { token: await signingTokenFor(owner.userId, id, ada.email), json: { consent: true } });
    const before = (await auditTrail(env.api, owner, id)).length;
    expectType(await resend(id, recipientIds[2]!), 409, 'recipient-is-cc');
    expectType(await resend(id, recipientIds[0]!), 409, 'already-acted');
    expectType(await resend(id, recipientIds[1]!), 409, 'not-your-turn');
    expect(await auditTrail(env.api, owner, id)).toHaveLength(before);
    expect((await resend(id, recipientIds[3]!)).status).toBe(202);
  });

  test('409 for an envelope that is not sent: a draft, a voided one, a completed one', async () => {
    const id = await createEnvelopeWithDocument(env.api, owner, await corpusPdf('normal.pdf'));
    const signers = (await env.api.request('PUT', `/envelopes/${id}`, { token: owner.token, json: { signers: [ada] } })).body.signers;
    expectType(await resend(id, signers[0].id), 409, 'envelope-not-sent');
    await env.api.request('PATCH', `/envelopes/${id}`, { token: owner.token, json: { status: 'voided' } });
    const voided = await resend(id, signers[0].id);
    expectType(voided, 409, 'envelope-closed');
    expect(voided.body.detail).toContain('voided');

    const done = await sentEnvelope(env.api, owner, { signers: [ada] });
    await env.api.request('POST', '/signing/complete', { token: await signingTokenFor(owner.userId, done.id, ada.email), json: { consent: true } });
    const completed = await resend(done.id, done.recipientIds[0]!);
    expectType(completed, 409, 'envelope-closed');
    expect(completed.body.detail).toContain('completed');
  });

  test('404 for another owner\'s envelope (the same as a missing one) and for an unknown recipient', async () => {
    const { id, recipientIds } = await sentEnvelope(env.api, owner, { signers: [ada] });
    const foreign = await resend(id, recipientIds[0]!, stranger);
    const missing = await resend(randomUUID(), recipientIds[0]!, stranger);
    expectType(foreign, 404, 'envelope-not-found');
    expect(foreign.text).toBe(missing.text);
    expectType(await resend(id, randomUUID()), 404, 'recipient-not-found');
    expectType(await resend(id, 'not-an-id'), 404, 'recipient-not-found');
  });

  test('a signing token is refused here: 401', async () => {
    const { id, recipientIds } = await sentEnvelope(env.api, owner, { signers: [ada] });
    const answer = await env.api.request('POST', `/envelopes/${id}/recipients/${recipientIds[0]}/resend`, { token: await signingTokenFor(owner.userId, id, ada.email) });
    expectProblem(answer, 401);
  });
});
