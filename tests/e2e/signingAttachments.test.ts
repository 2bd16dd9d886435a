/**
 * Files from signers (docs/api.md#files-from-signers), over real HTTP against Azurite: `attachment`
 * and `image` fields, the upload (`POST /api/signing/attachments?fieldId=`) with each of its
 * refusals storing nothing, the value `{attachmentId}` at complete, what later recipients see (no
 * URL), the owner's read (a read-only URL of the very bytes), another organisation's 404, and every
 * upload, used or not, gone with the envelope's purge.
 */
import { createHash, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { getServices } from '../../src/lib/services.js';
import { corpusPdf, createEnvelopeWithDocument, expectType, startTestService, type TestService, type TestUser } from '../support/service.js';
import { sentEnvelope, signingTokenFor } from '../support/signing.js';
import { png } from '../support/images.js';
import { tempFile, tool } from '../support/tools.js';
import { mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

let env: TestService;
let owner: TestUser;

beforeAll(async () => {
  env = await startTestService();
  owner = await env.newUser();
});
afterAll(async () => {
  await env?.close();
});

function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** The blob names under the envelope's prefix in container `originals` (its frozen copy and its attachments). */
async function originalsOf(envelopeId: string): Promise<string[]> {
  const names: string[] = [];
  for await (const blob of getServices().storage.containers.originals.listBlobsFlat({ prefix: `${envelopeId}/` })) names.push(blob.name);
  return names.sort();
}

/**
 * A sent envelope: signer A (first) with an attachment field taking PDFs and PNGs, an image field and
 * a small attachment field (`maxBytes` 100); signer B (second, sequential) with a signature field.
 */
async function packet(): Promise<{ id: string; fields: { attachment: string; image: string; small: string; signatureA: string; signatureB: string }; tokenA: string; tokenB: () => Promise<string> }> {
  const a = `a-${randomUUID()}@example.com`;
  const b = `b-${randomUUID()}@example.com`;
  const { id, envelope } = await sentEnvelope(env.api, owner, {
    signers: [{ email: a, name: 'Ada Signer' }, { email: b, name: 'Bob Later', routingOrder: 2 }],
    signingOrder: 'sequential',
    fields: [
      { recipient: 0, type: 'attachment', page: 1, x: 0.1, y: 0.1, width: 0.3, height: 0.05, label: 'Passport', accept: ['application/pdf', 'image/png'] },
      { recipient: 0, type: 'image', page: 1, x: 0.1, y: 0.2, width: 0.3, height: 0.2, label: 'Photo' },
      { recipient: 0, type: 'attachment', page: 1, x: 0.1, y: 0.5, width: 0.3, height: 0.05, required: false, maxBytes: 100 },
      { recipient: 0, type: 'signature', page: 1, x: 0.1, y: 0.6, width: 0.3, height: 0.06 },
      { recipient: 1, type: 'signature', page: 1, x: 0.5, y: 0.6, width: 0.3, height: 0.06 },
    ],
  });
  const [attachment, image, small, signatureA, signatureB] = (envelope.fields as { id: string }[]).map((field) => field.id) as [string, string, string, string, string];
  return { id, fields: { attachment, image, small, signatureA, signatureB }, tokenA: await signingTokenFor(owner.userId, id, a), tokenB: async () => await signingTokenFor(owner.userId, id, b) };
}

function upload(token: string, fieldId: string, bytes: Uint8Array, contentType: string, disposition?: string) {
  return env.api.request('POST', `/signing/attachments?fieldId=${fieldId}`, { token, body: bytes, headers: { 'Content-Type': contentType, ...(disposition === undefined ? {} : { 'Content-Disposition': disposition }) } });
}

describe('attachment and image fields', () => {
  test('the fields keep accept and maxBytes; a rule on a type that does not take it, or a prefilled file, is 400', async () => {
    const { id } = await packet();
    const envelope = (await env.api.request('GET', `/envelopes/${id}`, { token: owner.token })).body;
    expect(envelope.fields.map((field: any) => [field.type, field.accept, field.maxBytes])).toEqual([
      ['attachment', ['application/pdf', 'image/png'], undefined],
      ['image', undefined, undefined],
      ['attachment', undefined, 100],
      ['signature', undefined, undefined],
      ['signature', undefined, undefined],
    ]);
    const draft = await createEnvelopeWithDocument(env.api, owner, null);
    const signer = randomUUID();
    const put = (field: Record<string, unknown>) =>
      env.api.request('PUT', `/envelopes/${draft}`, { token: owner.token, json: { signers: [{ id: signer, email: 'x@example.com', name: 'X' }], fields: [{ recipientId: signer, page: 1, x: 0.1, y: 0.1, width: 0.2, height: 0.1, ...field }] } });
    for (const [field, path] of [
      [{ type: 'text', accept: ['application/pdf'] }, 'fields.0.accept'],
      [{ type: 'signature', maxBytes: 1000 }, 'fields.0.maxBytes'],
      [{ type: 'attachment', accept: ['text/plain'] }, 'fields.0.accept.0'],
      [{ type: 'attachment', accept: ['image/png', 'image/png'] }, 'fields.0.accept'],
      [{ type: 'attachment', maxBytes: 10 * 1024 * 1024 + 1 }, 'fields.0.maxBytes'],
      [{ type: 'image', value: 'photo.png' }, 'fields.0.value'],
    ] as const) {
      const answer = await put(field);
      expectType(answer, 400, 'validation-failed');
      expect([field, answer.body.errors.map((error: { path: string }) => error.path)]).toEqual([field, [path]]);
    }
    expect((await put({ type: 'image', maxBytes: 5000 })).status).toBe(200);
  });
});

describe('POST /api/signing/attachments', () => {
  test('a PDF and a PNG: 201 with name, type, size and SHA-256; the signer completes with {attachmentId}; a later signer sees name, type and size only; the owner reads the very bytes', async () => {
    const { id, fields, tokenA, tokenB } = await packet();
    const pdf = await corpusPdf('normal.pdf');
    const photo = png(40, 30);

    const first = await upload(tokenA, fields.attachment, pdf, 'application/pdf', 'attachment; filename="ignored.pdf"; filename*=UTF-8\'\'Passport%20scan%20%C3%A9.pdf');
    expect(first.status).toBe(201);
    expect(first.headers.get('cache-control')).toBe('no-store');
    expect(first.body).toEqual({ attachmentId: expect.any(String), name: 'Passport scan é.pdf', contentType: 'application/pdf', size: expect.any(Number), sha256: expect.stringMatching(/^[0-9a-f]{64}$/) });
    const second = await upload(tokenA, fields.image, photo, 'image/png');
    expect(second.status).toBe(201);
    expect(second.body).toEqual({ attachmentId: expect.any(String), name: 'attachment-2.png', contentType: 'image/png', size: photo.length, sha256: sha256(photo) });
    const third = await upload(tokenA, fields.attachment, photo, 'image/png', 'attachment; filename="C:\\\\scans\\\\id.png"');
    expect(third.body.name).toBe('id.png');
    // The owner's list holds only files a signer's recorded values name: none before Finish.
    expect((await env.api.request('GET', `/envelopes/${id}/attachments`, { token: owner.token })).body).toEqual({ attachments: [] });

    const signed = await env.api.request('POST', '/signing/complete', {
      token: tokenA,
      json: { consent: true, values: [{ fieldId: fields.attachment, value: { attachmentId: first.body.attachmentId } }, { fieldId: fields.image, value: { attachmentId: second.body.attachmentId } }, { fieldId: fields.signatureA, value: { typed: 'Ada Signer' } }] },
    });
    expect(signed.status).toBe(200);
    expect(signed.body.recipient.status).toBe('signed');

    const later = (await env.api.request('GET', '/signing', { token: await tokenB() })).body;
    const shown = Object.fromEntries(later.filled.filter((entry: any) => entry.type === 'attachment' || entry.type === 'image').map((entry: any) => [entry.fieldId, entry.value]));
    expect(shown).toEqual({
      [fields.attachment]: { attachmentId: first.body.attachmentId, name: 'Passport scan é.pdf', contentType: 'application/pdf', size: first.body.size },
      [fields.image]: { attachmentId: second.body.attachmentId, name: 'attachment-2.png', contentType: 'image/png', size: photo.length },
    });
    expect(JSON.stringify(later.filled)).not.toContain('http');

    const listed = await env.api.request('GET', `/envelopes/${id}/attachments`, { token: owner.token });
    expect(listed.status).toBe(200);
    const entry = (uploaded: any, fieldId: string, fieldType: string, fieldLabel: string) => ({ ...uploaded, fieldId, fieldType, fieldLabel, documentId: expect.any(String), recipientId: expect.any(String), recipientName: expect.any(String), uploadedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) });
    // In the envelope's field order; the replaced third upload is not among them.
    expect(listed.body.attachments).toEqual([entry(first.body, fields.attachment, 'attachment', 'Passport'), entry(second.body, fields.image, 'image', 'Photo')]);
    expect(JSON.stringify(listed.body)).not.toContain(third.body.attachmentId);

    for (const uploaded of [first.body, second.body]) {
      const read = await env.api.request('GET', `/envelopes/${id}/attachments/${uploaded.attachmentId}`, { token: owner.token });
      expect(read.status).toBe(200);
      expect(Object.keys(read.body)).toEqual(['url']);
      expect(new URL(read.body.url).searchParams.get('sp')).toBe('r');
      const fetched = await fetch(read.body.url);
      const bytes = new Uint8Array(await fetched.arrayBuffer());
      expect([fetched.status, sha256(bytes), bytes.length]).toEqual([200, uploaded.sha256, uploaded.size]);
    }
  });

  test('each refusal: 400 not an attachment field, 415 a type the field does not take or bytes of another type, 422 a damaged image or one over 50 megapixels, 413 over maxBytes; nothing is stored', async () => {
    const { id, fields, tokenA } = await packet();
    const before = await originalsOf(id);
    const pdf = await corpusPdf('normal.pdf');
    const refusals: [Promise<any>, number, string][] = [
      [upload(tokenA, fields.signatureA, png(2, 2), 'image/png'), 400, 'validation-failed'],
      [upload(tokenA, fields.signatureB, png(2, 2), 'image/png'), 400, 'validation-failed'],
      [env.api.request('POST', '/signing/attachments', { token: tokenA, body: png(2, 2), headers: { 'Content-Type': 'image/png' } }), 400, 'validation-failed'],
      [upload(tokenA, fields.attachment, png(2, 2), 'image/jpeg'), 415, 'attachment-type'],
      [upload(tokenA, fields.image, pdf, 'application/pdf'), 415, 'attachment-type'],
      [upload(tokenA, fields.attachment, pdf, 'image/png'), 415, 'attachment-type'],
      [upload(tokenA, fields.image, png(2, 2), 'image/jpeg'), 415, 'attachment-type'],
      [upload(tokenA, fields.image, png(4, 4).subarray(0, 40), 'image/png'), 422, 'attachment-damaged'],
      [upload(tokenA, fields.image, Buffer.from([0xff, 0xd8, 0xff, 0xd9]), 'image/jpeg'), 422, 'attachment-damaged'],
      [upload(tokenA, fields.image, png(1, 1, { width: 10_000, height: 5_001 }), 'image/png'), 422, 'image-too-many-pixels'],
      [upload(tokenA, fields.attachment, Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(200, 0x41)]), 'application/pdf'), 422, 'document-damaged'],
      [upload(tokenA, fields.small, pdf, 'application/pdf'), 413, 'attachment-too-large'],
    ];
    for (const [answer, status, slug] of refusals) {
      const response = await answer;
      expect([response.status, response.body.type]).toEqual([status, `urn:problem:${slug}`]);
    }
    expect(await originalsOf(id)).toEqual(before);
    // An image of exactly 50 megapixels is taken.
    expect((await upload(tokenA, fields.image, png(1, 1, { width: 10_000, height: 5_000 }), 'image/png')).status).toBe(201);
  });

  test('complete: a required attachment needs a value; another field\'s or an unknown attachmentId is 400 with rule attachment', async () => {
    const { fields, tokenA } = await packet();
    const photo = await upload(tokenA, fields.image, png(3, 3), 'image/png');
    const complete = (values: unknown[]) => env.api.request('POST', '/signing/complete', { token: tokenA, json: { consent: true, values } });
    const missing = await complete([{ fieldId: fields.image, value: { attachmentId: photo.body.attachmentId } }, { fieldId: fields.signatureA, value: { typed: 'Ada' } }]);
    expectType(missing, 400, 'validation-failed');
    expect(missing.body.errors).toEqual([expect.objectContaining({ fieldId: fields.attachment, rule: 'required' })]);
    const wrong = await complete([
      { fieldId: fields.attachment, value: { attachmentId: photo.body.attachmentId } },
      { fieldId: fields.image, value: { attachmentId: randomUUID() } },
      { fieldId: fields.signatureA, value: { typed: 'Ada' } },
    ]);
    expectType(wrong, 400, 'validation-failed');
    expect(wrong.body.errors.map((error: any) => [error.path, error.rule])).toEqual([
      ['values.0.value', 'attachment'],
      ['values.1.value', 'attachment'],
    ]);
    const signature = await complete([{ fieldId: fields.attachment, value: 'passport.pdf' }, { fieldId: fields.image, value: { attachmentId: photo.body.attachmentId } }, { fieldId: fields.signatureA, value: { attachmentId: photo.body.attachmentId } }]);
    expect(signature.body.errors.map((error: any) => [error.path, error.rule])).toEqual([
      ['values.0.value', 'type'],
      ['values.2.value', 'type'],
    ]);
  });

  test('once the signer has signed, another upload is 409 already-acted', async () => {
    const { fields, tokenA } = await packet();
    const photo = await upload(tokenA, fields.image, png(2, 2), 'image/png');
    const pdf = await upload(tokenA, fields.attachment, await corpusPdf('normal.pdf'), 'application/pdf');
    const values = [{ fieldId: fields.attachment, value: { attachmentId: pdf.body.attachmentId } }, { fieldId: fields.image, value: { attachmentId: photo.body.attachmentId } }, { fieldId: fields.signatureA, value: { typed: 'Ada' } }];
    expect((await env.api.request('POST', '/signing/complete', { token: tokenA, json: { consent: true, values } })).status).toBe(200);
    expectType(await upload(tokenA, fields.image, png(2, 2), 'image/png'), 409, 'already-acted');
  });
});

/** A qpdf JSON object by reference (`"12 0 R"`), its stream's dictionary for a stream; a direct value as it is. */
function qpdfObject(objects: Record<string, { value?: unknown; stream?: { dict: Record<string, unknown> } }>, ref: unknown): Record<string, unknown> {
  const entry = typeof ref === 'string' ? objects[`obj:${ref}`] : undefined;
  if (entry === undefined) return ref as Record<string, unknown>;
  return (entry.stream?.dict ?? entry.value) as Record<string, unknown>;
}

describe('completion', () => {
  test('every file is embedded in the sealed PDF under the seal as an associated file (/AF, /Supplement, its MIME type), the very bytes; the image is drawn in its field; the certificate lists each; the ZIP holds them under attachments/', async () => {
    const { id, fields, tokenA, tokenB } = await packet();
    const pdf = await corpusPdf('normal.pdf');
    const photo = png(60, 20);
    const passport = await upload(tokenA, fields.attachment, pdf, 'application/pdf', 'attachment; filename="passport.pdf"');
    const picture = await upload(tokenA, fields.image, photo, 'image/png', 'attachment; filename="photo.png"');
    const values = [{ fieldId: fields.attachment, value: { attachmentId: passport.body.attachmentId } }, { fieldId: fields.image, value: { attachmentId: picture.body.attachmentId } }, { fieldId: fields.signatureA, value: { typed: 'Ada Signer' } }];
    expect((await env.api.request('POST', '/signing/complete', { token: tokenA, json: { consent: true, values } })).status).toBe(200);
    const last = await env.api.request('POST', '/signing/complete', { token: await tokenB(), json: { consent: true, values: [{ fieldId: fields.signatureB, value: { typed: 'Bob Later' } }] } });
    expect(last.body.envelope.status).toBe('completed');

    const sealed = new Uint8Array(await (await fetch(last.body.signedUrl)).arrayBuffer());
    const file = await tempFile(sealed, 'sealed.pdf');
    const listing = (await tool('qpdf', ['--list-attachments', '--verbose', file])).stdout;
    expect(listing).toMatch(/^passport\.pdf -> /m);
    expect(listing).toMatch(/^photo\.png -> /m);
    expect(listing).toMatch(/mime type: application\/pdf$/m);
    expect(listing).toMatch(/mime type: image\/png$/m);
    const json = JSON.parse((await tool('qpdf', ['--json=2', '--json-key=qpdf', file])).stdout) as { qpdf: [unknown, Record<string, { value?: unknown; stream?: { dict: Record<string, unknown> } }>] };
    const objects = json.qpdf[1];
    const catalog = qpdfObject(objects, (objects.trailer!.value as Record<string, unknown>)['/Root']);
    const associated = (qpdfObject(objects, catalog['/AF']) as unknown as string[]).map((ref) => qpdfObject(objects, ref));
    expect(associated.map((spec) => [spec['/UF'], spec['/AFRelationship']]).sort()).toEqual([
      ['u:audit.json', '/Supplement'],
      ['u:passport.pdf', '/Supplement'],
      ['u:photo.png', '/Supplement'],
    ]);
    const out = await mkdtemp(path.join(os.tmpdir(), 'attachments-'));
    expect((await tool('pdfdetach', ['-saveall', '-o', out, file])).code).toBe(0);
    expect(sha256(await readFile(path.join(out, 'passport.pdf')))).toBe(passport.body.sha256);
    expect(sha256(await readFile(path.join(out, 'photo.png')))).toBe(sha256(photo));
    // The certificate lists each: field, name, type, size in bytes grouped for the locale, SHA-256, who uploaded it and when.
    const text = (await tool('pdftotext', [file, '-'])).stdout;
    const squeezed = text.replace(/\s+/g, '');
    expect(text).toContain('Files from signers (2)');
    for (const [label, name, type, bytes, hash] of [['Passport', 'passport.pdf', 'application/pdf', passport.body.size, passport.body.sha256], ['Photo', 'photo.png', 'image/png', photo.length, sha256(photo)]] as const) {
      expect(squeezed).toContain(`Field${label}`);
      expect(squeezed).toContain(name);
      expect(squeezed).toContain(type);
      expect(squeezed).toContain(`${new Intl.NumberFormat('en').format(bytes)}bytes`.replace(/\s+/g, ''));
      expect(squeezed).toContain(hash);
    }
    expect(passport.body.size).toBeGreaterThan(999);
    expect(squeezed).toContain(`AdaSigner<${(await env.api.request('GET', `/envelopes/${id}`, { token: owner.token })).body.signers[0].email}>`);
    // The image is drawn in its field (x 0.1, y 0.2, 0.3 × 0.2 of the page): 3:1, as wide as the field, centred
    // top to bottom; its grey (64) at the field's centre, not just inside the field's top edge.
    const rendered = path.join(out, 'page');
    expect((await tool('pdftoppm', ['-f', '1', '-l', '1', '-r', '36', '-gray', '-singlefile', file, rendered])).code).toBe(0);
    const pgm = await readFile(`${rendered}.pgm`);
    const [, width, height] = /^P5\s+(\d+)\s+(\d+)\s+255\s/.exec(pgm.toString('latin1', 0, 40))!.map(Number) as [number, number, number];
    const pixels = pgm.subarray(pgm.length - width * height);
    const grey = (x: number, y: number) => pixels[Math.floor(y * height) * width + Math.floor(x * width)]!;
    expect(Math.abs(grey(0.25, 0.3) - 64)).toBeLessThan(12);
    expect(Math.abs(grey(0.12, 0.3) - 64)).toBeLessThan(12);
    expect(Math.abs(grey(0.25, 0.205) - 64)).toBeGreaterThan(20);
    const signatures = (await tool('pdfsig', ['-nocert', file])).stdout;
    expect(signatures).toContain('Signature is Valid.');
    expect(signatures).toContain('Total document signed');

    const download = await fetch(`${env.api.apiUrl}/envelopes/${id}/download`, { headers: { Authorization: `Bearer ${owner.token}` } });
    const zip = path.join(out, 'envelope.zip');
    await writeFile(zip, new Uint8Array(await download.arrayBuffer()));
    expect((await tool('unzip', ['-t', zip])).code).toBe(0);
    const unzipped = path.join(out, 'unzipped');
    expect((await tool('unzip', ['-q', zip, '-d', unzipped])).code).toBe(0);
    expect((await readdir(path.join(unzipped, 'attachments'))).sort()).toEqual(['passport.pdf', 'photo.png']);
    expect(sha256(await readFile(path.join(unzipped, 'attachments', 'photo.png')))).toBe(sha256(photo));
  });
});

describe('GET /api/envelopes/{id}/attachments and /attachments/{attachmentId}', () => {
  test('an unknown attachment is 404 attachment-not-found; another organisation\'s envelope 404 envelope-not-found', async () => {
    const { id, fields, tokenA } = await packet();
    const photo = await upload(tokenA, fields.image, png(2, 2), 'image/png');
    expectType(await env.api.request('GET', `/envelopes/${id}/attachments/${randomUUID()}`, { token: owner.token }), 404, 'attachment-not-found');
    expectType(await env.api.request('GET', `/envelopes/${id}/attachments/not-a-uuid`, { token: owner.token }), 404, 'attachment-not-found');
    const stranger = await env.newUser();
    expectType(await env.api.request('GET', `/envelopes/${id}/attachments/${photo.body.attachmentId}`, { token: stranger.token }), 404, 'envelope-not-found');
    expectType(await env.api.request('GET', `/envelopes/${id}/attachments`, { token: stranger.token }), 404, 'envelope-not-found');
  });

  test('deleting the voided envelope purges every upload with it, used or not; the read is then 409 documents-purged', async () => {
    const { id, fields, tokenA } = await packet();
    const photo = await upload(tokenA, fields.image, png(2, 2), 'image/png');
    await upload(tokenA, fields.attachment, png(2, 2), 'image/png');
    expect((await originalsOf(id)).filter((name) => name.startsWith(`${id}/attachments/`))).toHaveLength(2);
    expect((await env.api.request('PATCH', `/envelopes/${id}`, { token: owner.token, json: { status: 'voided' } })).status).toBe(200);
    expect((await env.api.request('DELETE', `/envelopes/${id}`, { token: owner.token })).status).toBe(204);
    expect(await originalsOf(id)).toEqual([]);
    expectType(await env.api.request('GET', `/envelopes/${id}/attachments/${photo.body.attachmentId}`, { token: owner.token }), 409, 'documents-purged');
    expectType(await env.api.request('GET', `/envelopes/${id}/attachments`, { token: owner.token }), 409, 'documents-purged');
  });
});
