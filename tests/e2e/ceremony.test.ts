/**
 * The whole signing ceremony end to end (docs/api.md#lifecycle, docs/api.md#what-completion-does, docs/api.md#evidence, docs/api.md#the-recipients-api, docs/api.md#e-mail), over real HTTP with the
 * suite's real SMTP server: an envelope with two signers, an approver, a viewer and a cc is sent in
 * parallel and in sequential order; every signing link is read from the e-mails the service sent
 * (invitations as each recipient's turn comes; the cc gets only the completed e-mail); the signers
 * send typed and drawn signatures, initials, a text value and a check box; the last action seals
 * the document. The sealed PDF is then checked with independent tools: pdfsig and `mutool sign -v`
 * (valid, whole document signed), `qpdf --check`, poppler and MuPDF renderings of the original pages
 * compared pixel by pixel with the original's outside the field rectangles, pdftotext for the typed
 * signature and the values, and the certificate pages for every recipient. Every recipient's
 * completed e-mail link opens the view with the sealed PDF's address.
 *
 * E-mails may be sent by another test process's service (the queues are shared; links name
 * PUBLIC_BASE_URL, not a test server): tokens are taken from the links and used against this file's
 * service. Addresses are unique per test, so other files' e-mails never match.
 */
import { createHash, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { collapse, pdfsig, pdftotext, qpdfCheck } from '../pdf/pdfTools.js';
import { comparePixels, inkInside, renderPages, type PixelBox, type Raster, type Renderer } from '../pdf/rendering.js';
import { patience } from '../support/patience.js';
import { emailsTo, waitForEmails, waitForSigningLink } from '../support/mail.js';
import { corpusPdf, startTestService, type ApiResponse, type TestService, type TestUser } from '../support/service.js';
import { auditTrail, sentEnvelope } from '../support/signing.js';
import { tempFile, tool } from '../support/tools.js';

let env: TestService;

beforeAll(async () => {
  env = await startTestService();
});
afterAll(async () => {
  await env.close();
});

/** Every invitation's subject: "Please review and sign", "... and approve" or "Please review", by role. */
const INVITATION = /^Please review(?: and (?:sign|approve))?: /;
const COMPLETED = /^Completed: /;
const DOCUMENT_NAME = 'contract.pdf';
/** Resolution of the pixel comparison (dots per inch). */
const DPI = 100;

interface Person {
  key: 'ada' | 'bea' | 'carl' | 'dee' | 'eve';
  email: string;
  name: string;
  role: 'signer' | 'approver' | 'viewer' | 'cc';
  routingOrder: number;
}

/** Five recipients with addresses no other test uses (lower case: the mail helpers match them exactly). */
function people(): Person[] {
  const tag = randomUUID().slice(0, 8);
  return [
    { key: 'ada', email: `ada-${tag}@example.com`, name: 'Ada Lovelace', role: 'signer', routingOrder: 1 },
    { key: 'bea', email: `bea-${tag}@example.com`, name: 'Bea Hopper', role: 'signer', routingOrder: 2 },
    { key: 'carl', email: `carl-${tag}@example.com`, name: 'Carl Approver', role: 'approver', routingOrder: 3 },
    { key: 'dee', email: `dee-${tag}@example.com`, name: 'Dee Viewer', role: 'viewer', routingOrder: 4 },
    { key: 'eve', email: `eve-${tag}@example.com`, name: 'Eve Copy', role: 'cc', routingOrder: 5 },
  ];
}

/** A field as placed (fractions of the displayed page, origin top-left). */
type PlacedField = {
  recipient: number;
  type: string;
  page: number;
  x: number;
  y: number;
  width: number;
  height: number;
  label?: string;
};

/** Ada's fields on the first page, Bea's on the last page `last`. */
function fieldsFor(last: number): PlacedField[] {
  return [
    { recipient: 0, type: 'signature', page: 1, x: 0.1, y: 0.78, width: 0.36, height: 0.07 },
    { recipient: 0, type: 'text', page: 1, x: 0.1, y: 0.86, width: 0.5, height: 0.035, label: 'Payment terms' },
    { recipient: 0, type: 'date_signed', page: 1, x: 0.1, y: 0.91, width: 0.2, height: 0.03 },
    { recipient: 0, type: 'name', page: 1, x: 0.35, y: 0.91, width: 0.25, height: 0.03 },
    { recipient: 1, type: 'signature', page: last, x: 0.55, y: 0.78, width: 0.36, height: 0.07 },
    { recipient: 1, type: 'initials', page: last, x: 0.55, y: 0.86, width: 0.1, height: 0.04 },
    { recipient: 1, type: 'text', page: last, x: 0.67, y: 0.86, width: 0.3, height: 0.035, label: 'Reference' },
    { recipient: 1, type: 'checkbox', page: last, x: 0.55, y: 0.91, width: 0.03, height: 0.03, label: 'I agree' },
  ];
}

const ADA_TYPED = 'Augusta King';
const ADA_TEXT = 'Payable within thirty days';
const BEA_INITIALS = 'BQH';
const BEA_TEXT = 'Reference QX-4711';
/** Bea's drawn signature: strokes in fractions of the field's rectangle. */
const BEA_STROKES = [
  [[0.05, 0.7], [0.2, 0.2], [0.35, 0.8], [0.5, 0.25], [0.65, 0.75], [0.8, 0.3], [0.95, 0.6]],
  [[0.1, 0.9], [0.9, 0.88]],
];

const sha256 = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

/** The values a recipient sends with POST /signing/complete, by the view's fields. */
function valuesFor(person: Person, fields: { id: string; type: string }[]): { fieldId: string; value: unknown }[] {
  const values: { fieldId: string; value: unknown }[] = [];
  for (const field of fields) {
    if (person.key === 'ada' && field.type === 'signature') values.push({ fieldId: field.id, value: { typed: ADA_TYPED } });
    if (person.key === 'ada' && field.type === 'text') values.push({ fieldId: field.id, value: ADA_TEXT });
    if (person.key === 'bea' && field.type === 'signature') values.push({ fieldId: field.id, value: { strokes: BEA_STROKES } });
    if (person.key === 'bea' && field.type === 'initials') values.push({ fieldId: field.id, value: { typed: BEA_INITIALS } });
    if (person.key === 'bea' && field.type === 'text') values.push({ fieldId: field.id, value: BEA_TEXT });
    if (person.key === 'bea' && field.type === 'checkbox') values.push({ fieldId: field.id, value: true });
  }
  return values;
}

/** A field's rectangle in pixels of a rendering of its page, grown by `margin` pixels on each side. */
function fieldPixels(field: PlacedField, raster: Raster, margin: number): PixelBox {
  return {
    x0: Math.floor(field.x * raster.width) - margin,
    y0: Math.floor(field.y * raster.height) - margin,
    x1: Math.ceil((field.x + field.width) * raster.width) + margin,
    y1: Math.ceil((field.y + field.height) * raster.height) + margin,
  };
}

/**
 * Whether the two rasters have the same pixels outside `boxes`, compared a row segment at a time with
 * `Buffer.equals` (native: a pixel loop over the Buffers of the test's own context is slow in jest's
 * module sandbox). When they differ, {@link comparePixels} says how.
 */
function sameOutside(a: Raster, b: Raster, boxes: PixelBox[]): boolean {
  if (a.width !== b.width || a.height !== b.height) return false;
  const segmentEqual = (y: number, from: number, to: number) => a.pixels.subarray((y * a.width + from) * 3, (y * a.width + to) * 3).equals(b.pixels.subarray((y * a.width + from) * 3, (y * a.width + to) * 3));
  for (let y = 0; y < a.height; y++) {
    const cuts = boxes
      .filter((box) => y >= box.y0 && y < box.y1)
      .map((box) => [Math.max(0, box.x0), Math.min(a.width, box.x1)] as const)
      .sort((p, q) => p[0] - q[0]);
    let x = 0;
    for (const [x0, x1] of cuts) {
      if (x0 > x && !segmentEqual(y, x, x0)) return false;
      x = Math.max(x, x1);
    }
    if (x < a.width && !segmentEqual(y, x, a.width)) return false;
  }
  return true;
}

/** Opens the view with `token`, then acts as the person's role asks; returns the action's answer. */
async function act(person: Person, token: string): Promise<ApiResponse<any>> {
  const view = await env.api.request('GET', '/signing', { token });
  expect(view.status).toBe(200);
  expect(view.body).toMatchObject({ recipient: { email: person.email, role: person.role, status: 'opened' }, canAct: true, waitingFor: [], signedUrl: null });
  const fields = view.body.fields as { id: string; type: string }[];
  expect(fields.map((field) => field.type)).toEqual({ ada: ['signature', 'text', 'date_signed', 'name'], bea: ['signature', 'initials', 'text', 'checkbox'] }[person.key as 'ada'] ?? []);
  const values = valuesFor(person, fields);
  const answer = await env.api.request('POST', '/signing/complete', { token, json: { consent: true, values }, headers: { 'User-Agent': `${person.key}-browser/1.0` } });
  expect(answer.status).toBe(200);
  expect(answer.body.recipient.status).toBe({ signer: 'signed', approver: 'approved', viewer: 'viewed' }[person.role as 'signer']);
  return answer;
}

/** The signing link of the person's one invitation (waits for it). */
async function invitationToken(person: Person): Promise<string> {
  const link = await waitForSigningLink(person.email, { subject: INVITATION });
  expect(link.url.startsWith(`${env.service.publicBaseUrl}/api/sign#`)).toBe(true);
  expect(link.email.text).toContain(DOCUMENT_NAME);
  return link.token;
}

/**
 * Runs the ceremony for one signing order on a corpus document of `pageCount` pages, and checks
 * everything that follows the last action.
 */
async function ceremony(signingOrder: 'parallel' | 'sequential', document: string, pageCount: number): Promise<void> {
  const fields = fieldsFor(pageCount);
  const owner: TestUser = await env.newUser();
  const everyone = people();
  const [ada, bea, carl, dee, eve] = everyone as [Person, Person, Person, Person, Person];
  const mustAct = [ada, bea, carl, dee];
  const original = await corpusPdf(document);
  const { id } = await sentEnvelope(env.api, owner, {
    signers: everyone.map(({ email, name, role, routingOrder }) => ({ email, name, role, routingOrder })),
    fields,
    signingOrder,
    pdf: original,
  });

  let last: ApiResponse<any> | undefined;
  if (signingOrder === 'parallel') {
    // Everyone who must act is invited at once; they act in reverse order, Ada last.
    const tokens = await Promise.all(mustAct.map(invitationToken));
    for (const [index, person] of [...mustAct.entries()].reverse()) {
      last = await act(person, tokens[index]!);
      expect(last.body.envelope.status).toBe(index === 0 ? 'completed' : 'sent');
    }
  } else {
    // One invitation at a time, each when the previous recipient has acted.
    for (const [index, person] of mustAct.entries()) {
      const token = await invitationToken(person);
      for (const later of mustAct.slice(index + 1)) expect(await emailsTo(later.email)).toEqual([]);
      last = await act(person, token);
      expect(last.body.envelope.status).toBe(index === mustAct.length - 1 ? 'completed' : 'sent');
    }
  }
  // The cc was sent nothing before the completion.
  const envelope = (await env.api.request('GET', `/envelopes/${id}`, { token: owner.token })).body;
  expect(envelope).toMatchObject({ status: 'completed', hash: expect.stringMatching(/^[0-9a-f]{64}$/) });
  expect(envelope.signers.map((signer: { email: string; status: string }) => [signer.email, signer.status])).toEqual([
    [ada.email, 'signed'],
    [bea.email, 'signed'],
    [carl.email, 'approved'],
    [dee.email, 'viewed'],
    [eve.email, 'sent'],
  ]);

  // The sealed PDF, from the last action's answer.
  expect(last!.body).toMatchObject({ envelope: { status: 'completed' }, signedUrl: expect.any(String), canAct: false });
  const sealedResponse = await fetch(last!.body.signedUrl as string);
  expect(sealedResponse.status).toBe(200);
  const sealed = new Uint8Array(await sealedResponse.arrayBuffer());
  expect(sha256(sealed)).toBe(envelope.hash);
  const [sealedFile, originalFile] = await Promise.all([tempFile(sealed, 'sealed.pdf'), tempFile(original, 'original.pdf')]);
  await checkSealedPdf({ sealedFile, originalFile, id, owner, everyone, fields, pageCount, adaSignedOn: (envelope.signers[0].actedAt as string).slice(0, 10) });

  // Completed e-mails: the owner and every recipient, the cc included; the cc got nothing else.
  const ownerCompleted = await waitForEmails(owner.email, { subject: COMPLETED });
  expect(ownerCompleted).toHaveLength(1);
  expect(ownerCompleted[0]!.text).toContain(id);
  for (const person of everyone) {
    const completed = await waitForSigningLink(person.email, { subject: COMPLETED });
    expect(completed.email.text).toContain(id);
    const view = await env.api.request('GET', '/signing', { token: completed.token });
    expect(view.status).toBe(200);
    expect(view.body).toMatchObject({ envelope: { id, status: 'completed' }, recipient: { email: person.email }, signedUrl: expect.any(String), canAct: false });
    const download = await fetch(view.body.signedUrl as string);
    expect(sha256(new Uint8Array(await download.arrayBuffer()))).toBe(envelope.hash);
  }
  expect((await emailsTo(eve.email)).map((email) => email.subject)).toEqual([`Completed: ${DOCUMENT_NAME}`]);
  for (const person of mustAct) {
    // Each is asked for what its role does: a signer to sign, an approver to approve, a viewer to review.
    const asked = { signer: 'Please review and sign', approver: 'Please review and approve', viewer: 'Please review' }[person.role as 'signer' | 'approver' | 'viewer'];
    expect((await emailsTo(person.email)).map((email) => email.subject)).toEqual([`${asked}: ${DOCUMENT_NAME}`, `Completed: ${DOCUMENT_NAME}`]);
  }
}

/**
 * pdfsig, `mutool sign -v`, `qpdf --check`, the renderings of the original pages, the drawn text and
 * the certificate pages.
 */
async function checkSealedPdf(options: {
  sealedFile: string;
  originalFile: string;
  id: string;
  owner: TestUser;
  everyone: Person[];
  fields: PlacedField[];
  pageCount: number;
  adaSignedOn: string;
}): Promise<void> {
  const { sealedFile, originalFile, id, owner, everyone, fields, pageCount, adaSignedOn } = options;
  const signatures = await pdfsig(sealedFile);
  expect(signatures).toEqual([expect.objectContaining({ valid: true, totalDocumentSigned: true, subFilter: 'ETSI.CAdES.detached', hashAlgorithm: 'SHA-256' })]);
  // MuPDF verifies the digest over the signed byte ranges and finds no change after signing; its
  // only complaint is the self-signed development certificate, which no trust store knows.
  const mupdf = await tool('mutool', ['sign', '-v', sealedFile]);
  expect(mupdf.stdout).toContain('The document is unchanged since signing.');
  expect(mupdf.stdout).not.toMatch(/Digest error/);
  // The original is clean (exit code 0), and so is the sealed document.
  expect((await qpdfCheck(originalFile)).code).toBe(0);
  const check = await qpdfCheck(sealedFile);
  expect(check).toEqual({ code: 0, warnings: new Set() });

  // The original pages render as the original does outside the fields, and show ink inside them.
  for (const renderer of ['poppler', 'mupdf'] as Renderer[]) {
    const [before, after] = await Promise.all([
      renderPages(originalFile, renderer, { dpi: DPI, first: 1, last: pageCount }),
      renderPages(sealedFile, renderer, { dpi: DPI, first: 1, last: pageCount }),
    ]);
    for (let page = 1; page <= pageCount; page++) {
      const onPage = fields.filter((field) => field.page === page);
      const a = before.pages[page - 1]!;
      const b = after.pages[page - 1]!;
      const except = onPage.map((field) => fieldPixels(field, a, 2));
      if (!sameOutside(a, b, except)) expect({ renderer, page, ...comparePixels(a, b, { except }) }).toMatchObject({ renderer, page, sameSize: true, differing: 0 });
      for (const field of onPage) {
        const box = fieldPixels(field, b, -1);
        expect({ renderer, page, type: field.type, ink: inkInside(b, box) > inkInside(a, box) }).toEqual({ renderer, page, type: field.type, ink: true });
      }
    }
  }

  // The typed signature and the values are real text on the original pages.
  const pages = collapse(await pdftotext(sealedFile, ['-f', '1', '-l', String(pageCount)]));
  // date_signed and name are filled in by the service: Ada's signing date (UTC) and her name.
  for (const value of [ADA_TYPED, ADA_TEXT, adaSignedOn, 'Ada Lovelace', BEA_INITIALS, BEA_TEXT]) expect(pages).toContain(value);
  // The certificate pages list every recipient, the owner and the whole audit trail.
  const certificate = collapse(await pdftotext(sealedFile, ['-f', String(pageCount + 1)]));
  expect(certificate).toContain(id);
  expect(certificate).toContain(owner.email);
  for (const person of everyone) {
    for (const text of [person.name, person.email, person.role]) expect(certificate).toContain(text);
  }
  expect(certificate).toContain(ADA_TYPED);
  // Every event before the completion (the certificate is part of what completes the envelope).
  const events = (await auditTrail(env.api, owner, id)).filter((event) => event.type !== 'envelope.completed');
  for (const event of events) expect(certificate).toContain(event.type);
}

describe('the signing ceremony with real e-mails (two signers, an approver, a viewer, a cc)', () => {
  test('parallel: everyone invited at once, the last action seals; the sealed PDF verifies everywhere', async () => {
    await ceremony('parallel', 'us_constitution.pdf', 19);
  }, patience(300_000));

  test('sequential: each recipient invited when the previous one has acted; the sealed PDF verifies everywhere', async () => {
    await ceremony('sequential', 'with_annots.pdf', 2);
  }, patience(300_000));
});
