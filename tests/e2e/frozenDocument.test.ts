/**
 * The frozen document (docs/api.md#create-an-envelope-and-upload-its-document): when an envelope leaves `draft` the upload is copied to
 * `originals`, its SHA-256 and page count recorded, and from then on everything reads that copy. A
 * later PUT to the upload URL (a SAS cannot be revoked) changes nothing the envelope serves or seals.
 * Also the crash safety of the copy: what a crashed send leaves behind is reused or replaced, never
 * trusted blindly.
 */
import { createHash } from 'node:crypto';
import { describe, expect, test } from '@jest/globals';
import { getServices } from '../../src/lib/services.js';
import { corpusPdf, expectProblem, fetchAnswer, putToSas, serviceForFile, type ApiResponse, type TestService, type TestUser } from '../support/service.js';
import { signingTokenFor } from '../support/signing.js';
import { tempFile, tool } from '../support/tools.js';

let env: TestService;
let owner: TestUser;
let original: Buffer;
let other: Buffer;

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

serviceForFile(async (started) => {
  ({ env, owner } = started);
  original = await corpusPdf('normal.pdf');
  other = await corpusPdf('us_constitution.pdf');
});

async function draftWithUpload(bytes: Uint8Array, signers: unknown[] = [{ email: 'ada@example.com', name: 'Ada Lovelace' }]): Promise<{ id: string; uploadUrl: string }> {
  const ticket = await env.api.request('POST', '/GetUploadUrl', { token: owner.token, json: { filename: 'contract.pdf', mimetype: 'application/pdf' } });
  expect((await putToSas(ticket.body.uploadUrl, bytes)).status).toBe(201);
  expect((await env.api.request('PUT', `/envelopes/${ticket.body.envelopeId}`, { token: owner.token, json: { signers } })).status).toBe(200);
  return { id: ticket.body.envelopeId, uploadUrl: ticket.body.uploadUrl };
}

const get = (id: string): Promise<ApiResponse<any>> => env.api.request('GET', `/envelopes/${id}`, { token: owner.token });
const download = async (url: string): Promise<Buffer> => Buffer.from(await (await fetch(url)).arrayBuffer());

async function pageCount(bytes: Uint8Array): Promise<number> {
  return Number(/Pages:\s+(\d+)/.exec((await tool('pdfinfo', [await tempFile(bytes)])).stdout)?.[1]);
}

async function pagesText(bytes: Uint8Array, first: number, last: number): Promise<string> {
  return (await tool('pdftotext', ['-f', String(first), '-l', String(last), await tempFile(bytes), '-'])).stdout;
}

describe('sending freezes the document', () => {
  test('the envelope records the SHA-256 and page count of the upload; documentUrl reads the frozen copy, read-only', async () => {
    const { id } = await draftWithUpload(original);
    const draft = await get(id);
    expect(draft.body).toMatchObject({ documentSha256: null, pageCount: null, sentAt: null });
    const sent = await env.api.request('PATCH', `/envelopes/${id}`, { token: owner.token, json: { status: 'sent' } });
    expect(sent.status).toBe(200);
    expect(sent.body).toMatchObject({ status: 'sent', documentSha256: sha256(original), pageCount: await pageCount(original), sentAt: sent.body.updatedAt });
    const url = new URL(sent.body.documentUrl);
    expect(url.pathname).toBe(`/devstoreaccount1/originals/${id}/contract.pdf`);
    expect(url.searchParams.get('sp')).toBe('r');
    expect((await download(sent.body.documentUrl)).equals(original)).toBe(true);
    expect((await fetchAnswer(sent.body.documentUrl, { method: 'PUT', headers: { 'x-ms-blob-type': 'BlockBlob' }, body: other })).status).toBe(403);

    const audit = (await env.api.request('GET', `/envelopes/${id}/audit`, { token: owner.token })).body as any[];
    expect(audit.find((event) => event.type === 'envelope.sent').details).toEqual({ documentSha256: sha256(original), uploadSha256: sha256(original), pageCount: 2, removed: [] });
  });

  test('no SAS for the frozen copy grants anything but read', async () => {
    await expect(getServices().storage.sas.blobUrl('originals', 'x/contract.pdf', { access: 'createWrite', expiresInSeconds: 60 })).rejects.toThrow(RangeError);
  });

  test('a PUT of other bytes to the upload URL after send and after completion changes nothing the envelope serves or seals', async () => {
    const { id, uploadUrl } = await draftWithUpload(original);
    await env.api.request('PATCH', `/envelopes/${id}`, { token: owner.token, json: { status: 'sent' } });
    // The upload SAS cannot be revoked: someone holding it replaces the upload after the send.
    expect((await putToSas(uploadUrl, other)).status).toBe(201);
    const afterSend = await get(id);
    expect(afterSend.body.documentSha256).toBe(sha256(original));
    expect(sha256(await download(afterSend.body.documentUrl))).toBe(sha256(original));

    const token = await signingTokenFor(owner.userId, id, 'ada@example.com');
    const view = await env.api.request('GET', '/signing', { token });
    expect(sha256(await download(view.body.documentUrl))).toBe(sha256(original));
    const signed = await env.api.request('POST', '/signing/complete', { token, json: { consent: true } });
    expect(signed.status).toBe(200);
    expect(signed.body.envelope.status).toBe('completed');

    const completed = await get(id);
    const sealed = await download(completed.body.signedUrl);
    expect(sha256(sealed)).toBe(completed.body.hash);
    // The sealed PDF holds the original's pages, then the certificate, which prints the frozen hash.
    expect(await pageCount(sealed)).toBeGreaterThan(2);
    expect(await pagesText(sealed, 1, 2)).toBe(await pagesText(original, 1, 2));
    expect((await pagesText(sealed, 3, 99)).replace(/\s/g, '')).toContain(sha256(original));
    const events = (await env.api.request('GET', `/envelopes/${id}/audit`, { token: owner.token })).body as any[];
    expect(events.at(-1)).toMatchObject({ type: 'envelope.completed', details: { originalSha256: sha256(original), sealedSha256: completed.body.hash } });

    // And after completion.
    expect((await putToSas(uploadUrl, Buffer.from('%PDF-1.7 replaced after completion'))).status).toBe(201);
    const later = await get(id);
    expect(later.body).toMatchObject({ documentSha256: sha256(original), hash: completed.body.hash });
    expect(sha256(await download(later.body.documentUrl))).toBe(sha256(original));
    expect(sha256(await download(later.body.signedUrl))).toBe(completed.body.hash);
    const again = await env.api.request('POST', `/envelopes/${id}/complete`, { token: owner.token });
    expect(again.body.hash).toBe(completed.body.hash);
  });

  test('completing a draft freezes the document too', async () => {
    const { id, uploadUrl } = await draftWithUpload(original);
    const completed = await env.api.request('POST', `/envelopes/${id}/complete`, { token: owner.token });
    expect(completed.status).toBe(200);
    expect((await putToSas(uploadUrl, other)).status).toBe(201);
    const after = await get(id);
    expect(after.body).toMatchObject({ status: 'completed', documentSha256: sha256(original), pageCount: 2, sentAt: null });
    expect(sha256(await download(after.body.documentUrl))).toBe(sha256(original));
    expect(await pagesText(await download(completed.body.signedUrl), 1, 2)).toBe(await pagesText(original, 1, 2));
  });
});

describe('a frozen copy left by a crashed send', () => {
  const frozenBlob = (id: string) => getServices().storage.containers.originals.getBlockBlobClient(`${id}/contract.pdf`);

  test('with the same bytes: reused', async () => {
    const { id } = await draftWithUpload(original);
    await frozenBlob(id).uploadData(original, { metadata: { sha256: sha256(original), pagecount: '2', frozenat: String(Date.now() - 5_000) } });
    const sent = await env.api.request('PATCH', `/envelopes/${id}`, { token: owner.token, json: { status: 'sent' } });
    expect(sent.status).toBe(200);
    expect(sent.body.documentSha256).toBe(sha256(original));
    expect(sha256(await frozenBlob(id).downloadToBuffer())).toBe(sha256(original));
  });

  test('with other bytes, older than two minutes (the upload changed after the crash): replaced by the upload as it is now', async () => {
    const { id } = await draftWithUpload(original);
    await frozenBlob(id).uploadData(other, { metadata: { sha256: sha256(other), pagecount: '19', frozenat: String(Date.now() - 180_000) } });
    const sent = await env.api.request('PATCH', `/envelopes/${id}`, { token: owner.token, json: { status: 'sent' } });
    expect(sent.status).toBe(200);
    expect(sent.body).toMatchObject({ documentSha256: sha256(original), pageCount: 2 });
    expect(sha256(await frozenBlob(id).downloadToBuffer())).toBe(sha256(original));
  });

  test('with other bytes written moments ago (a concurrent send about to commit): 409 envelope-contended, nothing changes', async () => {
    const { id } = await draftWithUpload(original);
    await frozenBlob(id).uploadData(other, { metadata: { sha256: sha256(other), pagecount: '19', frozenat: String(Date.now() - 1_000) } });
    const before = await get(id);
    const refused = await env.api.request('PATCH', `/envelopes/${id}`, { token: owner.token, json: { status: 'sent' } });
    expectProblem(refused, 409);
    expect(refused.body.type).toBe('urn:problem:envelope-contended');
    const after = await get(id);
    expect(after.headers.get('etag')).toBe(before.headers.get('etag'));
    expect(after.body.status).toBe('draft');
  });

  test('complete from draft meanwhile: 409 envelope-contended and nothing changes; once that copy is stale, complete seals the upload', async () => {
    const { id } = await draftWithUpload(original);
    await frozenBlob(id).uploadData(other, { metadata: { sha256: sha256(other), pagecount: '19', frozenat: String(Date.now() - 1_000) } });
    const before = await get(id);
    // The seal runs while the copy is being frozen: the freeze's refusal is the answer.
    const refused = await env.api.request('POST', `/envelopes/${id}/complete`, { token: owner.token });
    expectProblem(refused, 409);
    expect(refused.body.type).toBe('urn:problem:envelope-contended');
    const after = await get(id);
    expect(after.headers.get('etag')).toBe(before.headers.get('etag'));
    expect(after.body).toMatchObject({ status: 'draft', hash: null });

    // The other copy's writer died: two minutes on, its copy is a leftover, replaced by the upload.
    await frozenBlob(id).setMetadata({ sha256: sha256(other), pagecount: '19', frozenat: String(Date.now() - 180_000) });
    const completed = await env.api.request('POST', `/envelopes/${id}/complete`, { token: owner.token });
    expect(completed.status).toBe(200);
    const envelope = await get(id);
    expect(envelope.body).toMatchObject({ status: 'completed', documentSha256: sha256(original), pageCount: 2, hash: completed.body.hash });
    expect(sha256(await frozenBlob(id).downloadToBuffer())).toBe(sha256(original));
    const sealed = await download(completed.body.signedUrl);
    expect(sha256(sealed)).toBe(completed.body.hash);
    expect(await pagesText(sealed, 1, 2)).toBe(await pagesText(original, 1, 2));
    const verified = await env.api.request('GET', `/verify/${completed.body.hash}`);
    expect(verified.status).toBe(200);
    expect(verified.body).toMatchObject({ envelopeId: id, completedAt: envelope.body.completedAt });
  });

  test('two sends at once freeze one copy, and the envelope records its hash', async () => {
    const { id } = await draftWithUpload(original);
    const answers = await Promise.all([1, 2, 3].map(() => env.api.request('PATCH', `/envelopes/${id}`, { token: owner.token, json: { status: 'sent' } })));
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200]);
    const after = await get(id);
    expect(sha256(await frozenBlob(id).downloadToBuffer())).toBe(after.body.documentSha256);
    const events = (await env.api.request('GET', `/envelopes/${id}/audit`, { token: owner.token })).body as any[];
    expect(events.filter((event) => event.type === 'envelope.sent')).toHaveLength(1);
  });
});
