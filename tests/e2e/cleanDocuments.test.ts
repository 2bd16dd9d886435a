/**
 * Clean documents (docs/api.md#what-the-service-removes-from-documents-and-why): the frozen copy loses every kind of active content, and so
 * does the sealed PDF made from it, while URI links stay; `envelope.sent` records what was removed;
 * hidden optional content and storage copies of other blobs are refused and change nothing; a
 * document that already carries a signature is cleaned without breaking it. What the files hold is
 * read back with tools nobody here wrote: `qpdf --json` (every object the cross-reference table
 * lists), `mutool show`, `pdfsig`, `pdftotext`, PDF.js. Content printed but not shown on screen is
 * refused like hidden layers.
 */
import { createHash } from 'node:crypto';
import { BlockBlobClient } from '@azure/storage-blob';
import { describe, expect, test } from '@jest/globals';
import { getServices } from '../../src/lib/services.js';
import { KEPT_LINK, pdfFromObjects, pdfWithActiveContent, pdfWithLayer, withCatalogUpdate } from '../pdf/craftedPdfs.js';
import { pdfJsActiveContent, qpdfContents } from '../pdf/pdfTools.js';
import { corpusPdf, createEnvelopeWithDocument, expectProblem, serviceForFile, type ApiResponse, type TestService, type TestUser } from '../support/service.js';
import { auditTrail, sentEnvelope, signingTokenFor } from '../support/signing.js';
import { tempFile, tool } from '../support/tools.js';
import { ada } from '../support/people.js';
import { withoutUrls } from '../support/contract.js';

let env: TestService;
let owner: TestUser;
serviceForFile((started) => ({ env, owner } = started));

const sha256 = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');
const download = async (url: string): Promise<Buffer> => Buffer.from(await (await fetch(url)).arrayBuffer());
const get = (id: string): Promise<ApiResponse<any>> => env.api.request('GET', `/envelopes/${id}`, { token: owner.token });
/** The envelope as stored, without its freshly signed read URLs (`documentUrl`, each of `documents[].documentUrl`). */
const stored = async (id: string): Promise<unknown> => withoutUrls((await get(id)).body as Record<string, unknown>);
const sign = async (id: string, email: string): Promise<ApiResponse<any>> =>
  env.api.request('POST', '/signing/complete', { token: await signingTokenFor(owner.userId, id, email), json: { consent: true } });

/** Names that mark active content (docs/api.md#what-the-service-removes-from-documents-and-why), as keys or values in any object. */
const ACTIVE_NAMES = [
  '/JavaScript', '/JS', '/Launch', '/ImportData', '/SubmitForm', '/ResetForm', '/GoToR', '/GoToE', '/Rendition', '/GoTo3DView',
  '/AA', '/EF', '/EmbeddedFile', '/EmbeddedFiles', '/FileAttachment', '/RichMedia', '/RichMediaContent', '/XFA', '/3D', '/3DD', '/NeedsRendering',
];

async function qpdfContentsOf(bytes: Uint8Array): Promise<{ names: Set<string>; strings: Set<string> }> {
  return await qpdfContents(await tempFile(bytes));
}

/**
 * The names of the one embedded file a sealed PDF holds of its own: its audit trail, `audit.json`
 * (docs/api.md#chained-audit-trail), added under the seal; nothing of the upload's.
 */
const AUDIT_TRAIL_NAMES = ['/EF', '/EmbeddedFile', '/EmbeddedFiles'];

/** The names of the files embedded in `bytes`, as `qpdf --list-attachments` lists them. */
async function attachmentNames(bytes: Uint8Array): Promise<string[]> {
  const listed = await tool('qpdf', ['--list-attachments', await tempFile(bytes)]);
  return listed.stdout.split('\n').flatMap((line) => /^(\S.*?) -> /.exec(line)?.[1] ?? []);
}

/**
 * Checks that `bytes` hold no active content and keep the URI link and the page text; a sealed PDF
 * (`sealed`) may hold one embedded file, the service's own `audit.json`, and no other.
 */
async function expectClean(bytes: Uint8Array, { sealed = false }: { sealed?: boolean } = {}): Promise<void> {
  const { names, strings } = await qpdfContentsOf(bytes);
  expect(ACTIVE_NAMES.filter((name) => names.has(name) && !(sealed && AUDIT_TRAIL_NAMES.includes(name)))).toEqual([]);
  expect(await attachmentNames(bytes)).toEqual(sealed ? ['audit.json'] : []);
  expect(names.has('/URI')).toBe(true);
  expect(strings.has(KEPT_LINK)).toBe(true);
  // Nothing removed survives in an older revision or unreferenced: not even in the raw bytes.
  const raw = Buffer.from(bytes).toString('latin1');
  for (const marker of ['/JavaScript', 'cmd.exe', 'MZ embedded executable', 'attacker.example', 'xdp:xdp', 'U3D model']) expect(raw).not.toContain(marker);
  const file = await tempFile(bytes);
  expect((await tool('pdftotext', [file, '-'])).stdout).toContain('Visible page text');
  // MuPDF reads it too, and its catalog names no action, name tree or XFA form.
  const catalog = await tool('mutool', ['show', file, 'trailer/Root']);
  expect(catalog.code).toBe(0);
  expect(catalog.stdout).not.toMatch(sealed ? /\/OpenAction|\/AA|\/XFA|\/JavaScript/ : /\/OpenAction|\/AA|\/XFA|\/JavaScript|\/EmbeddedFiles/);
}

describe('sending cleans the frozen copy (docs/api.md#what-the-service-removes-from-documents-and-why)', () => {
  test('every kind of active content is gone from the frozen copy and from the sealed PDF; the URI link stays; envelope.sent records what was removed', async () => {
    const upload = pdfWithActiveContent();
    // The crafted upload does hold what must go, as qpdf reads it.
    const before = await qpdfContentsOf(upload);
    expect(ACTIVE_NAMES.filter((name) => !before.names.has(name) && name !== '/GoTo3DView' && name !== '/NeedsRendering' && name !== '/EmbeddedFile')).toEqual([]);

    const { id, envelope } = await sentEnvelope(env.api, owner, { signers: [ada], pdf: upload });
    const frozen = await download(envelope.documentUrl);
    expect(envelope.documentSha256).toBe(sha256(frozen));
    expect(envelope.documentSha256).not.toBe(sha256(upload));
    await expectClean(frozen);
    // Written whole: not an update appended to the upload.
    expect(frozen.subarray(0, upload.length).equals(upload)).toBe(false);

    const sent = (await auditTrail(env.api, owner, id)).find((event) => event.type === 'envelope.sent');
    expect(sent.details).toEqual({
      documentSha256: envelope.documentSha256,
      uploadSha256: sha256(upload),
      pageCount: 1,
      removed: ['javascript', 'launch', 'importData', 'submitForm', 'resetForm', 'goToR', 'goToE', 'rendition', 'additionalActions', 'embeddedFile', 'fileAttachment', 'richMedia', 'xfa', '3d'],
    });

    const completed = await sign(id, ada.email);
    expect(completed.status).toBe(200);
    const sealed = await download(completed.body.signedUrl);
    expect(sha256(sealed)).toBe((await get(id)).body.hash);
    // The seal is an incremental update of the frozen copy: it adds nothing back.
    expect(sealed.subarray(0, frozen.length).equals(frozen)).toBe(true);
    await expectClean(sealed, { sealed: true });
    expect((await tool('pdfsig', ['-nocert', await tempFile(sealed)])).stdout).toContain('Signature is Valid.');
  });

  test('a script behind an indirect action type, a field the form does not list and an embedded file on a form XObject are gone from the frozen copy and the sealed PDF, as PDF.js reads them', async () => {
    const upload = pdfFromObjects({
      1: { body: '<< /Type /Catalog /Pages 2 0 R /OpenAction 10 0 R /AcroForm << /Fields [] >> >>' },
      2: { body: '<< /Type /Pages /Kids [3 0 R] /Count 1 >>' },
      3: { body: `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> /XObject << /X1 30 0 R >> >> /Annots [20 0 R 23 0 R] >>` },
      4: { body: '<< >>', stream: 'BT /F1 18 Tf 72 700 Td (Visible page text) Tj ET\n/X1 Do\n' },
      5: { body: '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>' },
      10: { body: '<< /S 11 0 R /JS (app.alert\\(1\\)) >>' },
      11: { body: '/JavaScript' },
      20: { body: '<< /Type /Annot /Subtype /Widget /Rect [72 600 272 630] /P 3 0 R /Parent 21 0 R >>' },
      21: { body: '<< /FT /Tx /T (total) /Kids [20 0 R] /AA << /K 22 0 R >> >>' },
      22: { body: '<< /S /JavaScript /JS (app.alert\\(2\\)) >>' },
      23: { body: `<< /Type /Annot /Subtype /Link /Rect [72 500 272 530] /A << /S /URI /URI (${KEPT_LINK}) >> >>` },
      30: { body: '<< /Type /XObject /Subtype /Form /BBox [0 0 10 10] /AF [31 0 R] >>', stream: '0 0 10 10 re f' },
      31: { body: '<< /Type /Filespec /F (payload.exe) /EF << /F 32 0 R >> >>' },
      32: { body: '<< /Type /EmbeddedFile >>', stream: 'MZ embedded executable' },
    });
    // PDF.js, the signing page's engine, does find the scripts in the upload.
    expect(JSON.stringify(await pdfJsActiveContent(await tempFile(upload)))).toContain('app.alert');

    const { id, envelope } = await sentEnvelope(env.api, owner, { signers: [ada], pdf: upload });
    const frozen = await download(envelope.documentUrl);
    expect(envelope.documentSha256).not.toBe(sha256(upload));
    const nothing = { documentActions: null, fieldActions: {}, annotationActions: [], attachments: null };
    expect(await pdfJsActiveContent(await tempFile(frozen))).toEqual(nothing);
    expect((await auditTrail(env.api, owner, id)).find((event) => event.type === 'envelope.sent').details.removed).toEqual(['javascript', 'additionalActions', 'embeddedFile']);
    const completed = await sign(id, ada.email);
    expect(completed.status).toBe(200);
    const sealed = await download(completed.body.signedUrl);
    // PDF.js finds no action, and of attachments only the seal's own audit trail.
    const inSealed = await pdfJsActiveContent(await tempFile(sealed));
    expect({ ...inSealed, attachments: null }).toEqual(nothing);
    expect(Object.keys(inSealed.attachments ?? {})).toEqual(['audit.json']);
    await expectClean(sealed, { sealed: true });
  });

  test('completing a draft seals the cleaned document', async () => {
    const id = await createEnvelopeWithDocument(env.api, owner, pdfWithActiveContent());
    expect((await env.api.request('PUT', `/envelopes/${id}`, { token: owner.token, json: { signers: [ada] } })).status).toBe(200);
    const completed = await env.api.request('POST', `/envelopes/${id}/complete`, { token: owner.token });
    expect(completed.status).toBe(200);
    await expectClean(await download(completed.body.signedUrl), { sealed: true });
  });

  test('a document without active content is frozen byte for byte, with removed []', async () => {
    const upload = await corpusPdf('with_annots.pdf');
    const { id, envelope } = await sentEnvelope(env.api, owner, { signers: [ada], pdf: upload });
    expect(envelope.documentSha256).toBe(sha256(upload));
    expect((await auditTrail(env.api, owner, id)).find((event) => event.type === 'envelope.sent').details.removed).toEqual([]);
  });

  test('a signed document is cleaned by an incremental update: its signature stays valid, the cleaned revision refers to no script', async () => {
    const signed = await corpusPdf('signed_by_other_tool.pdf');
    const file = await tempFile(signed);
    const trailer = (await tool('qpdf', ['--show-object=trailer', file])).stdout;
    const root = Number(/\/Root (\d+) 0 R/.exec(trailer)?.[1]);
    const catalog = (await tool('qpdf', [`--show-object=${root}`, file])).stdout.trim();
    // Someone adds document JavaScript and an open action after the signature (a later revision).
    const upload = withCatalogUpdate(signed, { number: root, dictionary: catalog }, trailer, (number) => ({
      addition: `/OpenAction ${number(0)} 0 R`,
      objects: ['<< /S /JavaScript /JS (app.alert\\(1\\)) >>'],
    }));
    const uploaded = await tool('pdfsig', ['-nocert', await tempFile(upload)]);
    expect(uploaded.stdout).toContain('Signature is Valid.');

    const { id, envelope } = await sentEnvelope(env.api, owner, { signers: [ada], pdf: upload });
    const frozen = await download(envelope.documentUrl);
    expect(frozen.subarray(0, upload.length).equals(upload)).toBe(true);
    expect((await auditTrail(env.api, owner, id)).find((event) => event.type === 'envelope.sent').details.removed).toEqual(['javascript']);
    const frozenFile = await tempFile(frozen);
    expect((await tool('mutool', ['show', frozenFile, 'trailer/Root'])).stdout).not.toContain('/OpenAction');
    const frozenSignatures = (await tool('pdfsig', ['-nocert', frozenFile])).stdout;
    expect(frozenSignatures).toContain('Signature is Valid.');
    expect(frozenSignatures).not.toContain('Signature is Invalid');

    const completed = await sign(id, ada.email);
    expect(completed.status).toBe(200);
    const sealed = await tool('pdfsig', ['-nocert', await tempFile(await download(completed.body.signedUrl))]);
    expect(sealed.stdout.match(/Signature is Valid\./g)).toHaveLength(2);
  });
});

describe('documents that cannot be frozen (docs/api.md#what-the-service-removes-from-documents-and-why)', () => {
  /** Sends a draft with `upload` and expects 422 of `type`, with nothing changed. */
  async function expectRefusedSend(upload: Uint8Array, type: string): Promise<ApiResponse<any>> {
    const id = await createEnvelopeWithDocument(env.api, owner, upload);
    expect((await env.api.request('PUT', `/envelopes/${id}`, { token: owner.token, json: { signers: [ada] } })).status).toBe(200);
    const before = await stored(id);
    const eventsBefore = await auditTrail(env.api, owner, id);
    const refused = await env.api.request('PATCH', `/envelopes/${id}`, { token: owner.token, json: { status: 'sent' } });
    expectProblem(refused, 422);
    expect(refused.body.type).toBe(`urn:problem:${type}`);
    expect(await stored(id)).toEqual(before);
    expect(await auditTrail(env.api, owner, id)).toEqual(eventsBefore);
    expect(await getServices().storage.containers.originals.getBlockBlobClient(`${id}/contract.pdf`).exists()).toBe(false);
    const complete = await env.api.request('POST', `/envelopes/${id}/complete`, { token: owner.token });
    expectProblem(complete, 422);
    expect(complete.body.type).toBe(`urn:problem:${type}`);
    expect((await get(id)).body.status).toBe('draft');
    return refused;
  }

  test('a layer visible by default is accepted', async () => {
    const { envelope } = await sentEnvelope(env.api, owner, { signers: [ada], pdf: pdfWithLayer() });
    expect(envelope.status).toBe('sent');
  });

  test.each([
    ['off in the default configuration', { config: '/OFF [10 0 R]' }],
    ['off by the base state', { config: '/BaseState /OFF' }],
    ['named by an automatic state (/AS)', { config: '/AS [<< /Event /Print /Category [/Print] /OCGs [10 0 R] >>]' }],
    ['hidden when printed (/Usage)', { group: '/Usage << /Print << /PrintState /OFF >> >>' }],
    ['shown only at some zoom (/Usage)', { group: '/Usage << /Zoom << /min 2 >> >>' }],
    ['toggled by a script', { catalog: '/OpenAction << /S /JavaScript /JS (this.getOCGs\\(\\)[0].state = false) >>' }],
    ['switched off by an action at opening (SetOCGState)', { catalog: '/OpenAction << /S /SetOCGState /State [/OFF 10 0 R] >>' }],
    ['toggled by a page\'s additional action', { page: '/AA << /C << /S /SetOCGState /State [/Toggle 10 0 R] >> >>' }],
    [
      'hidden by a visibility expression in an annotation\'s appearance',
      {
        page: '/Annots [20 0 R]',
        objects: {
          20: { body: '<< /Type /Annot /Subtype /Stamp /Rect [72 500 272 530] /F 4 /AP << /N 21 0 R >> >>' },
          21: { body: '<< /Type /XObject /Subtype /Form /BBox [0 0 200 30] /Resources << /Properties << /M0 << /Type /OCMD /VE [/Not 10 0 R] >> >> >> >>', stream: '/OC /M0 BDC 0 0 200 30 re f EMC' },
        },
      },
    ],
  ])('a layer %s → 422 document-hidden-content naming it, nothing changed', async (_, layer) => {
    const refused = await expectRefusedSend(pdfWithLayer(layer), 'document-hidden-content');
    expect(refused.body.detail).toContain('"Hidden terms"');
  });

  test.each([
    ['a note', '/Subtype /Text /Contents (Printed only)', 'Text "Printed only" on page 1'],
    ['a form field', '/Subtype /Widget /FT /Tx /T (hidden clause) /V (agreed)', 'Widget "hidden clause" on page 1'],
  ])('%s printed but not shown on screen (flags Print and NoView) → 422 document-hidden-content naming it, nothing changed', async (_, annotation, named) => {
    const upload = pdfWithLayer({ page: '/Annots [20 0 R]', objects: { 20: { body: `<< /Type /Annot ${annotation} /Rect [72 500 272 530] /F 36 >>` } } });
    const refused = await expectRefusedSend(upload, 'document-hidden-content');
    expect(refused.body.detail).toContain(named);
    expect(refused.body.detail).not.toContain('"Hidden terms"');
  });

  test('an upload that is a storage copy of another blob (Copy Blob into the upload SAS) → 422 document-copied, nothing changed', async () => {
    // Someone holds another envelope's document link (read SAS) and copies it into their upload.
    const { envelope: source } = await sentEnvelope(env.api, owner, { signers: [ada], pdf: await corpusPdf('normal.pdf') });
    const ticket = await env.api.request('POST', '/GetUploadUrl', { token: owner.token, json: { filename: 'contract.pdf', mimetype: 'application/pdf' } });
    const copy = await new BlockBlobClient(ticket.body.uploadUrl).beginCopyFromURL(source.documentUrl);
    await copy.pollUntilDone();
    const properties = await getServices().storage.containers.documents.getBlockBlobClient(`${ticket.body.envelopeId}/contract.pdf`).getProperties();
    expect(properties.copyStatus).toBe('success');
    const id = ticket.body.envelopeId;
    expect((await env.api.request('PUT', `/envelopes/${id}`, { token: owner.token, json: { signers: [ada] } })).status).toBe(200);
    const before = await stored(id);
    const refused = await env.api.request('PATCH', `/envelopes/${id}`, { token: owner.token, json: { status: 'sent' } });
    expectProblem(refused, 422);
    expect(refused.body.type).toBe('urn:problem:document-copied');
    expect(await stored(id)).toEqual(before);
    expect(await getServices().storage.containers.originals.getBlockBlobClient(`${id}/contract.pdf`).exists()).toBe(false);
  });
});
