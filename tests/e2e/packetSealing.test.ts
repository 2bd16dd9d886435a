/**
 * Sealing an envelope of several documents and downloading it
 * ([docs/api.md#sealing-several-documents](../../docs/api.md#sealing-several-documents),
 * [docs/api.md#download-a-completed-envelope](../../docs/api.md#download-a-completed-envelope)),
 * over real HTTP against Azurite, every sealed PDF checked by independent tools: `pdfsig` (the seal
 * valid and covering the whole file), `qpdf --check`, `pdfinfo` (pages), `pdftotext` (each value on
 * its own document's page, the certificate listing every document with both hashes); `unzip -t` and
 * `unzip -l` on the archive, whose files hash as the completion answered.
 */
import { createHash, randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, test } from '@jest/globals';
import { PDF } from '@libpdf/core';
import { ada } from '../support/people.js';
import { corpusPdf, createEnvelopeWithDocument, expectType, putToSas, serviceForFile, type ApiClient, type ApiResponse, type TestUser } from '../support/service.js';
import { auditTrail, signingTokenFor } from '../support/signing.js';
import { startServiceProcess } from '../support/serviceProcess.js';
import { getServices } from '../../src/lib/services.js';
import { tempFile, tool } from '../support/tools.js';

let api: ApiClient;
let owner: TestUser;
serviceForFile((started) => ({ api, owner } = started));

const sha256 = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

/** A PDF of `pages` pages, each with its number and `title` written on it. */
async function titledPdf(title: string, pages: number): Promise<Uint8Array> {
  const document = PDF.create();
  for (let page = 1; page <= pages; page += 1) document.addPage().drawText(`${title} page ${page}`, { x: 60, y: 700, size: 14 });
  return await document.save();
}

interface Packet {
  id: string;
  documents: { id: string; name: string; bytes: Uint8Array; pages: number }[];
  signerId: string;
}

/** A draft of three documents (2, 3 and 1 pages) and one signer, with `output` set. */
async function packet(output: 'separate' | 'combined'): Promise<Packet> {
  const lease = await corpusPdf('normal.pdf');
  const id = await createEnvelopeWithDocument(api, owner, lease, 'lease.pdf');
  const documents: Packet['documents'] = [{ id, name: 'lease.pdf', bytes: new Uint8Array(lease), pages: 2 }];
  for (const [name, pages] of [['annex.pdf', 3], ['rules.pdf', 1]] as const) {
    const bytes = await titledPdf(name, pages);
    const ticket = await api.request('POST', `/envelopes/${id}/documents`, { token: owner.token, json: { filename: name, mimetype: 'application/pdf' } });
    expect(ticket.status).toBe(201);
    expect((await putToSas(ticket.body.uploadUrl, bytes)).status).toBe(201);
    documents.push({ id: ticket.body.documentId, name, bytes, pages });
  }
  const signerId = randomUUID();
  const placed = await api.request('PUT', `/envelopes/${id}`, { token: owner.token, json: { signers: [{ id: signerId, ...ada }], output } });
  expect(placed.body.output).toBe(output);
  return { id, documents, signerId };
}

/** Sends the packet with a text field on the annex's page 2 and a signature on the lease's page 2, and signs it. */
async function sendAndSign({ id, documents, signerId }: Packet): Promise<ApiResponse<any>> {
  const sent = await api.request('PUT', `/envelopes/${id}`, {
    token: owner.token,
    json: {
      fields: [
        { recipientId: signerId, type: 'signature', page: 2, x: 0.1, y: 0.8, width: 0.3, height: 0.08, label: 'LeaseSignature' },
        { recipientId: signerId, documentId: documents[1]!.id, type: 'text', page: 2, x: 0.1, y: 0.4, width: 0.5, height: 0.05, label: 'AnnexNote' },
      ],
      status: 'sent',
    },
  });
  expect(sent.status).toBe(200);
  const [signature, note] = sent.body.fields as { id: string }[];
  const signed = await api.request('POST', '/signing/complete', {
    token: await signingTokenFor(owner.userId, id, ada.email),
    json: { consent: true, values: [{ fieldId: signature!.id, value: { typed: 'Ada Lovelace' } }, { fieldId: note!.id, value: 'Annex value' }] },
  });
  expect(signed.status).toBe(200);
  expect(signed.body.envelope.status).toBe('completed');
  return signed;
}

/** qpdf's warnings about `file`, the file's name replaced by `FILE`. */
async function qpdfWarnings(file: string): Promise<{ code: number; warnings: string[] }> {
  const checked = await tool('qpdf', ['--check', file]);
  return { code: checked.code, warnings: checked.stderr.split('\n').filter((line) => line.startsWith('WARNING')).map((line) => line.replace(file, 'FILE')) };
}

/**
 * The sealed PDF at `url`, checked by pdfsig and qpdf: one seal, valid, covering the whole file; no
 * qpdf error, and no warning its `originals` (the documents it holds, as uploaded) did not have already
 * (qpdf exits 0 when clean, 3 with warnings, 2 with errors; `normal.pdf` has warnings of its own).
 */
async function checkedSeal(url: string, name: string, originals: readonly Uint8Array[]): Promise<{ file: string; bytes: Buffer; pages: number }> {
  const bytes = Buffer.from(await (await fetch(url)).arrayBuffer());
  const file = await tempFile(bytes, name);
  const signatures = (await tool('pdfsig', ['-nocert', file])).stdout;
  expect(signatures).toContain('Signature is Valid.');
  expect(signatures).toContain('Total document signed');
  const checked = await qpdfWarnings(file);
  expect([0, 3]).toContain(checked.code);
  const known = new Set<string>();
  for (const original of originals) for (const warning of (await qpdfWarnings(await tempFile(original, 'original.pdf'))).warnings) known.add(warning);
  expect(checked.warnings.filter((warning) => !known.has(warning))).toEqual([]);
  const pages = Number(/Pages:\s+(\d+)/.exec((await tool('pdfinfo', [file])).stdout)![1]);
  return { file, bytes, pages };
}

/** The text of pages `first` to `last` (1-based), white space removed when `squeezed`. */
async function pageText(file: string, first: number, last: number, squeezed = false): Promise<string> {
  const text = (await tool('pdftotext', ['-f', String(first), '-l', String(last), file, '-'])).stdout;
  return squeezed ? text.replace(/\s+/g, '') : text;
}

/** The certificate (pages after `from`) lists every document with its name and both hashes. */
async function expectCertificateLists(file: string, from: number, pages: number, documents: Packet['documents']): Promise<void> {
  const text = await pageText(file, from + 1, pages);
  const squeezed = text.replace(/\s+/g, '');
  for (const document of documents) {
    expect(text).toContain(document.name);
    // Blank PDFs made here carry nothing to clean: as uploaded and as frozen are the same bytes.
    expect(squeezed).toContain(sha256(document.bytes));
  }
}

describe('output: separate (docs/api.md#sealing-several-documents)', () => {
  test('each document is sealed as its own PDF with its own values and the certificate listing every document; complete answers each; verify knows each; the ZIP holds them all', async () => {
    const draft = await packet('separate');
    expectType(await api.request('GET', `/envelopes/${draft.id}/download`, { token: owner.token }), 409, 'envelope-not-completed');
    await sendAndSign(draft);
    const completed = await api.request('POST', `/envelopes/${draft.id}/complete`, { token: owner.token });
    expect(completed.status).toBe(200);
    const answered = completed.body.documents as { id: string; name: string; signedUrl: string; hash: string }[];
    expect(answered.map(({ id, name }) => ({ id, name }))).toEqual(draft.documents.map(({ id, name }) => ({ id, name })));
    expect(new Set(answered.map((document) => document.hash)).size).toBe(3);
    expect(answered[0]!.hash).toBe(completed.body.hash);

    const sealed = [];
    for (const [index, document] of draft.documents.entries()) {
      const seal = await checkedSeal(answered[index]!.signedUrl, `${index}.pdf`, [document.bytes]);
      expect(sha256(seal.bytes)).toBe(answered[index]!.hash);
      expect(seal.pages).toBeGreaterThan(document.pages);
      await expectCertificateLists(seal.file, document.pages, seal.pages, draft.documents);
      sealed.push(seal);
      const verified = await api.request('GET', `/verify/${answered[index]!.hash}`);
      expect(verified.status).toBe(200);
      expect(verified.body).toMatchObject({ envelopeId: draft.id, documentName: document.name });
    }
    // Each value on its own document's page, nowhere else.
    expect(await pageText(sealed[1]!.file, 2, 2)).toContain('Annex value');
    expect(await pageText(sealed[0]!.file, 1, 2)).not.toContain('Annex value');
    expect(await pageText(sealed[0]!.file, 2, 2)).toContain('Ada Lovelace');
    expect(await pageText(sealed[2]!.file, 1, 1)).not.toContain('Annex value');

    const events = await auditTrail(api, owner, draft.id);
    expect(events.find((event) => event.type === 'envelope.completed').details.documents).toEqual(answered.map(({ id, hash }) => ({ id, sealedSha256: hash })));

    // The download: every sealed PDF, the certificate on its own, the audit trail.
    const response = await fetch(`${api.apiUrl}/envelopes/${draft.id}/download`, { headers: { Authorization: `Bearer ${owner.token}` } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/zip');
    expect(response.headers.get('content-disposition')).toBe(`attachment; filename="envelope-${draft.id}.zip"`);
    const zip = await tempFile(Buffer.from(await response.arrayBuffer()), 'envelope.zip');
    expect((await tool('unzip', ['-t', zip])).code).toBe(0);
    const listing = (await tool('unzip', ['-Z1', zip])).stdout.trim().split('\n');
    expect(listing).toEqual(['01-lease.pdf', '02-annex.pdf', '03-rules.pdf', 'certificate.pdf', 'audit.json']);
    const out = path.dirname(zip);
    expect((await tool('unzip', ['-o', '-d', out, zip])).code).toBe(0);
    for (const [index, name] of ['01-lease.pdf', '02-annex.pdf', '03-rules.pdf'].entries()) expect(sha256(await readFile(path.join(out, name)))).toBe(answered[index]!.hash);
    expect(JSON.parse(await readFile(path.join(out, 'audit.json'), 'utf8'))).toEqual(await auditTrail(api, owner, draft.id));
    const certificate = path.join(out, 'certificate.pdf');
    expect((await tool('qpdf', ['--check', certificate])).code).toBe(0);
    const certificatePages = Number(/Pages:\s+(\d+)/.exec((await tool('pdfinfo', [certificate])).stdout)![1]);
    expect(certificatePages).toBe(sealed[2]!.pages - 1);
    await expectCertificateLists(certificate, 0, certificatePages, draft.documents);
  });
});

describe('output: combined (docs/api.md#sealing-several-documents)', () => {
  test('one PDF of every document in order, each value on its document\'s page, then the certificate; every entry of documents names it; the ZIP holds combined.pdf', async () => {
    const draft = await packet('combined');
    await sendAndSign(draft);
    const completed = await api.request('POST', `/envelopes/${draft.id}/complete`, { token: owner.token });
    expect(completed.status).toBe(200);
    const answered = completed.body.documents as { id: string; hash: string; signedUrl: string }[];
    expect(answered.map((document) => document.id)).toEqual(draft.documents.map((document) => document.id));
    expect(answered.every((document) => document.hash === completed.body.hash)).toBe(true);
    const seal = await checkedSeal(completed.body.signedUrl, 'combined.pdf', draft.documents.map((document) => document.bytes));
    expect(seal.pages).toBeGreaterThan(6);
    // Lease pages 1-2, annex 3-5 (its page 2 is page 4), rules 6.
    expect(await pageText(seal.file, 4, 4)).toContain('Annex value');
    expect(await pageText(seal.file, 4, 4)).toContain('annex.pdf page 2');
    expect(await pageText(seal.file, 6, 6)).toContain('rules.pdf page 1');
    expect(await pageText(seal.file, 2, 2)).toContain('Ada Lovelace');
    await expectCertificateLists(seal.file, 6, seal.pages, draft.documents);
    expect((await api.request('GET', `/verify/${completed.body.hash}`)).status).toBe(200);

    const response = await fetch(`${api.apiUrl}/envelopes/${draft.id}/download`, { headers: { Authorization: `Bearer ${owner.token}` } });
    expect(response.status).toBe(200);
    const zip = await tempFile(Buffer.from(await response.arrayBuffer()), 'envelope.zip');
    expect((await tool('unzip', ['-t', zip])).code).toBe(0);
    expect((await tool('unzip', ['-Z1', zip])).stdout.trim().split('\n')).toEqual(['combined.pdf', 'certificate.pdf', 'audit.json']);
  });

  test('output is a setting locked at send', async () => {
    const draft = await packet('combined');
    const settings = (await auditTrail(api, owner, draft.id)).filter((event) => event.type === 'envelope.settings_changed');
    expect(settings.at(-1).details).toEqual({ output: 'combined' });
    expect((await api.request('PUT', `/envelopes/${draft.id}`, { token: owner.token, json: { status: 'sent' } })).status).toBe(200);
    expectType(await api.request('PATCH', `/envelopes/${draft.id}`, { token: owner.token, json: { output: 'separate' } }), 409, 'envelope-locked');
    // Repeating what it holds changes nothing and is accepted.
    expect((await api.request('PATCH', `/envelopes/${draft.id}`, { token: owner.token, json: { output: 'combined' } })).status).toBe(200);
  });
});

describe('the owner completes a draft of several documents (docs/api.md#completing-as-the-owner)', () => {
  test('every document is frozen and sealed on its own', async () => {
    const draft = await packet('separate');
    const completed = await api.request('POST', `/envelopes/${draft.id}/complete`, { token: owner.token });
    expect(completed.status).toBe(200);
    const answered = completed.body.documents as { signedUrl: string; hash: string }[];
    expect(answered).toHaveLength(3);
    for (const [index, document] of draft.documents.entries()) {
      const seal = await checkedSeal(answered[index]!.signedUrl, `${index}.pdf`, [document.bytes]);
      await expectCertificateLists(seal.file, document.pages, seal.pages, draft.documents);
    }
    const envelope = (await api.request('GET', `/envelopes/${draft.id}`, { token: owner.token })).body;
    expect(envelope.documents.map((document: { sha256: string }) => document.sha256)).toEqual(draft.documents.map((document) => sha256(document.bytes)));
  });
});

describe('all or none (docs/api.md#sealing-several-documents)', () => {
  test('a completion killed after some documents are sealed leaves the envelope as it was and no sealed PDF reachable; the next completion seals every document', async () => {
    const draft = await packet('separate');
    const doomed = await startServiceProcess({ SERVICE_CRASH_AT: 'completion.partlySealed' });
    try {
      const lost = await doomed.api.request('POST', `/envelopes/${draft.id}/complete`, { token: owner.token }).catch((error: unknown) => error);
      expect(lost).toMatchObject({ name: 'TypeError', message: 'fetch failed' });
    } finally {
      await doomed.kill();
    }
    // Sealed PDFs are stored, yet nothing shows them: the envelope is the draft it was, no hash verifies.
    const stored: string[] = [];
    for await (const blob of getServices().storage.containers.sealed.listBlobsFlat({ prefix: `${draft.id}/`, includeMetadata: true })) stored.push(blob.metadata!.sha256!);
    expect(stored.length).toBeGreaterThanOrEqual(2);
    const envelope = (await api.request('GET', `/envelopes/${draft.id}`, { token: owner.token })).body;
    expect(envelope).toMatchObject({ status: 'draft', hash: null, signedUrl: null });
    for (const hash of stored) expectType(await api.request('GET', `/verify/${hash}`), 404, 'seal-not-found');
    expectType(await api.request('GET', `/envelopes/${draft.id}/download`, { token: owner.token }), 409, 'envelope-not-completed');

    const completed = await api.request('POST', `/envelopes/${draft.id}/complete`, { token: owner.token });
    expect(completed.status).toBe(200);
    const answered = completed.body.documents as { signedUrl: string; hash: string }[];
    expect(answered).toHaveLength(3);
    for (const [index, document] of answered.entries()) {
      const seal = await checkedSeal(document.signedUrl, `${index}.pdf`, [draft.documents[index]!.bytes]);
      expect(sha256(seal.bytes)).toBe(document.hash);
      expect((await api.request('GET', `/verify/${document.hash}`)).status).toBe(200);
    }
  });
});
