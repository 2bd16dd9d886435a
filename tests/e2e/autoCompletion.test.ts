/**
 * Automatic completion (docs/api.md#what-completion-does, docs/api.md#the-recipients-api): the last recipient who must act completes the envelope in
 * its own request, by the same seal as the owner's complete; what the completion tells people and the
 * owner's systems; two last actions at once; a seal that fails (timestamp authority down) leaves the
 * action recorded and is retried by the owner's complete or the sweeper.
 */
import { createHash } from 'node:crypto';
import { describe, expect, test } from '@jest/globals';
import { COMPLETION_DUE_KIND, retryCompletion } from '../../src/lib/envelopes/complete.js';
import { getServices } from '../../src/lib/services.js';
import { DUE_TABLES } from '../../src/lib/storage/dueIndex.js';
import { withSettings } from '../support/contract.js';
import { expectProblem, serviceForFile, type ApiResponse, type TestService, type TestUser } from '../support/service.js';
import { auditTrail, outboxBatches, sentEnvelope, signingTokenFor, storedEnvelope } from '../support/signing.js';
import { unusedLoopbackUrl } from '../support/timestampAuthority.js';
import { tempFile, tool } from '../support/tools.js';
import { ada, bea, cat } from '../support/people.js';

let env: TestService;
let owner: TestUser;
serviceForFile((started) => ({ env, owner } = started));

const get = (id: string): Promise<ApiResponse<any>> => env.api.request('GET', `/envelopes/${id}`, { token: owner.token });
const sign = async (id: string, email: string, json: unknown = { consent: true }, headers: Record<string, string> = {}): Promise<ApiResponse<any>> =>
  env.api.request('POST', '/signing/complete', { token: await signingTokenFor(owner.userId, id, email), json, headers });
const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

async function completionEntries(id: string): Promise<unknown[]> {
  const entries: unknown[] = [];
  for await (const entity of getServices().storage.tables[DUE_TABLES[COMPLETION_DUE_KIND]].listEntities<{ id: string }>({ queryOptions: { filter: `PartitionKey eq '${COMPLETION_DUE_KIND}'` } })) {
    if (entity.id === id) entries.push(entity);
  }
  return entries;
}

describe('the last action completes the envelope (docs/api.md#the-recipients-api)', () => {
  test('the answer shows completed and a signedUrl; the seal verifies; events, e-mails and webhook events follow', async () => {
    const { id, recipientIds } = await sentEnvelope(env.api, owner, { signers: [ada, bea, cat], fields: [{ recipient: 1, type: 'signature', page: 1, x: 0.5, y: 0.85, width: 0.4, height: 0.1 }] });
    await sign(id, ada.email);
    const fieldId = (await get(id)).body.fields[0].id;
    const last = await sign(id, bea.email, { consent: true, values: [{ fieldId, value: { typed: 'Bea' } }] }, { 'User-Agent': 'bea-agent/1.0' });
    expect(last.status).toBe(200);
    expect(last.body).toMatchObject({ envelope: { status: 'completed' }, recipient: { status: 'signed' }, signedUrl: expect.any(String), canAct: false });

    const envelope = (await get(id)).body;
    expect(envelope).toMatchObject({ status: 'completed', completedAt: expect.any(String), hash: expect.stringMatching(/^[0-9a-f]{64}$/) });
    const sealed = Buffer.from(await (await fetch(last.body.signedUrl)).arrayBuffer());
    expect(sha256(sealed)).toBe(envelope.hash);
    const file = await tempFile(sealed);
    expect((await tool('pdfsig', ['-nocert', file])).stdout).toContain('Signature is Valid.');
    expect((await env.api.request('GET', `/verify/${envelope.hash}`)).body).toEqual({ envelopeId: id, completedAt: envelope.completedAt, documentName: 'contract.pdf' });

    // The certificate tells every event as a sentence naming its actor by e-mail: the recipients' own
    // actions included, each with the consent it gave.
    const text = (await tool('pdftotext', [file, '-'])).stdout.replace(/\s/g, '');
    expect(text).toMatch(new RegExp(`${ada.email.replace(/[.]/g, '\\.')}signed,agreeingtodosoelectronically\\(disclosureesd-[0-9a-f]{12}\\)\\.`));
    expect(text).toMatch(new RegExp(`${bea.email.replace(/[.]/g, '\\.')}signed,agreeingtodosoelectronically\\(disclosureesd-[0-9a-f]{12}\\)\\.`));

    const events = await auditTrail(env.api, owner, id);
    expect(events.slice(-2).map((event) => [event.type, event.actorId, event.actorEmail, event.userAgent])).toEqual([
      ['recipient.signed', recipientIds[1], bea.email, 'bea-agent/1.0'],
      ['envelope.completed', recipientIds[1], bea.email, 'bea-agent/1.0'],
    ]);
    expect(events.at(-1).details).toEqual({ originalSha256: envelope.documentSha256, sealedSha256: envelope.hash, auditHead: events.at(-2).hash });

    const batch = (await outboxBatches(owner.userId, id)).at(-1)!;
    const stored = await storedEnvelope(owner.userId, id);
    const mails = batch.messages.flatMap((message) => (message.kind === 'email' ? [message] : []));
    expect(mails.map((message) => [message.type, message.to.email, message.linkSalt])).toEqual([
      ['completed', owner.email, null],
      ['completed', ada.email, stored.signers[0]!.link!.salt],
      ['completed', bea.email, stored.signers[1]!.link!.salt],
      ['completed', cat.email, stored.signers[2]!.link!.salt],
    ]);
    const events12 = batch.messages.flatMap((message) => (message.kind === 'event' ? [message.event] : []));
    expect(events12.map((event) => [event.type, event.data.status, event.data.hash ?? null, event.data.recipient?.status ?? null])).toEqual([
      ['recipient.signed', 'completed', null, 'signed'],
      ['envelope.completed', 'completed', envelope.hash, null],
    ]);
    expect(envelope.signers.map((signer: { lastEmail: { type: string } }) => signer.lastEmail.type)).toEqual(['completed', 'completed', 'completed']);
    // The cc's link (new with the completed e-mail) lets it download the sealed PDF.
    const ccView = await env.api.request('GET', '/signing', { token: await signingTokenFor(owner.userId, id, cat.email) });
    expect(sha256(Buffer.from(await (await fetch(ccView.body.signedUrl)).arrayBuffer()))).toBe(envelope.hash);

    // The owner's complete answers with the same seal.
    const again = await env.api.request('POST', `/envelopes/${id}/complete`, { token: owner.token });
    expect(again.body.hash).toBe(envelope.hash);
  });

  test('the last two signers acting at the same moment: both answered 200, one sealed document, both signed, one completion', async () => {
    for (let round = 0; round < 3; round++) {
      const { id } = await sentEnvelope(env.api, owner, { signers: [ada, bea] });
      const [first, second] = await Promise.all([sign(id, ada.email), sign(id, bea.email)]);
      expect([first!.status, second!.status]).toEqual([200, 200]);
      const envelope = (await get(id)).body;
      expect(envelope.status).toBe('completed');
      expect(envelope.signers.map((signer: { status: string }) => signer.status)).toEqual(['signed', 'signed']);
      expect([first!.body.envelope.status, second!.body.envelope.status]).toContain('completed');
      const events = await auditTrail(env.api, owner, id);
      expect(events.filter((event) => event.type === 'envelope.completed')).toHaveLength(1);
      expect(events.filter((event) => event.type === 'recipient.signed')).toHaveLength(2);
      const blobs: string[] = [];
      for await (const blob of getServices().storage.containers.sealed.listBlobsFlat({ prefix: `${id}/` })) blobs.push(blob.name);
      expect(blobs).toEqual([`${id}/contract.pdf`]);
      expect(sha256(await getServices().storage.containers.sealed.getBlockBlobClient(blobs[0]!).downloadToBuffer())).toBe(envelope.hash);
    }
  });
});

describe('a seal that fails after the last action (docs/api.md#the-recipients-api)', () => {
  test('the action stays recorded, the answer is 200 with the envelope sent, a completion entry waits in the due index; the owner\'s complete retries it', async () => {
    const { id } = await sentEnvelope(env.api, owner, { signers: [ada] });
    const deadTsa = await unusedLoopbackUrl();
    await withSettings({ TSA_URL: deadTsa }, async () => {
      const answer = await sign(id, ada.email);
      expect(answer.status).toBe(200);
      expect(answer.body).toMatchObject({ envelope: { status: 'sent' }, recipient: { status: 'signed' }, signedUrl: null, canAct: false });
      expect((await get(id)).body.signers[0].status).toBe('signed');
      expect(await completionEntries(id)).toHaveLength(1);
      // The owner's complete while the authority is still down: 503, nothing changes.
      const retry = await env.api.request('POST', `/envelopes/${id}/complete`, { token: owner.token });
      expectProblem(retry, 503);
      expect(retry.body.type).toBe('urn:problem:timestamp-authority-unavailable');
      expect((await get(id)).body.status).toBe('sent');
    });
    const completed = await env.api.request('POST', `/envelopes/${id}/complete`, { token: owner.token });
    expect(completed.status).toBe(200);
    const envelope = (await get(id)).body;
    expect(envelope).toMatchObject({ status: 'completed', hash: completed.body.hash });
    expect(await completionEntries(id)).toEqual([]);
    expect((await auditTrail(env.api, owner, id)).at(-1)).toMatchObject({ type: 'envelope.completed', actorId: owner.userId, actorEmail: owner.email });
    expect((await outboxBatches(owner.userId, id)).at(-1)!.messages.filter((message) => message.kind === 'email' && message.type === 'completed')).toHaveLength(2);
  });

  test('the sweeper\'s retry completes it as the system', async () => {
    const { id } = await sentEnvelope(env.api, owner, { signers: [ada] });
    await withSettings({ TSA_URL: await unusedLoopbackUrl() }, async () => {
      expect((await sign(id, ada.email)).body.envelope.status).toBe('sent');
    });
    expect(await retryCompletion({ services: getServices(), ownerId: owner.userId, envelopeId: id })).toBe(true);
    expect((await get(id)).body.status).toBe('completed');
    expect((await auditTrail(env.api, owner, id)).at(-1)).toMatchObject({ type: 'envelope.completed', actorId: 'system', actorEmail: null, ip: null, userAgent: null });
    expect(await completionEntries(id)).toEqual([]);
    // Again: nothing to do.
    expect(await retryCompletion({ services: getServices(), ownerId: owner.userId, envelopeId: id })).toBe(true);
    expect((await auditTrail(env.api, owner, id)).filter((event) => event.type === 'envelope.completed')).toHaveLength(1);
  });

  test('the owner\'s complete while someone has not acted: 409 recipients-pending naming them', async () => {
    const { id } = await sentEnvelope(env.api, owner, { signers: [ada, bea, cat] });
    await sign(id, ada.email);
    const answer = await env.api.request('POST', `/envelopes/${id}/complete`, { token: owner.token });
    expectProblem(answer, 409);
    expect(answer.body.type).toBe('urn:problem:recipients-pending');
    expect(answer.body.detail).toContain('Bea Signer <bea@example.com>');
    expect(answer.body.detail).not.toContain(ada.email);
    expect(answer.body.detail).not.toContain(cat.email);
  });
});
