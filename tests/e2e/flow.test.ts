/**
 * The whole flow over real HTTP (README.md#quick-start, docs/api.md#lifecycle): register with an
 * invitation, log in, get an upload URL, PUT a real PDF straight to Blob storage (with fetch and with
 * the Storage SDK), name the signers, complete, download the sealed PDF and check it with independent
 * tools.
 */
import { createHash } from 'node:crypto';
import { describe, expect, test } from '@jest/globals';
import { BlockBlobClient } from '@azure/storage-blob';
import { ApiClient, corpusPdf, putToSas, serviceForFile, type TestService, type TestUser } from '../support/service.js';
import { tempFile, tool } from '../support/tools.js';

let env: TestService;
let api: ApiClient;
let user: TestUser;
serviceForFile((started) => ({ env, api, owner: user } = started));

async function formTextValues(file: string): Promise<string[]> {
  const json = await tool('qpdf', ['--json', '--json-key=acroform', file]);
  const fields = (JSON.parse(json.stdout) as { acroform: { fields: { fieldtype: string; value: unknown }[] } }).acroform.fields;
  return fields
    .filter((field) => field.fieldtype === '/Tx' && typeof field.value === 'string')
    // qpdf's JSON v2 writes text strings as "u:<text>".
    .map((field) => (field.value as string).replace(/^u:/, '').trim())
    .filter((value) => value !== '');
}

async function sealedFieldTypes(file: string): Promise<string[]> {
  const json = await tool('qpdf', ['--json', '--json-key=acroform', file]);
  return (JSON.parse(json.stdout) as { acroform: { fields: { fieldtype: string }[] } }).acroform.fields.map((field) => field.fieldtype);
}

const normalize = (text: string) => text.replace(/\s+/g, ' ');
/** A recipient of a draft (docs/api.md#recipients). */
const created = { routingOrder: 1, status: 'created', actedAt: null, declineReason: null, lastEmail: null, locale: null, delivery: ['email'], authentication: { method: 'none' } };

describe.each([
  ['fill_form.pdf', 'fetch'],
  ['normal.pdf', 'BlockBlobClient'],
  ['us_constitution.pdf', 'fetch'],
])('%s uploaded with %s', (file, uploader) => {
  test('goes from upload to a sealed PDF whose hash and signature verify', async () => {
    const original = await corpusPdf(file);
    const ticket = await api.request('POST', '/GetUploadUrl', { token: user.token, json: { filename: file, mimetype: 'application/pdf' } });
    expect(ticket.status).toBe(201);
    expect(ticket.body).toEqual(expect.objectContaining({ envelopeId: expect.any(String), blobName: `${ticket.body.envelopeId}/${file}` }));
    expect(ticket.headers.get('cache-control')).toBe('no-store');

    if (uploader === 'fetch') {
      expect((await putToSas(ticket.body.uploadUrl, original)).status).toBe(201);
    } else {
      await new BlockBlobClient(ticket.body.uploadUrl).uploadData(original, { blobHTTPHeaders: { blobContentType: 'application/pdf' } });
    }

    const id = ticket.body.envelopeId as string;
    const draft = await api.request('GET', `/envelopes/${id}`, { token: user.token });
    expect(draft.status).toBe(200);
    expect(draft.body).toMatchObject({ id, status: 'draft', ownerId: user.userId, documentName: file, signers: [], completedAt: null, signedUrl: null, hash: null });
    const documentDownload = await fetch(draft.body.documentUrl);
    expect(Buffer.from(await documentDownload.arrayBuffer()).equals(original)).toBe(true);

    const updated = await api.request('PUT', `/envelopes/${id}`, {
      token: user.token,
      json: { signers: [{ email: 'Ada@Example.com', name: 'Ada Lovelace', role: 'signer' }, { email: 'cc@example.com', name: 'Charles', role: 'cc' }] },
    });
    expect(updated.status).toBe(200);
    expect(updated.body.signers).toEqual([
      { id: expect.any(String), recipientId: updated.body.signers[0].id, email: 'ada@example.com', name: 'Ada Lovelace', role: 'signer', ...created },
      { id: expect.any(String), recipientId: updated.body.signers[1].id, email: 'cc@example.com', name: 'Charles', role: 'cc', ...created },
    ]);

    const completed = await api.request('POST', `/envelopes/${id}/complete`, { token: user.token });
    expect(completed.status).toBe(200);
    expect(completed.body).toEqual({
      message: expect.any(String),
      signedUrl: expect.any(String),
      hash: expect.stringMatching(/^[0-9a-f]{64}$/),
      documents: [{ id, name: expect.any(String), signedUrl: expect.any(String), hash: completed.body.hash }],
    });

    const sealed = Buffer.from(await (await fetch(completed.body.signedUrl)).arrayBuffer());
    expect(createHash('sha256').update(sealed).digest('hex')).toBe(completed.body.hash);
    const sealedFile = await tempFile(sealed);

    const signatures = await tool('pdfsig', ['-nocert', sealedFile]);
    const ownSignature = signatures.stdout.split(/Signature #\d+:/).at(-1) ?? '';
    expect(ownSignature).toContain('Signature Validation: Signature is Valid.');
    expect(ownSignature).toContain('Total document signed');
    expect(ownSignature).toContain('ETSI.CAdES.detached');

    // qpdf exits 0 when clean, 3 with warnings, 2 with errors. Warnings the original already had
    // (normal.pdf has some) may stay; nothing new may appear.
    const originalFile = await tempFile(original);
    const check = await tool('qpdf', ['--check', sealedFile]);
    const originalCheck = await tool('qpdf', ['--check', originalFile]);
    expect([0, 3]).toContain(check.code);
    const warnings = (result: { stderr: string }, file: string) =>
      result.stderr.split('\n').filter((line) => line.startsWith('WARNING')).map((line) => line.replace(file, 'FILE'));
    const originalWarnings = new Set(warnings(originalCheck, originalFile));
    expect(warnings(check, sealedFile).filter((line) => !originalWarnings.has(line))).toEqual([]);

    expect((await sealedFieldTypes(sealedFile)).every((type) => type === '/Sig')).toBe(true);
    const text = normalize((await tool('pdftotext', [sealedFile, '-'])).stdout);
    // Multi-line values are laid out line by line, so each line must be visible.
    const valueLines = (await formTextValues(originalFile)).flatMap((value) => value.split(/[\r\n]+/)).map(normalize).filter((line) => line.trim() !== '');
    for (const line of valueLines) expect(text).toContain(line.trim());
    expect(text).toContain(id);

    const after = await api.request('GET', `/envelopes/${id}`, { token: user.token });
    expect(after.body).toMatchObject({ status: 'completed', hash: completed.body.hash, completedAt: expect.any(String), signedUrl: expect.any(String) });

    const again = await api.request('POST', `/envelopes/${id}/complete`, { token: user.token, headers: { 'If-Match': '"1"' } });
    expect(again.status).toBe(200);
    expect(again.body.hash).toBe(completed.body.hash);
  });
});

test('the form-filled corpus document really has text values to check', async () => {
  // Guards the flow test above against passing vacuously.
  expect((await formTextValues(await tempFile(await corpusPdf('fill_form.pdf')))).length).toBeGreaterThan(0);
});
