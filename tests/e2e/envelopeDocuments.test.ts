/**
 * Several documents per envelope ([docs/api.md#several-documents](../../docs/api.md#several-documents)),
 * over real HTTP against Azurite: an envelope made by GetUploadUrl reads as one document; documents
 * are added, renamed, moved and removed in a draft (never the last, never past the limit); fields name
 * their document, are checked against its pages at send and go with it when it is removed (its blob
 * too); every document is frozen at send, and a document that refuses the send is named while nothing
 * is sent; fields are detected in every document; a sent envelope's documents no longer change.
 */
import { createHash, randomUUID } from 'node:crypto';
import { describe, expect, test } from '@jest/globals';
import { PDF } from '@libpdf/core';
import { ISO_MS } from '../support/contract.js';
import { ada, bea } from '../support/people.js';
import { corpusPdf, createEnvelopeWithDocument, expectType, fetchAnswer, putToSas, serviceForFile, serviceWithSettings, type ApiClient, type ApiResponse, type TestUser } from '../support/service.js';
import { auditTrail, storedEnvelope } from '../support/signing.js';

let api: ApiClient;
let owner: TestUser;
serviceForFile((started) => ({ api, owner } = started));

const sha256 = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');
const get = (id: string): Promise<ApiResponse<any>> => api.request('GET', `/envelopes/${id}`, { token: owner.token });
const put = (id: string, json: unknown): Promise<ApiResponse<any>> => api.request('PUT', `/envelopes/${id}`, { token: owner.token, json });
const addDocument = (id: string, filename: string, user = owner): Promise<ApiResponse<any>> =>
  api.request('POST', `/envelopes/${id}/documents`, { token: user.token, json: { filename, mimetype: 'application/pdf' } });
const patchDocument = (id: string, documentId: string, json: unknown): Promise<ApiResponse<any>> => api.request('PATCH', `/envelopes/${id}/documents/${documentId}`, { token: owner.token, json });
const deleteDocument = (id: string, documentId: string): Promise<ApiResponse<any>> => api.request('DELETE', `/envelopes/${id}/documents/${documentId}`, { token: owner.token });

/** Adds `bytes` (or nothing when `null`) as a document of the draft `id`; returns the new document's id. */
async function added(id: string, filename: string, bytes: Uint8Array | null): Promise<string> {
  const ticket = await addDocument(id, filename);
  expect(ticket.status).toBe(201);
  if (bytes !== null) expect((await putToSas(ticket.body.uploadUrl, bytes)).status).toBe(201);
  return ticket.body.documentId as string;
}

/** A PDF of `pages` blank pages. */
async function blankPdf(pages: number): Promise<Uint8Array> {
  const document = PDF.create();
  for (let page = 0; page < pages; page += 1) document.addPage();
  return await document.save();
}

/**
 * A draft of `normal.pdf` (lease.pdf) and a one-page annex, with a signer whose signature is on the
 * lease's page 2 (no `documentId`: the first document) and initials on the annex.
 */
async function leaseWithAnnex(): Promise<{ id: string; second: string; signer: string; placed: ApiResponse<any> }> {
  const id = await createEnvelopeWithDocument(api, owner, await corpusPdf('normal.pdf'), 'lease.pdf');
  const second = await added(id, 'annex.pdf', await blankPdf(1));
  const signer = randomUUID();
  const placed = await put(id, {
    signers: [{ id: signer, ...ada }],
    fields: [
      { recipientId: signer, type: 'signature', page: 2, x: 0.1, y: 0.8, width: 0.3, height: 0.1 },
      { recipientId: signer, documentId: second, type: 'initials', page: 1, x: 0.1, y: 0.8, width: 0.1, height: 0.05 },
    ],
  });
  expect(placed.status).toBe(200);
  return { id, second, signer, placed };
}

describe('the documents of a draft (docs/api.md#several-documents)', () => {
  test('an envelope made by GetUploadUrl holds one document, its id the envelope\'s, described by the envelope\'s own fields as well', async () => {
    const id = await createEnvelopeWithDocument(api, owner, await corpusPdf('normal.pdf'), 'lease.pdf');
    const envelope = (await get(id)).body;
    expect(envelope.documents).toEqual([{ id, name: 'lease.pdf', order: 1, pageCount: null, sha256: null, uploadSha256: null, documentUrl: expect.any(String) }]);
    expect(envelope.documentName).toBe('lease.pdf');
    const read = await fetch(envelope.documents[0].documentUrl);
    expect(Buffer.from(await read.arrayBuffer()).equals(await corpusPdf('normal.pdf'))).toBe(true);
  });

  test('POST .../documents answers 201 with the document\'s id and an upload URL of its own blob; documents are listed in order, renamed and moved with PATCH, the envelope\'s own fields following the first', async () => {
    const id = await createEnvelopeWithDocument(api, owner, await corpusPdf('normal.pdf'), 'lease.pdf');
    const ticket = await addDocument(id, 'house-rules.pdf');
    expect(ticket.status).toBe(201);
    expect(ticket.body).toEqual({ documentId: expect.any(String), uploadUrl: expect.any(String), blobName: `${id}/${ticket.body.documentId}/house-rules.pdf`, expiresAt: expect.stringMatching(ISO_MS) });
    expect(ticket.headers.get('etag')).toBe('"2"');
    const houseRules = ticket.body.documentId as string;
    expect(houseRules).not.toBe(id);
    const rules = await blankPdf(3);
    expect((await putToSas(ticket.body.uploadUrl, rules)).status).toBe(201);

    let envelope = (await get(id)).body;
    expect(envelope.documents.map((document: any) => [document.id, document.name, document.order])).toEqual([
      [id, 'lease.pdf', 1],
      [houseRules, 'house-rules.pdf', 2],
    ]);
    const read = await fetch(envelope.documents[1].documentUrl);
    expect(Buffer.from(await read.arrayBuffer()).equals(Buffer.from(rules))).toBe(true);

    const moved = await patchDocument(id, houseRules, { order: 1, name: 'House rules.pdf' });
    expect(moved.status).toBe(200);
    envelope = moved.body;
    expect(envelope.documents.map((document: any) => [document.id, document.name, document.order])).toEqual([
      [houseRules, 'House rules.pdf', 1],
      [id, 'lease.pdf', 2],
    ]);
    expect(envelope.documentName).toBe('House rules.pdf');
    // The same name and place change nothing: no new version.
    const again = await patchDocument(id, houseRules, { order: 1 });
    expect(again.status).toBe(200);
    expect(again.headers.get('etag')).toBe(moved.headers.get('etag'));
    // Each change of the list is in the audit trail, by the owner; the one that changed nothing is not.
    const events = (await auditTrail(api, owner, id)).filter((event) => event.type.startsWith('envelope.document_'));
    expect(events.map(({ type, actorId, details }) => ({ type, actorId, details }))).toEqual([
      { type: 'envelope.document_added', actorId: owner.userId, details: { documentId: houseRules, name: 'house-rules.pdf', order: 2 } },
      { type: 'envelope.document_changed', actorId: owner.userId, details: { documentId: houseRules, name: 'House rules.pdf', order: 1 } },
    ]);

    expectType(await patchDocument(id, houseRules, { order: 3 }), 400, 'validation-failed');
    expectType(await patchDocument(id, houseRules, { order: 0 }), 400, 'validation-failed');
    expectType(await patchDocument(id, houseRules, { color: 'red' }), 400, 'validation-failed');
    expectType(await patchDocument(id, randomUUID(), { order: 1 }), 404, 'document-not-found');
    expectType(await addDocument(id, 'notes.txt'), 400, 'validation-failed');
    const wrongType = await api.request('POST', `/envelopes/${id}/documents`, { token: owner.token, json: { filename: 'a.pdf', mimetype: 'image/png' } });
    expectType(wrongType, 415, 'unsupported-document-type');
    expectType(await addDocument(randomUUID(), 'a.pdf'), 404, 'envelope-not-found');
  });

  test('fields name their document (default the first); a document that is not the envelope\'s is refused; moving documents leaves every field on its own', async () => {
    const { id, second, signer, placed } = await leaseWithAnnex();
    expect(placed.status).toBe(200);
    expect(placed.body.fields.map((field: any) => [field.type, field.documentId])).toEqual([
      ['signature', id],
      ['initials', second],
    ]);
    const refused = await put(id, { fields: [{ recipientId: signer, documentId: randomUUID(), type: 'signature', page: 1, x: 0.1, y: 0.8, width: 0.3, height: 0.1 }] });
    expectType(refused, 400, 'validation-failed');
    expect(refused.body.errors).toEqual([{ path: 'fields.0.documentId', message: 'names no document of this envelope' }]);

    const moved = await patchDocument(id, second, { order: 1 });
    expect(moved.body.fields.map((field: any) => [field.type, field.documentId])).toEqual([
      ['signature', id],
      ['initials', second],
    ]);
    // Sending the fields back as read changes nothing.
    const echoed = await put(id, { fields: moved.body.fields });
    expect(echoed.headers.get('etag')).toBe(moved.headers.get('etag'));
  });

  test('DELETE removes the document with its fields (named in the answer) and its upload; never the last document (409 last-document)', async () => {
    const { id, second, signer, placed } = await leaseWithAnnex();
    const secondUrl = placed.body.documents[1].documentUrl as string;
    expect((await fetchAnswer(secondUrl)).status).toBe(200);

    const removed = await deleteDocument(id, second);
    expect(removed.status).toBe(200);
    expect(removed.body.removedFieldIds).toEqual([placed.body.fields[1].id]);
    expect(removed.body.envelope.documents.map((document: any) => document.id)).toEqual([id]);
    expect(removed.body.envelope.fields.map((field: any) => field.id)).toEqual([placed.body.fields[0].id]);
    expect((await fetchAnswer(secondUrl)).status).toBe(404);
    expect((await auditTrail(api, owner, id)).at(-1)).toMatchObject({ type: 'envelope.fields_replaced', details: { count: 1 } });
    expect((await auditTrail(api, owner, id)).at(-2)).toMatchObject({ type: 'envelope.document_removed', actorId: owner.userId, details: { documentId: second, name: 'annex.pdf' } });

    expectType(await deleteDocument(id, second), 404, 'document-not-found');
    expectType(await deleteDocument(id, id), 409, 'last-document');

    // Removing the first document makes the next one first: the envelope's own fields describe it.
    const third = await added(id, 'schedule.pdf', await blankPdf(1));
    const firstGone = await deleteDocument(id, id);
    expect(firstGone.status).toBe(200);
    expect(firstGone.body.removedFieldIds).toEqual([placed.body.fields[0].id]);
    expect(firstGone.body.envelope).toMatchObject({ documentName: 'schedule.pdf', documents: [{ id: third, name: 'schedule.pdf', order: 1 }], fields: [] });
  });

  test('an envelope holds at most MAX_DOCUMENTS_PER_ENVELOPE (10) documents: the 11th is 409 document-limit', async () => {
    const id = await createEnvelopeWithDocument(api, owner, null, 'one.pdf');
    for (let count = 2; count <= 10; count += 1) expect((await addDocument(id, `doc-${count}.pdf`)).status).toBe(201);
    const eleventh = await addDocument(id, 'eleventh.pdf');
    expectType(eleventh, 409, 'document-limit');
    expect((await get(id)).body.documents).toHaveLength(10);
  });
});

describe('sending several documents (docs/api.md#several-documents)', () => {
  test('every document is frozen: hashes, pages and read URLs of the frozen copies; fields are checked against their own document\'s pages; envelope.sent lists every document', async () => {
    const lease = await corpusPdf('normal.pdf');
    const annex = await blankPdf(3);
    const id = await createEnvelopeWithDocument(api, owner, lease, 'lease.pdf');
    const second = await added(id, 'annex.pdf', annex);
    const signer = randomUUID();
    expect((await put(id, { signers: [{ id: signer, ...ada }] })).status).toBe(200);
    const outside = await put(id, {
      fields: [
        { recipientId: signer, type: 'signature', page: 2, x: 0.1, y: 0.8, width: 0.3, height: 0.1 },
        { recipientId: signer, documentId: second, type: 'initials', page: 4, x: 0.1, y: 0.8, width: 0.1, height: 0.05 },
      ],
      status: 'sent',
    });
    expectType(outside, 422, 'field-outside-document');
    expect(outside.body.errors).toEqual([{ path: 'fields.1.page', message: 'is 4, but the document "annex.pdf" has 3 pages' }]);
    expect((await get(id)).body.status).toBe('draft');

    const sent = await put(id, { fields: [{ recipientId: signer, documentId: second, type: 'initials', page: 3, x: 0.1, y: 0.8, width: 0.1, height: 0.05 }], status: 'sent' });
    expect(sent.status).toBe(200);
    expect(sent.body.documents).toEqual([
      { id, name: 'lease.pdf', order: 1, pageCount: 2, sha256: sha256(lease), uploadSha256: sha256(lease), documentUrl: expect.any(String) },
      { id: second, name: 'annex.pdf', order: 2, pageCount: 3, sha256: sha256(annex), uploadSha256: sha256(annex), documentUrl: expect.any(String) },
    ]);
    expect(sent.body).toMatchObject({ documentSha256: sha256(lease), pageCount: 2 });
    // The read URLs are the frozen copies' (container `originals`).
    for (const document of sent.body.documents) expect(new URL(document.documentUrl).pathname).toContain('/originals/');
    const events = await auditTrail(api, owner, id);
    expect(events.find((event) => event.type === 'envelope.sent').details).toEqual({
      documentSha256: sha256(lease),
      uploadSha256: sha256(lease),
      pageCount: 2,
      removed: [],
      documents: [
        { id, name: 'lease.pdf', documentSha256: sha256(lease), uploadSha256: sha256(lease), pageCount: 2, removed: [] },
        { id: second, name: 'annex.pdf', documentSha256: sha256(annex), uploadSha256: sha256(annex), pageCount: 3, removed: [] },
      ],
    });

    // What was sent is what gets signed: the documents no longer change.
    expectType(await addDocument(id, 'late.pdf'), 409, 'envelope-locked');
    expectType(await patchDocument(id, second, { order: 1 }), 409, 'envelope-locked');
    expectType(await deleteDocument(id, second), 409, 'envelope-locked');
  });

  test('a document not uploaded, or not a PDF, refuses the send naming it (detail, documentId, documentName); nothing is sent', async () => {
    const id = await createEnvelopeWithDocument(api, owner, await corpusPdf('normal.pdf'), 'lease.pdf');
    const missing = await added(id, 'missing.pdf', null);
    await put(id, { signers: [ada] });
    const notUploaded = await put(id, { status: 'sent' });
    expectType(notUploaded, 409, 'document-not-uploaded');
    expect(notUploaded.body).toMatchObject({ documentId: missing, documentName: 'missing.pdf', detail: expect.stringContaining('"missing.pdf"') });

    const ticket = await addDocument(id, 'picture.pdf');
    expect((await putToSas(ticket.body.uploadUrl, Buffer.from('GIF89a not a pdf at all'))).status).toBe(201);
    expect((await deleteDocument(id, missing)).status).toBe(200);
    const notPdf = await put(id, { status: 'sent' });
    expectType(notPdf, 415, 'document-not-pdf');
    expect(notPdf.body).toMatchObject({ documentId: ticket.body.documentId, documentName: 'picture.pdf', detail: expect.stringContaining('Document 2, "picture.pdf"') });
    const envelope = (await get(id)).body;
    expect(envelope.status).toBe('draft');
    expect(envelope.signers[0].status).toBe('created');
    expect((await auditTrail(api, owner, id)).map((event) => event.type)).not.toContain('envelope.sent');
  });

  test('when several documents would refuse the send, the first of them in order is the one named', async () => {
    const id = await createEnvelopeWithDocument(api, owner, await corpusPdf('normal.pdf'), 'lease.pdf');
    // Documents are checked two at a time: the second and third are in hand together, and either may fail first.
    const second = await added(id, 'picture.pdf', Buffer.from('GIF89a not a pdf at all'));
    await added(id, 'scan.pdf', Buffer.from('PNG also not a pdf'));
    await put(id, { signers: [ada] });
    const refused = await put(id, { status: 'sent' });
    expectType(refused, 415, 'document-not-pdf');
    expect(refused.body).toMatchObject({ documentId: second, documentName: 'picture.pdf', detail: expect.stringContaining('Document 2, "picture.pdf"') });
    expect((await get(id)).body.status).toBe('draft');
  });

  test('detection finds the form fields of every document, each field on its own document', async () => {
    const id = await createEnvelopeWithDocument(api, owner, await blankPdf(1), 'cover.pdf');
    const form = await added(id, 'form.pdf', await corpusPdf('sample_form.pdf'));
    await put(id, { signers: [ada, bea] });
    const detected = await api.request('POST', `/envelopes/${id}/fields/detect`, { token: owner.token });
    expect(detected.status).toBe(200);
    expect(detected.body.formFields).toBeGreaterThan(0);
    expect(detected.body.fields.length).toBeGreaterThan(0);
    expect(new Set(detected.body.fields.map((field: any) => field.documentId))).toEqual(new Set([form]));
    expect((await storedEnvelope(owner.userId, id)).fields.every((field) => field.documentId === form)).toBe(true);
  });
});

describe('MAX_ENVELOPE_BYTES and MAX_DOCUMENTS_PER_ENVELOPE (docs/api.md#several-documents)', () => {
  const { env } = serviceWithSettings({ MAX_ENVELOPE_BYTES: '100000', MAX_DOCUMENTS_PER_ENVELOPE: '2' });

  test('documents together over MAX_ENVELOPE_BYTES refuse the send (413 envelope-too-large); the limit of documents is the setting', async () => {
    const service = env();
    const user = await service.newUser();
    const ticket = await service.api.request('POST', '/GetUploadUrl', { token: user.token, json: { filename: 'lease.pdf', mimetype: 'application/pdf' } });
    expect((await putToSas(ticket.body.uploadUrl, await corpusPdf('normal.pdf'))).status).toBe(201);
    const id = ticket.body.envelopeId as string;
    const second = await service.api.request('POST', `/envelopes/${id}/documents`, { token: user.token, json: { filename: 'annex.pdf', mimetype: 'application/pdf' } });
    expect(second.status).toBe(201);
    expect((await putToSas(second.body.uploadUrl, await corpusPdf('normal.pdf'))).status).toBe(201);
    expectType(await service.api.request('POST', `/envelopes/${id}/documents`, { token: user.token, json: { filename: 'third.pdf', mimetype: 'application/pdf' } }), 409, 'document-limit');
    await service.api.request('PUT', `/envelopes/${id}`, { token: user.token, json: { signers: [ada] } });
    const refused = await service.api.request('PUT', `/envelopes/${id}`, { token: user.token, json: { status: 'sent' } });
    expectType(refused, 413, 'envelope-too-large');
    expect((await service.api.request('GET', `/envelopes/${id}`, { token: user.token })).body.status).toBe('draft');
  });
});
