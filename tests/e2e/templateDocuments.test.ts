/**
 * Documents of a template ([docs/api.md#documents-of-a-template](../../docs/api.md#documents-of-a-template))
 * over real HTTP against Azurite: a draft template takes documents as a draft envelope does (added,
 * renamed, moved, removed; never past the limit, never the last); fields name their document;
 * activation freezes every document and checks each field against its own document's pages; an
 * envelope made from the template gets every document, frozen, in order, with every field on its
 * document; an active template's documents no longer change; another organization's template is
 * answered as a missing one.
 */
import { createHash, randomUUID } from 'node:crypto';
import { describe, expect, test } from '@jest/globals';
import { PDF } from '@libpdf/core';
import { ada } from '../support/people.js';
import { corpusPdf, expectType, fetchAnswer, putToSas, serviceForFile, type ApiClient, type ApiResponse, type TestService, type TestUser } from '../support/service.js';

let env: TestService;
let api: ApiClient;
let owner: TestUser;
let stranger: TestUser;
serviceForFile(async (started) => {
  ({ env, api, owner } = started);
  stranger = await env.newUser();
});

const sha256 = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');
const call = (method: string, route: string, json?: unknown, user: TestUser = owner): Promise<ApiResponse<any>> =>
  api.request(method, route, { token: user.token, ...(json === undefined ? {} : { json }) });
const addDocument = (id: string, filename: string, user = owner): Promise<ApiResponse<any>> => call('POST', `/templates/${id}/documents`, { filename, mimetype: 'application/pdf' }, user);
const names = (template: any): [string, string, number][] => template.documents.map((document: any) => [document.id, document.name, document.order]);

/** A PDF of `pages` blank pages. */
async function blankPdf(pages: number): Promise<Uint8Array> {
  const document = PDF.create();
  for (let page = 0; page < pages; page += 1) document.addPage();
  return await document.save();
}

/** A draft template of `lease.pdf` (the corpus's two-page `normal.pdf`), uploaded. */
async function draftTemplate(): Promise<{ id: string; lease: Uint8Array }> {
  const lease = await corpusPdf('normal.pdf');
  const created = await call('POST', '/templates', { name: 'Lease with annex', filename: 'lease.pdf', mimetype: 'application/pdf' });
  expect(created.status).toBe(201);
  expect((await putToSas(created.body.uploadUrl, lease)).status).toBe(201);
  return { id: created.body.template.id as string, lease };
}

/** Adds `bytes` as a document of the draft template `id`; returns the new document's id. */
async function added(id: string, filename: string, bytes: Uint8Array): Promise<string> {
  const ticket = await addDocument(id, filename);
  expect(ticket.status).toBe(201);
  expect(ticket.body.blobName).toBe(`${id}/${ticket.body.documentId}/${filename}`);
  expect((await putToSas(ticket.body.uploadUrl, bytes)).status).toBe(201);
  return ticket.body.documentId as string;
}

describe('documents of a template', () => {
  test('a draft template adds, renames, moves and removes documents; never past the limit (409 document-limit) nor its last (409 last-document)', async () => {
    const { id } = await draftTemplate();
    const read = await call('GET', `/templates/${id}`);
    expect(names(read.body)).toEqual([[id, 'lease.pdf', 1]]);
    expect(read.body.output).toBe('separate');

    const rules = await blankPdf(1);
    const second = await added(id, 'house-rules.pdf', rules);
    let template = (await call('GET', `/templates/${id}`)).body;
    expect(names(template)).toEqual([
      [id, 'lease.pdf', 1],
      [second, 'house-rules.pdf', 2],
    ]);
    // The draft's read URL is the upload's.
    const upload = await fetch(template.documents[1].documentUrl);
    expect(Buffer.from(await upload.arrayBuffer()).equals(Buffer.from(rules))).toBe(true);

    const moved = await call('PATCH', `/templates/${id}/documents/${second}`, { order: 1, name: 'House rules.pdf' });
    expect(moved.status).toBe(200);
    expect(names(moved.body)).toEqual([
      [second, 'House rules.pdf', 1],
      [id, 'lease.pdf', 2],
    ]);
    expect(moved.body.documentName).toBe('House rules.pdf');
    // The same name and place change nothing: no new version.
    const again = await call('PATCH', `/templates/${id}/documents/${second}`, { order: 1 });
    expect(again.status).toBe(200);
    expect(again.headers.get('etag')).toBe(moved.headers.get('etag'));
    expectType(await call('PATCH', `/templates/${id}/documents/${second}`, { order: 3 }), 400, 'validation-failed');
    expectType(await call('PATCH', `/templates/${id}/documents/${randomUUID()}`, { order: 1 }), 404, 'document-not-found');

    // Up to MAX_DOCUMENTS_PER_ENVELOPE (10): the 11th is refused and changes nothing.
    for (let count = 3; count <= 10; count += 1) expect((await addDocument(id, `annex-${count}.pdf`)).status).toBe(201);
    const before = await call('GET', `/templates/${id}`);
    expect(before.body.documents).toHaveLength(10);
    expectType(await addDocument(id, 'one-too-many.pdf'), 409, 'document-limit');
    expect((await call('GET', `/templates/${id}`)).headers.get('etag')).toBe(before.headers.get('etag'));

    // Removing down to one; the last stays (409 last-document).
    template = before.body;
    for (const document of template.documents.slice(1)) {
      const removed = await call('DELETE', `/templates/${id}/documents/${document.id}`);
      expect(removed.status).toBe(200);
      expect(removed.body.removedFieldIds).toEqual([]);
    }
    const left = await call('GET', `/templates/${id}`);
    expect(left.body.documents).toHaveLength(1);
    expectType(await call('DELETE', `/templates/${id}/documents/${left.body.documents[0].id}`), 409, 'last-document');
    expectType(await call('DELETE', `/templates/${id}/documents/${randomUUID()}`), 404, 'document-not-found');
  });

  test('another organization\'s template is answered 404 template-not-found at every document endpoint, and nothing changes', async () => {
    const { id } = await draftTemplate();
    const before = await call('GET', `/templates/${id}`);
    expectType(await addDocument(id, 'annex.pdf', stranger), 404, 'template-not-found');
    expectType(await call('PATCH', `/templates/${id}/documents/${id}`, { name: 'x.pdf' }, stranger), 404, 'template-not-found');
    expectType(await call('DELETE', `/templates/${id}/documents/${id}`, undefined, stranger), 404, 'template-not-found');
    expectType(await addDocument(randomUUID(), 'annex.pdf'), 404, 'template-not-found');
    expect((await call('GET', `/templates/${id}`)).headers.get('etag')).toBe(before.headers.get('etag'));
  });

  test('fields name their document; removing a document removes its fields; activation freezes every document and checks each field against its own document', async () => {
    const { id, lease } = await draftTemplate();
    const annex = await blankPdf(1);
    const second = await added(id, 'annex.pdf', annex);
    const spare = await added(id, 'spare.pdf', await blankPdf(1));
    const placed = await call('PATCH', `/templates/${id}`, {
      roles: [{ id: 'client', name: 'Client' }],
      fields: [
        { roleId: 'client', type: 'signature', page: 2, x: 0.1, y: 0.8, width: 0.3, height: 0.1 },
        { roleId: 'client', documentId: second, type: 'initials', page: 2, x: 0.1, y: 0.8, width: 0.1, height: 0.05 },
        { roleId: 'client', documentId: spare, type: 'text', page: 1, x: 0.1, y: 0.1, width: 0.3, height: 0.05 },
      ],
    });
    expect(placed.status).toBe(200);
    expect(placed.body.fields.map((field: any) => [field.type, field.documentId])).toEqual([
      ['signature', id],
      ['initials', second],
      ['text', spare],
    ]);
    const refused = await call('PATCH', `/templates/${id}`, { fields: [{ roleId: placed.body.roles[0].id, documentId: randomUUID(), type: 'signature', page: 1, x: 0.1, y: 0.8, width: 0.3, height: 0.1 }] });
    expectType(refused, 400, 'validation-failed');
    expect(refused.body.errors).toEqual([{ path: 'fields.0.documentId', message: 'names no document of this template' }]);

    const removed = await call('DELETE', `/templates/${id}/documents/${spare}`);
    expect(removed.status).toBe(200);
    expect(removed.body.removedFieldIds).toEqual([placed.body.fields[2].id]);
    expect(removed.body.template.fields.map((field: any) => field.id)).toEqual(placed.body.fields.slice(0, 2).map((field: any) => field.id));

    // The initials are on page 2 of a one-page annex: activation refuses, naming the field, and freezes nothing.
    const outside = await call('PATCH', `/templates/${id}`, { status: 'active' });
    expectType(outside, 422, 'field-outside-document');
    expect(outside.body.errors).toEqual([{ path: 'fields.1.page', message: 'is 2, but the document "annex.pdf" has 1 page' }]);
    expect((await call('GET', `/templates/${id}`)).body.status).toBe('draft');

    const fields = removed.body.template.fields.map((field: any, index: number) => (index === 1 ? { ...field, page: 1 } : field));
    const active = await call('PATCH', `/templates/${id}`, { fields, status: 'active' });
    expect(active.status).toBe(200);
    expect(active.body.documents).toEqual([
      { id, name: 'lease.pdf', order: 1, pageCount: 2, sha256: sha256(lease), uploadSha256: sha256(lease), documentUrl: expect.any(String) },
      { id: second, name: 'annex.pdf', order: 2, pageCount: 1, sha256: sha256(annex), uploadSha256: sha256(annex), documentUrl: expect.any(String) },
    ]);
    expect(active.body).toMatchObject({ documentSha256: sha256(lease), pageCount: 2 });
    for (const document of active.body.documents) expect(new URL(document.documentUrl).pathname).toContain('/originals/');

    // Active: the documents are frozen.
    expectType(await addDocument(id, 'late.pdf'), 409, 'invalid-transition');
    expectType(await call('PATCH', `/templates/${id}/documents/${second}`, { order: 1 }), 409, 'invalid-transition');
    expectType(await call('DELETE', `/templates/${id}/documents/${second}`), 409, 'invalid-transition');
  });

  test('an envelope made from the template gets every document, frozen, in order, and every field on its document; a moved first document and combined output carry over', async () => {
    const { id, lease } = await draftTemplate();
    const annex = await blankPdf(3);
    const second = await added(id, 'annex.pdf', annex);
    // The annex first: the document bearing the template's id is second.
    expect((await call('PATCH', `/templates/${id}/documents/${second}`, { order: 1 })).status).toBe(200);
    const active = await call('PATCH', `/templates/${id}`, {
      roles: [{ id: 'client', name: 'Client' }],
      fields: [
        { roleId: 'client', documentId: second, type: 'initials', page: 3, x: 0.1, y: 0.8, width: 0.1, height: 0.05 },
        { roleId: 'client', documentId: id, type: 'signature', page: 2, x: 0.1, y: 0.8, width: 0.3, height: 0.1 },
      ],
      output: 'combined',
      status: 'active',
    });
    expect(active.status).toBe(200);
    expect(active.body.output).toBe('combined');

    const made = await call('POST', `/templates/${id}/envelopes`, { recipients: [{ roleName: 'Client', email: ada.email, name: ada.name }], send: false });
    expect(made.status).toBe(201);
    const envelope = made.body;
    expect(envelope.documents).toEqual([
      { id: second, name: 'annex.pdf', order: 1, pageCount: 3, sha256: sha256(annex), uploadSha256: sha256(annex), documentUrl: expect.any(String) },
      { id: envelope.id, name: 'lease.pdf', order: 2, pageCount: 2, sha256: sha256(lease), uploadSha256: sha256(lease), documentUrl: expect.any(String) },
    ]);
    expect(envelope).toMatchObject({ documentName: 'annex.pdf', documentSha256: sha256(annex), pageCount: 3, output: 'combined', templateId: id });
    expect(envelope.fields.map((field: any) => [field.type, field.documentId, field.page])).toEqual([
      ['initials', second, 3],
      ['signature', envelope.id, 2],
    ]);
    // The envelope's own frozen copies, under its own id.
    for (const document of envelope.documents) {
      expect(new URL(document.documentUrl).pathname).toContain(`/originals/${envelope.id}/`);
      const copy = await fetch(document.documentUrl);
      expect(sha256(new Uint8Array(await copy.arrayBuffer()))).toBe(document.sha256);
    }
    // It stays whole when the template goes (with every document's frozen copy), and sends.
    const templateCopies = (await call('GET', `/templates/${id}`)).body.documents.map((document: any) => document.documentUrl as string);
    expect(templateCopies).toHaveLength(2);
    expect((await call('DELETE', `/templates/${id}`)).status).toBe(204);
    for (const url of templateCopies) expect((await fetchAnswer(url)).status).toBe(404);
    const sent = await call('PATCH', `/envelopes/${envelope.id}`, { status: 'sent' });
    expect(sent.status).toBe(200);
    expect(sent.body.documents.map((document: any) => [document.id, document.sha256])).toEqual([
      [second, sha256(annex)],
      [envelope.id, sha256(lease)],
    ]);
    expect((await fetchAnswer(sent.body.documents[1].documentUrl)).status).toBe(200);
  });
});
