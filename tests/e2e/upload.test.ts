/**
 * Upload (docs/api.md#create-an-envelope-and-upload-its-document) over real HTTP and real Blob storage: GetUploadUrl's checks, what the upload SAS
 * allows (create and write of one blob, nothing else), and the checks of the document whenever it is
 * used (send, complete), none of which changes the envelope or deletes the blob.
 */
import { beforeAll, describe, expect, test } from '@jest/globals';
import { ApiClient, corpusPdf, expectProblem, fetchAnswer, putToSas, serviceForFile, type ApiResponse, type TestService, type TestUser } from '../support/service.js';
import { UUID_V7, withSettings, withoutUrls } from '../support/contract.js';

let env: TestService;
let api: ApiClient;
let user: TestUser;
let pdf: Buffer;
serviceForFile(async (started) => {
  ({ env, api, owner: user } = started);
  pdf = await corpusPdf('normal.pdf');
});

const signer = { email: 'ada@example.com', name: 'Ada Lovelace', role: 'signer' };

async function ticket(filename = 'contract.pdf', mimetype = 'application/pdf'): Promise<ApiResponse<any>> {
  return await api.request('POST', '/GetUploadUrl', { token: user.token, json: { filename, mimetype } });
}

async function get(id: string): Promise<ApiResponse<any>> {
  return await api.request('GET', `/envelopes/${id}`, { token: user.token });
}

/** A new envelope with `bytes` uploaded (none when `null`) and a signer, ready to send or complete. */
async function prepared(bytes: Uint8Array | null): Promise<{ id: string; uploadUrl: string }> {
  const created = await ticket();
  expect(created.status).toBe(201);
  if (bytes !== null) expect((await putToSas(created.body.uploadUrl, bytes)).status).toBe(201);
  expect((await api.request('PUT', `/envelopes/${created.body.envelopeId}`, { token: user.token, json: { signers: [signer] } })).status).toBe(200);
  return { id: created.body.envelopeId, uploadUrl: created.body.uploadUrl };
}

/**
 * Sends and completes the envelope, expecting `status` from both, and checks that neither changed the
 * envelope, its audit trail or its document blob.
 */
async function expectRefusedWithoutChange(id: string, status: number, bytes: Uint8Array | null, uses: ('send' | 'complete')[] = ['send', 'complete']): Promise<ApiResponse<any>[]> {
  const before = await get(id);
  const auditBefore = await api.request('GET', `/envelopes/${id}/audit`, { token: user.token });
  const answers: ApiResponse<any>[] = [];
  for (const use of uses) {
    const response = use === 'send'
      ? await api.request('PATCH', `/envelopes/${id}`, { token: user.token, json: { status: 'sent' } })
      : await api.request('POST', `/envelopes/${id}/complete`, { token: user.token });
    expectProblem(response, status);
    answers.push(response);
  }
  const after = await get(id);
  expect(after.headers.get('etag')).toBe(before.headers.get('etag'));
  expect(withoutUrls(after.body)).toEqual(withoutUrls(before.body));
  expect((await api.request('GET', `/envelopes/${id}/audit`, { token: user.token })).text).toBe(auditBefore.text);
  if (bytes === null) {
    expect((await fetchAnswer(after.body.documentUrl)).status).toBe(404);
  } else {
    const document = await fetch(after.body.documentUrl);
    expect(document.status).toBe(200);
    expect(Buffer.from(await document.arrayBuffer()).equals(Buffer.from(bytes))).toBe(true);
  }
  return answers;
}

describe('POST /api/GetUploadUrl (docs/api.md#create-an-envelope-and-upload-its-document)', () => {
  test('201 {uploadUrl, envelopeId, blobName}: a draft envelope with no signers, blob <envelopeId>/<filename> in documents', async () => {
    const response = await ticket('Lease.pdf');
    expect(response.status).toBe(201);
    const { envelopeId, blobName, uploadUrl } = response.body;
    expect(envelopeId).toMatch(UUID_V7);
    expect(blobName).toBe(`${envelopeId}/Lease.pdf`);
    expect(new URL(uploadUrl).pathname).toMatch(new RegExp(`/documents/${envelopeId}/Lease\\.pdf$`));
    const envelope = await get(envelopeId);
    expect(envelope.body).toMatchObject({ id: envelopeId, status: 'draft', signers: [], documentName: 'Lease.pdf', ownerId: user.userId });
  });

  test.each(['image/png', 'application/octet-stream', 'text/plain', 'application/pdfx', 'application/x-pdf'])('a mimetype of %s gets 415', async (mimetype) => {
    expectProblem(await ticket('a.pdf', mimetype), 415);
  });

  test.each([
    ['a forward slash', 'folder/a.pdf'],
    ['a backslash', 'folder\\a.pdf'],
    ['a parent reference', '../a.pdf'],
    ['only ..', '..'],
    ['a NUL', 'a\u0000.pdf'],
    ['a newline', 'a\nb.pdf'],
    ['a tab', 'a\tb.pdf'],
    ['a DEL', 'a\u007f.pdf'],
    ['201 characters', `${'a'.repeat(197)}.pdf`],
    ['no .pdf ending', 'contract.docx'],
    ['.pdf in the middle', 'contract.pdf.exe'],
    ['nothing but .pdf', '.pdf'],
    ['nothing', ''],
    ['a number', 42],
  ])('a filename with %s gets 400', async (_case, filename) => {
    const response = await api.request('POST', '/GetUploadUrl', { token: user.token, json: { filename, mimetype: 'application/pdf' } });
    expectProblem(response, 400);
    expect(response.body.errors).toContainEqual({ path: 'filename', message: expect.any(String) });
  });

  test('a missing filename or mimetype gets 400', async () => {
    expectProblem(await api.request('POST', '/GetUploadUrl', { token: user.token, json: { mimetype: 'application/pdf' } }), 400);
    expectProblem(await api.request('POST', '/GetUploadUrl', { token: user.token, json: { filename: 'a.pdf' } }), 400);
  });

  test.each([
    ['exactly 200 characters', `${'a'.repeat(196)}.pdf`],
    ['an upper-case .PDF', 'SCAN.PDF'],
    ['spaces, accents, # and ?', 'Vertrag Müller – Nr. #1 (final?).pdf'],
    ['a percent sign', '100% sure %41.pdf'],
  ])('a filename with %s is accepted and uploads and downloads through the SAS URLs', async (_case, filename) => {
    const response = await ticket(filename);
    expect(response.status).toBe(201);
    expect(response.body.blobName).toBe(`${response.body.envelopeId}/${filename}`);
    expect((await putToSas(response.body.uploadUrl, pdf)).status).toBe(201);
    const envelope = await get(response.body.envelopeId);
    expect(envelope.body.documentName).toBe(filename);
    const download = await fetch(envelope.body.documentUrl);
    expect(download.status).toBe(200);
    expect(Buffer.from(await download.arrayBuffer()).equals(pdf)).toBe(true);
  });
});

describe('the upload SAS (docs/api.md#create-an-envelope-and-upload-its-document)', () => {
  let created: ApiResponse<any>;
  let uploadUrl: URL;

  beforeAll(async () => {
    created = await ticket('sas.pdf');
    uploadUrl = new URL(created.body.uploadUrl);
  });

  /** The upload URL with its path replaced, signature kept. */
  function rewritten(pathname: string): string {
    const url = new URL(uploadUrl);
    url.pathname = pathname;
    return url.toString();
  }

  test('grants create and write only (sp=cw), for UPLOAD_URL_TTL_SECONDS (900 s)', () => {
    expect(uploadUrl.searchParams.get('sp')).toBe('cw');
    const secondsLeft = (Date.parse(uploadUrl.searchParams.get('se')!) - Date.now()) / 1000;
    expect(secondsLeft).toBeGreaterThan(880);
    expect(secondsLeft).toBeLessThanOrEqual(905);
  });

  test('PUT with x-ms-blob-type: BlockBlob and Content-Type: application/pdf stores the document', async () => {
    const put = await putToSas(uploadUrl.toString(), pdf);
    expect(put.status).toBe(201);
    const download = await fetch((await get(created.body.envelopeId)).body.documentUrl);
    expect(Buffer.from(await download.arrayBuffer()).equals(pdf)).toBe(true);
  });

  test('cannot read the blob (GET and HEAD get 403)', async () => {
    await putToSas(uploadUrl.toString(), pdf);
    expect((await fetchAnswer(uploadUrl)).status).toBe(403);
    expect((await fetchAnswer(uploadUrl, { method: 'HEAD' })).status).toBe(403);
  });

  test('cannot list the container', async () => {
    const list = new URL(uploadUrl);
    list.pathname = list.pathname.split('/').slice(0, -2).join('/');
    list.searchParams.set('restype', 'container');
    list.searchParams.set('comp', 'list');
    const response = await fetch(list);
    expect(response.status).toBe(403);
    expect(await response.text()).not.toContain(created.body.envelopeId);
  });

  test('cannot delete the blob', async () => {
    await putToSas(uploadUrl.toString(), pdf);
    expect((await fetchAnswer(uploadUrl, { method: 'DELETE' })).status).toBe(403);
    expect((await fetchAnswer((await get(created.body.envelopeId)).body.documentUrl)).status).toBe(200);
  });

  test('cannot write another blob name, in this envelope, another envelope or another container', async () => {
    const other = await ticket('other.pdf');
    const segments = uploadUrl.pathname.split('/');
    const container = segments.slice(0, -2).join('/');
    const targets = [
      `${container}/${created.body.envelopeId}/other.pdf`,
      `${container}/${other.body.envelopeId}/other.pdf`,
      `${container}/sas.pdf`,
      `${container.replace(/documents$/, 'sealed')}/${created.body.envelopeId}/sas.pdf`,
    ];
    for (const target of targets) expect((await putToSas(rewritten(target), pdf)).status).toBe(403);
    expect((await fetchAnswer((await get(other.body.envelopeId)).body.documentUrl)).status).toBe(404);
  });

  test('is refused once expired', async () => {
    await withSettings({ UPLOAD_URL_TTL_SECONDS: '1' }, async () => {
      const shortLived = await ticket('short.pdf');
      expect(shortLived.status).toBe(201);
      await new Promise((resolve) => setTimeout(resolve, 2_100));
      expect((await putToSas(shortLived.body.uploadUrl, pdf)).status).toBe(403);
    });
  });

  test('browsers may PUT it: the Blob service answers the CORS preflight', async () => {
    const preflight = await fetchAnswer(uploadUrl, {
      method: 'OPTIONS',
      headers: { Origin: 'https://app.example.com', 'Access-Control-Request-Method': 'PUT', 'Access-Control-Request-Headers': 'content-type,x-ms-blob-type' },
    });
    expect(preflight.status).toBe(200);
    expect(preflight.headers.get('access-control-allow-origin')).toMatch(/^(\*|https:\/\/app\.example\.com)$/);
    expect(preflight.headers.get('access-control-allow-methods')).toMatch(/PUT/);
  });
});

describe('the document is checked whenever it is used: send and complete (docs/api.md#create-an-envelope-and-upload-its-document)', () => {
  test('not uploaded yet: 409, nothing changes', async () => {
    const { id } = await prepared(null);
    const [send] = await expectRefusedWithoutChange(id, 409, null);
    expect(send!.body.detail).toMatch(/upload/i);
  });

  test('over MAX_DOCUMENT_BYTES: 413, nothing changes, the blob stays', async () => {
    await withSettings({ MAX_DOCUMENT_BYTES: '4096' }, async () => {
      const { id } = await prepared(pdf);
      expect(pdf.byteLength).toBeGreaterThan(4096);
      await expectRefusedWithoutChange(id, 413, pdf);
    });
  });

  test('a document at MAX_DOCUMENT_BYTES exactly is not refused for its size', async () => {
    await withSettings({ MAX_DOCUMENT_BYTES: String(pdf.byteLength) }, async () => {
      const { id } = await prepared(pdf);
      expect((await api.request('PATCH', `/envelopes/${id}`, { token: user.token, json: { status: 'sent' } })).status).toBe(200);
    });
  });

  test.each([
    ['PNG bytes', Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex')],
    ['plain text', Buffer.from('Dear tenant,\nplease sign.\n')],
    ['an empty file', Buffer.alloc(0)],
    ['%PDF- only after the first 1024 bytes', Buffer.concat([Buffer.alloc(1100, 0x20), Buffer.from('%PDF-1.7\n')])],
  ])('no %%PDF- header in the first 1024 bytes (%s): 415, nothing changes, the blob stays', async (_case, bytes) => {
    const { id } = await prepared(bytes);
    await expectRefusedWithoutChange(id, 415, bytes);
  });

  test('a PDF that cannot be parsed: send and complete get 422 with a detail a person understands; nothing changes', async () => {
    const garbage = Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.from('this is not a PDF body \u0000\u0001\u0002 '.repeat(40))]);
    const { id } = await prepared(garbage);
    const answers = await expectRefusedWithoutChange(id, 422, garbage);
    for (const answer of answers) {
      expect(answer.body.detail).toMatch(/PDF|document/);
      expect(answer.body.detail).not.toMatch(/Error:|at \w+ \(|\.ts:|\.js:/);
    }
  });

  test('a PDF encrypted with a password (encrypted_new.pdf): send and complete get 422; nothing changes', async () => {
    const encrypted = await corpusPdf('encrypted_new.pdf');
    const { id } = await prepared(encrypted);
    const answers = await expectRefusedWithoutChange(id, 422, encrypted);
    for (const answer of answers) expect(answer.body.detail).toMatch(/password|encrypt/i);
  });

  test('after a refusal, uploading a valid document again lets the envelope complete', async () => {
    const { id, uploadUrl } = await prepared(Buffer.from('not a pdf'));
    expectProblem(await api.request('POST', `/envelopes/${id}/complete`, { token: user.token }), 415);
    expect((await putToSas(uploadUrl, pdf)).status).toBe(201);
    expect((await api.request('POST', `/envelopes/${id}/complete`, { token: user.token })).status).toBe(200);
  });
});
