/**
 * Crash safety of completion (docs/api.md#what-completion-does step 5): what a crashed attempt leaves behind (a sealed blob
 * stored, the envelope not yet updated) is reused when it was made from the same envelope version and
 * replaced when the envelope changed since; a claim of another attempt from the same version holds
 * completions off for its short lease only, and its claimer is fenced off when it is taken over;
 * failures change nothing.
 */
import { createHash } from 'node:crypto';
import { describe, expect, test } from '@jest/globals';
import { SEAL_LEASE_MS } from '../../src/lib/envelopes/sealClaim.js';
import { getServices } from '../../src/lib/services.js';
import { EnvelopeChangedError } from '../../src/lib/storage/envelopeRepository.js';
import { corpusPdf, createEnvelopeWithDocument, expectProblem, putToSas, serviceForFile, type TestService, type TestUser } from '../support/service.js';
import { patience, waitUntil } from '../support/patience.js';

let env: TestService;
let user: TestUser;
serviceForFile((started) => ({ env, owner: user } = started));

async function draftWithSigner(): Promise<{ id: string; etag: string }> {
  const id = await createEnvelopeWithDocument(env.api, user, await corpusPdf('normal.pdf'));
  const updated = await env.api.request('PUT', `/envelopes/${id}`, { token: user.token, json: { signers: [{ email: 'a@example.com', name: 'A' }] } });
  return { id, etag: updated.headers.get('etag')! };
}

function sealedBlob(id: string) {
  return getServices().storage.containers.sealed.getBlockBlobClient(`${id}/contract.pdf`);
}

describe('completion after a crash', () => {
  test('reuses a sealed blob left by a crashed attempt on the same envelope version', async () => {
    const { id, etag } = await draftWithSigner();
    const leftOver = Buffer.from('%PDF-1.7 sealed by the attempt that crashed');
    const leftOverHash = createHash('sha256').update(leftOver).digest('hex');
    // Sealed from this version and from this very document (the attempt froze it before it crashed).
    const originalSha256 = createHash('sha256').update(await corpusPdf('normal.pdf')).digest('hex');
    // ... with the same audit trail, whose head it names (docs/api.md#chained-audit-trail).
    const auditHead = ((await env.api.request('GET', `/envelopes/${id}/audit`, { token: user.token })).body as { hash: string }[]).at(-1)!.hash;
    await sealedBlob(id).uploadData(leftOver, {
      metadata: { envelopeversion: etag.replaceAll('"', ''), sha256: leftOverHash, originalsha256: originalSha256, completedat: '2026-11-22T10:00:00.000Z', audithead: auditHead },
    });
    const completed = await env.api.request('POST', `/envelopes/${id}/complete`, { token: user.token });
    expect(completed.status).toBe(200);
    expect(completed.body.hash).toBe(leftOverHash);
    const envelope = await env.api.request('GET', `/envelopes/${id}`, { token: user.token });
    expect(envelope.body).toMatchObject({ status: 'completed', hash: leftOverHash, completedAt: '2026-11-22T10:00:00.000Z' });
    const completedEvent = ((await env.api.request('GET', `/envelopes/${id}/audit`, { token: user.token })).body as { type: string; details: unknown }[]).at(-1)!;
    expect(completedEvent).toMatchObject({ type: 'envelope.completed', details: { sealedSha256: leftOverHash, auditHead } });
  });

  test('does not reuse a blob of the same version sealed before the audit trail was chained (it names no head): replaces it once stale', async () => {
    const { id, etag } = await draftWithSigner();
    const originalSha256 = createHash('sha256').update(await corpusPdf('normal.pdf')).digest('hex');
    await sealedBlob(id).uploadData(Buffer.from('%PDF-1.7 sealed without audit.json'), {
      metadata: { envelopeversion: etag.replaceAll('"', ''), sha256: 'd'.repeat(64), originalsha256: originalSha256, completedat: '2026-11-22T10:00:00.000Z', storedat: String(Date.now() - SEAL_LEASE_MS - 1_000) },
    });
    const completed = await env.api.request('POST', `/envelopes/${id}/complete`, { token: user.token });
    expect(completed.status).toBe(200);
    expect(completed.body.hash).not.toBe('d'.repeat(64));
    const stored = await sealedBlob(id).downloadToBuffer();
    expect(createHash('sha256').update(stored).digest('hex')).toBe(completed.body.hash);
  });

  test('does not reuse a blob of the same version sealed from another document (the upload changed after the crash): replaces it once stale', async () => {
    const { id, etag } = await draftWithSigner();
    const staleAt = String(Date.now() - SEAL_LEASE_MS - 1_000);
    await sealedBlob(id).uploadData(Buffer.from('%PDF-1.7 sealed from other bytes'), {
      metadata: { envelopeversion: etag.replaceAll('"', ''), sha256: 'd'.repeat(64), originalsha256: 'e'.repeat(64), completedat: '2026-11-22T10:00:00.000Z', storedat: staleAt },
    });
    const completed = await env.api.request('POST', `/envelopes/${id}/complete`, { token: user.token });
    expect(completed.status).toBe(200);
    const stored = await sealedBlob(id).downloadToBuffer();
    expect(createHash('sha256').update(stored).digest('hex')).toBe(completed.body.hash);
    expect(completed.body.hash).not.toBe('d'.repeat(64));
  });

  test('replaces a sealed blob made from an older version (the signers changed after the crash)', async () => {
    const { id } = await draftWithSigner();
    await sealedBlob(id).uploadData(Buffer.from('stale'), { metadata: { envelopeversion: '1', sha256: 'b'.repeat(64), originalsha256: 'c'.repeat(64), completedat: '2026-11-22T10:00:00.000Z' } });
    const completed = await env.api.request('POST', `/envelopes/${id}/complete`, { token: user.token });
    expect(completed.status).toBe(200);
    const stored = await sealedBlob(id).downloadToBuffer();
    expect(createHash('sha256').update(stored).digest('hex')).toBe(completed.body.hash);
    expect(stored.subarray(0, 5).toString()).toBe('%PDF-');
  });
});

describe('a seal claim', () => {
  test("of another attempt from the same version holds completions off for its 10 s lease only, then is taken over", async () => {
    const { id, etag } = await draftWithSigner();
    const version = etag.replaceAll('"', '');
    // A recipient's request (its nonce) stored this blob and was killed before its commit.
    await sealedBlob(id).uploadData(Buffer.from('%PDF-1.7 sealed by a killed request'), {
      metadata: { envelopeversion: `${version}:killed-request`, sha256: 'f'.repeat(64), originalsha256: 'a'.repeat(64), completedat: '2026-11-22T10:00:00.000Z', storedat: String(Date.now()) },
    });
    const contended = await env.api.request('POST', `/envelopes/${id}/complete`, { token: user.token });
    expectProblem(contended, 409);
    expect(contended.body.type).toBe('urn:problem:envelope-contended');
    expect((await env.api.request('GET', `/envelopes/${id}`, { token: user.token })).body.status).toBe('draft');
    // Once the lease ran out (no renewal: its process is gone), the next completion takes the claim over.
    const completeAgain = async () => {
      const answer = await env.api.request('POST', `/envelopes/${id}/complete`, { token: user.token });
      return answer.status === 200 ? answer : undefined;
    };
    const completed = await waitUntil(completeAgain, SEAL_LEASE_MS + 20_000, 'a complete answered 200 once the lease has passed', { everyMs: 500 });
    expect(completed.status).toBe(200);
    const stored = await sealedBlob(id).downloadToBuffer();
    expect(createHash('sha256').update(stored).digest('hex')).toBe(completed.body.hash);
    expect(completed.body.hash).not.toBe('f'.repeat(64));
  }, patience(60_000));

  test('taken over fences the claimer off: an update from the envelope as it read it fails, while the fencing one succeeds', async () => {
    const { id } = await draftWithSigner();
    const services = getServices();
    const claimer = (await services.envelopes.read(user.userId, id))!;
    const taker = { record: claimer.record, etag: claimer.etag };
    await services.envelopes.fence(taker);
    expect(taker.etag).not.toBe(claimer.etag);
    await expect(services.envelopes.replace(claimer, { ...claimer.record, documentName: 'late.pdf' }, [])).rejects.toBeInstanceOf(EnvelopeChangedError);
    await services.envelopes.replace(taker, { ...taker.record, documentName: 'taker.pdf' }, []);
    expect((await services.envelopes.read(user.userId, id))!.record.documentName).toBe('taker.pdf');
    // A fence from a stale read fails too: someone changed the envelope since.
    await expect(services.envelopes.fence(claimer)).rejects.toBeInstanceOf(EnvelopeChangedError);
  });
});

describe('a failed completion changes nothing', () => {
  test('an encrypted document: 422, the envelope, its audit trail and the original stay as they were, and nothing is sealed', async () => {
    const original = await corpusPdf('encrypted_new.pdf');
    const id = await createEnvelopeWithDocument(env.api, user, original);
    await env.api.request('PUT', `/envelopes/${id}`, { token: user.token, json: { signers: [{ email: 'a@example.com', name: 'A' }] } });
    const before = await env.api.request('GET', `/envelopes/${id}`, { token: user.token });
    const auditBefore = await env.api.request('GET', `/envelopes/${id}/audit`, { token: user.token });

    const failed = await env.api.request('POST', `/envelopes/${id}/complete`, { token: user.token });
    expectProblem(failed, 422);

    const after = await env.api.request('GET', `/envelopes/${id}`, { token: user.token });
    // The read URLs (the envelope's and each document's) are signed anew on every answer; nothing else may differ.
    const unsigned = ({ documentUrl: _url, documents, ...fields }: Record<string, any>) => ({ ...fields, documents: documents.map(({ documentUrl: _documentUrl, ...document }: Record<string, unknown>) => document) });
    expect(unsigned(after.body)).toEqual(unsigned(before.body));
    expect(after.headers.get('etag')).toBe(before.headers.get('etag'));
    expect((await env.api.request('GET', `/envelopes/${id}/audit`, { token: user.token })).body).toEqual(auditBefore.body);
    expect(Buffer.from(await (await fetch(after.body.documentUrl)).arrayBuffer()).equals(original)).toBe(true);
    expect(await sealedBlob(id).exists()).toBe(false);

    // A retry after the document is fixed succeeds.
    const ticketUrl = (await getServices().storage.sas.blobUrl('documents', `${id}/contract.pdf`, { access: 'createWrite', expiresInSeconds: 60 }));
    expect((await putToSas(ticketUrl, await corpusPdf('normal.pdf'))).status).toBe(201);
    expect((await env.api.request('POST', `/envelopes/${id}/complete`, { token: user.token })).status).toBe(200);
  });
});
