/**
 * Fields from the document (docs/api.md#fields-from-the-document) over real HTTP and Azurite: `POST
 * /api/envelopes/{id}/fields/detect` on PDFs made at test time by independent producers (Chromium's
 * print to PDF with tags split across spans of different fonts; Ghostscript with rotated and cropped
 * pages; an AcroForm made with @libpdf/core's form API; a LibreOffice Writer form exported to PDF),
 * positions checked against poppler's `pdftotext -bbox` word boxes and qpdf's widget rectangles, then
 * sent, signed and sealed: the values are in the sealed text, inside their fields, and where a tag
 * stood the sealed page renders white (poppler's `pdftoppm`).
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { beforeAll, describe, expect, test } from '@jest/globals';
import { PDF, PdfArray, PdfDict, PdfName, PdfNumber } from '@libpdf/core';
import { ApiClient, type ApiResponse, createEnvelopeWithDocument, expectProblem, serviceForFile, type TestService, type TestUser } from '../support/service.js';
import { launchChromium } from '../support/browser.js';
import { FODT_NAMESPACES, libreOfficePdf } from '../support/libreOffice.js';
import { patience } from '../support/patience.js';
import { auditTrail, signingTokenFor } from '../support/signing.js';
import { darkPixels, render } from '../support/render.js';
import { tempFile, tool } from '../support/tools.js';
import { detectDocumentFields } from '../../src/lib/pdf/index.js';
import { ada, bea, cat } from '../support/people.js';

let env: TestService;
let api: ApiClient;
let owner: TestUser;
serviceForFile((started) => ({ env, api, owner } = started));


/** A draft with `pdf` uploaded and `signers` named. */
async function draftWith(pdf: Uint8Array, signers: Record<string, unknown>[]): Promise<{ id: string; signerIds: string[] }> {
  const id = await createEnvelopeWithDocument(api, owner, pdf);
  const updated = await api.request('PUT', `/envelopes/${id}`, { token: owner.token, json: { signers } });
  expect(updated.status).toBe(200);
  return { id, signerIds: updated.body.signers.map((signer: { id: string }) => signer.id) };
}

const detect = (id: string, token = owner.token) => api.request('POST', `/envelopes/${id}/fields/detect`, { token });

/** A word of `pdftotext -bbox`, in points from the top-left of the page as poppler lays it out. */
interface Word {
  page: number;
  text: string;
  xMin: number;
  yMin: number;
  xMax: number;
  yMax: number;
}

async function words(file: string): Promise<Word[]> {
  const html = (await tool('pdftotext', ['-bbox', file, '-'])).stdout;
  const found: Word[] = [];
  let page = 0;
  for (const line of html.split('\n')) {
    if (line.includes('<page ')) page++;
    const match = /<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">(.*)<\/word>/.exec(line);
    if (match !== null) found.push({ page, text: match[5]!.replaceAll('&amp;', '&'), xMin: Number(match[1]), yMin: Number(match[2]), xMax: Number(match[3]), yMax: Number(match[4]) });
  }
  return found;
}

/** Poppler's boxes of the tags: a tag it splits into words (at a change of font size) is joined back. */
function tagWords(all: Word[]): Word[] {
  const tags: Word[] = [];
  for (let index = 0; index < all.length; index++) {
    const word = all[index]!;
    if (!word.text.startsWith('{{')) continue;
    const joined = { ...word };
    while (!joined.text.includes('}}') && index + 1 < all.length && all[index + 1]!.page === word.page) {
      const next = all[++index]!;
      Object.assign(joined, { text: joined.text + next.text, xMin: Math.min(joined.xMin, next.xMin), yMin: Math.min(joined.yMin, next.yMin), xMax: Math.max(joined.xMax, next.xMax), yMax: Math.max(joined.yMax, next.yMax) });
    }
    tags.push(joined);
  }
  return tags;
}

/**
 * Checks a detected field against poppler's box of its tag: the same left and right edges, and a top
 * within the difference of the engines' font ascents, in fractions of the displayed page
 * (`toFraction` turns poppler's points into them).
 */
function expectAt(field: { type?: string; x: number; y: number; width: number; height: number }, word: Word, toFraction: (x: number, y: number) => [number, number]): void {
  const [left, top] = toFraction(word.xMin, word.yMin);
  const [right, bottom] = toFraction(word.xMax, word.yMax);
  expect(Math.abs(field.x - left)).toBeLessThan(0.012);
  // A checkbox is a square of the font size, not as wide as its tag.
  if (field.type === 'checkbox') return;
  expect(Math.abs(field.x + field.width - right)).toBeLessThan(0.012);
  expect(Math.abs(field.y - top)).toBeLessThan(0.01);
  // Grown downward to at least 0.02 of the page: the top stays, the bottom reaches the text's.
  expect(field.height).toBeGreaterThanOrEqual(0.02 - 1e-9);
  expect(field.y + field.height).toBeGreaterThanOrEqual(bottom - 0.01);
}

/** Sends the envelope, then each signer signs with `values` (by field label), and the sealed PDF is returned. */
async function sendSignAndSeal(id: string, valuesBySigner: Record<string, Record<string, unknown>>, alreadySent?: ApiResponse<any>): Promise<Buffer> {
  const sent = alreadySent ?? (await api.request('PUT', `/envelopes/${id}`, { token: owner.token, json: { status: 'sent' } }));
  expect(sent.status).toBe(200);
  const fields = sent.body.fields as { id: string; recipientId: string; label: string | null; type: string }[];
  const signers = sent.body.signers as { id: string; email: string; role: string }[];
  let last: any;
  for (const signer of signers.filter((candidate) => candidate.role === 'signer')) {
    const wanted = valuesBySigner[signer.email] ?? {};
    const values = fields
      .filter((field) => field.recipientId === signer.id && field.label !== null && wanted[field.label] !== undefined)
      .map((field) => ({ fieldId: field.id, value: wanted[field.label!] }));
    last = await api.request('POST', '/signing/complete', { token: await signingTokenFor(owner.userId, id, signer.email), json: { consent: true, values } });
    expect(last.status).toBe(200);
  }
  expect(last.body.envelope.status).toBe('completed');
  return Buffer.from(await (await fetch(last.body.signedUrl)).arrayBuffer());
}

describe('POST /api/envelopes/{id}/fields/detect: text tags in a page Chromium printed', () => {
  let pdf: Buffer;
  beforeAll(async () => {
    const browser = await launchChromium();
    try {
      const page = await browser.newPage();
      await page.setContent(`<!doctype html><html><body style="font: 15px sans-serif; margin: 40px">
        <h1>Lease agreement</h1>
        <p>Tenant signature: <span style="font-family: serif">{{sig</span><b style="font-family: monospace">nature;r=1;</b><i>label=TenantSignature}}</i></p>
        <p>Date: <span style="font-size: 20px">{{date_</span>signed;r=1}}</p>
        <p>Phone: <span style="font-family: monospace">{{text;r=2;</span><span style="font-family: serif">required=false;label=Phone}}</span></p>
        <p>Notes: <span>{{text;r=2;required=false;label=Notes}}</span></p>
        <p>I agree: {{checkbox;r=2;label=Agree}}</p>
        <p>Initials: <b>{{initials;</b>r=2<i>;label=Initials}}</i></p>
      </body></html>`);
      pdf = await page.pdf({ format: 'A4' });
    } finally {
      await browser.close();
    }
  });

  test('finds every tag, split across spans and fonts, where pdftotext boxes it; given to the signers named; then seals with the values drawn and the tags painted over', async () => {
    const { id, signerIds } = await draftWith(pdf, [ada, bea, cat]);
    const answer = await detect(id);
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ textTags: 6, formFields: 0 });
    const fields = answer.body.fields as any[];
    expect(fields.map((field) => [field.type, field.label, field.recipientId, field.required, field.source, field.page])).toEqual([
      ['signature', 'TenantSignature', signerIds[0], true, 'textTag', 1],
      ['date_signed', null, signerIds[0], true, 'textTag', 1],
      ['text', 'Phone', signerIds[1], false, 'textTag', 1],
      ['text', 'Notes', signerIds[1], false, 'textTag', 1],
      ['checkbox', 'Agree', signerIds[1], true, 'textTag', 1],
      ['initials', 'Initials', signerIds[1], true, 'textTag', 1],
    ]);
    // The envelope holds them, and the change is audited as a fields update.
    expect((await api.request('GET', `/envelopes/${id}`, { token: owner.token })).body.fields).toEqual(fields);
    expect((await auditTrail(api, owner, id)).filter((event) => event.type === 'envelope.fields_replaced').at(-1)).toMatchObject({ details: { count: 6 } });

    // Positions: poppler's word box of each tag (A4 portrait, no crop: its points are the displayed page's).
    const file = await tempFile(pdf);
    const tags = tagWords(await words(file));
    expect(tags.map((word) => word.text)).toEqual([
      '{{signature;r=1;label=TenantSignature}}',
      '{{date_signed;r=1}}',
      '{{text;r=2;required=false;label=Phone}}',
      '{{text;r=2;required=false;label=Notes}}',
      '{{checkbox;r=2;label=Agree}}',
      '{{initials;r=2;label=Initials}}',
    ]);
    const [width, height] = [595.92, 842.88];
    tags.forEach((word, index) => expectAt(fields[index], word, (x, y) => [x / width, y / height]));

    const sealed = await sendSignAndSeal(id, {
      [ada.email]: { TenantSignature: { typed: 'Ada Lovelace' } },
      [bea.email]: { Phone: '+1 555 0100', Agree: true, Initials: { typed: 'BS' } },
    });
    const sealedFile = await tempFile(sealed, 'sealed.pdf');
    const text = (await tool('pdftotext', ['-f', '1', '-l', '1', sealedFile, '-'])).stdout;
    expect(text).toContain('Ada Lovelace');
    expect(text).toContain('+1 555 0100');
    expect(text).toContain(new Date().toISOString().slice(0, 10));
    // Where a tag stood, the sealed page shows only the value: the empty optional field (Notes) is all
    // white, where the original showed the tag.
    const before = await render(file, 1, 100, 'detect-chromium-original');
    const after = await render(sealedFile, 1, 100, 'detect-chromium-sealed');
    const notes = fields[3];
    expect(darkPixels(before, notes)).toBeGreaterThan(50);
    expect(darkPixels(after, notes)).toBe(0);
    // The tags of fields with values are gone too: what is dark now is the value, much less than the tag.
    expect(darkPixels(after, fields[2])).toBeLessThan(darkPixels(before, fields[2]));
  });

  test('a document without tags or form fields gives zero fields (200), and replaces fields placed before', async () => {
    const blank = PDF.create();
    blank.addPage();
    const { id, signerIds } = await draftWith(await blank.save(), [ada]);
    const placed = await api.request('PUT', `/envelopes/${id}`, { token: owner.token, json: { fields: [{ recipientId: signerIds[0], type: 'text', page: 1, x: 0.1, y: 0.1, width: 0.2, height: 0.05 }] } });
    expect(placed.body.fields).toHaveLength(1);
    const answer = await detect(id);
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ fields: [], textTags: 0, formFields: 0 });
    expect((await api.request('GET', `/envelopes/${id}`, { token: owner.token })).body.fields).toEqual([]);
  });
});

describe('text tags as a signer sees them: sizes, offsets, and the tags covered in the frozen copy', () => {
  const [pageWidth, pageHeight] = [595.92, 842.88];
  const fontSize = 15 * 0.75;
  let pdf: Buffer;
  beforeAll(async () => {
    const browser = await launchChromium();
    try {
      const page = await browser.newPage();
      await page.setContent(`<!doctype html><html><body style="font: 15px sans-serif; margin: 40px">
        <p>Buyer: {{signature;r=1;label=Buyer}}</p>
        <p style="margin-top: 80px">Seller: {{signature;r=2;label=Seller;w=200;h=72;y=-20}}</p>
        <p style="margin-top: 80px">I agree: {{checkbox;r=1;label=Agree}}</p>
        <p>Note: {{text;r=2;required=false;label=Note;w=0.4;h=0.03;x=10}}</p>
        <p>Initials: {{initials;r=1;label=Initials}}</p>
      </body></html>`);
      pdf = await page.pdf({ format: 'A4' });
    } finally {
      await browser.close();
    }
  });

  test('signatures are 3 × the line height tall, a checkbox a square of the font size, w/h/x/y as given; no tag shows in the frozen copy or the seal', async () => {
    const { id } = await draftWith(pdf, [ada, bea]);
    const answer = await detect(id);
    expect(answer.status).toBe(200);
    const fields = answer.body.fields as any[];
    expect(fields.map((field) => field.label)).toEqual(['Buyer', 'Seller', 'Agree', 'Note', 'Initials']);
    const [buyer, seller, agree, note, initials] = fields;
    const file = await tempFile(pdf, 'tags.pdf');
    const tags = tagWords(await words(file));
    expect(tags).toHaveLength(5);
    const lineHeight = (word: Word) => (word.yMax - word.yMin) / pageHeight;
    const top = (word: Word) => word.yMin / pageHeight;
    const left = (word: Word) => word.xMin / pageWidth;

    // Defaults: a signature or initials field 3 × the tag's line tall, from the tag's top-left.
    for (const [field, word] of [
      [buyer, tags[0]!],
      [initials, tags[4]!],
    ] as const) {
      expect(field.height).toBeGreaterThanOrEqual(3 * lineHeight(word) * 0.9);
      expect(field.height).toBeGreaterThanOrEqual((3 * fontSize) / pageHeight);
      expect(Math.abs(field.y - top(word))).toBeLessThan(0.01);
      expect(Math.abs(field.x - left(word))).toBeLessThan(0.012);
    }
    // A checkbox: a square of the font size.
    expect(agree.width * pageWidth).toBeCloseTo(fontSize, 0);
    expect(agree.height * pageHeight).toBeCloseTo(fontSize, 0);
    // Points and fractions, offset from the tag's top-left.
    expect(seller.width * pageWidth).toBeCloseTo(200, 1);
    expect(seller.height * pageHeight).toBeCloseTo(72, 1);
    expect(Math.abs(seller.y - (top(tags[1]!) - 20 / pageHeight))).toBeLessThan(0.01);
    expect(Math.abs(seller.x - left(tags[1]!))).toBeLessThan(0.012);
    expect(note.width).toBeCloseTo(0.4, 5);
    expect(note.height).toBeCloseTo(0.03, 5);
    expect(Math.abs(note.x - (left(tags[3]!) + 10 / pageWidth))).toBeLessThan(0.012);

    // Sent: the frozen copy, which the signing page renders, shows no tag; the labels beside them stay.
    const sent = await api.request('PUT', `/envelopes/${id}`, { token: owner.token, json: { status: 'sent' } });
    expect(sent.status).toBe(200);
    const frozenFile = await tempFile(Buffer.from(await (await fetch(sent.body.documentUrl)).arrayBuffer()), 'tags-frozen.pdf');
    const original = await render(file, 1, 100, 'tags-original');
    const frozen = await render(frozenFile, 1, 100, 'tags-frozen');
    const box = (word: Word) => ({ x: word.xMin / pageWidth, y: word.yMin / pageHeight, width: (word.xMax - word.xMin) / pageWidth, height: (word.yMax - word.yMin) / pageHeight });
    for (const word of tags) {
      expect(darkPixels(original, box(word))).toBeGreaterThan(50);
      expect(darkPixels(frozen, box(word))).toBe(0);
    }
    const labels = (await words(file)).filter((word) => ['Buyer:', 'Seller:', 'Note:'].includes(word.text));
    expect(labels).toHaveLength(3);
    for (const word of labels) expect(darkPixels(frozen, box(word))).toBe(darkPixels(original, box(word)));

    // Signed and sealed: the signatures fill their fields at a usable size; the empty note's tag stays blank.
    const signed = await sendSignAndSeal(id, {
      [ada.email]: { Buyer: { typed: 'Ada Lovelace' }, Agree: true, Initials: { typed: 'AL' } },
      [bea.email]: { Seller: { typed: 'Bea Signer' } },
    }, sent);
    const sealedFile = await tempFile(signed, 'tags-sealed.pdf');
    const sealed = await render(sealedFile, 1, 100, 'tags-sealed');
    expect(darkPixels(sealed, box(tags[3]!))).toBe(0);
    // Ink in the upper and the lower half of the buyer's signature field: the value is drawn at the field's height, not the tag's.
    expect(darkPixels(sealed, { ...buyer, height: buyer.height / 2 })).toBeGreaterThan(30);
    expect(darkPixels(sealed, { ...buyer, y: buyer.y + buyer.height / 2, height: buyer.height / 2 })).toBeGreaterThan(30);
    expect(darkPixels(sealed, agree)).toBeGreaterThan(5);
  });

  test('a document none of whose fields came from a tag is frozen as uploaded: its tags are not searched for, nor covered', async () => {
    const { id, signerIds } = await draftWith(pdf, [ada]);
    const placed = await api.request('PUT', `/envelopes/${id}`, { token: owner.token, json: { fields: [{ recipientId: signerIds[0], type: 'signature', page: 1, x: 0.5, y: 0.8, width: 0.3, height: 0.08 }] } });
    expect(placed.status).toBe(200);
    const sent = await api.request('PUT', `/envelopes/${id}`, { token: owner.token, json: { status: 'sent' } });
    expect(sent.status).toBe(200);
    const frozen = Buffer.from(await (await fetch(sent.body.documentUrl)).arrayBuffer());
    expect(createHash('sha256').update(frozen).digest('hex')).toBe(createHash('sha256').update(pdf).digest('hex'));
    expect(sent.body.documentSha256).toBe(createHash('sha256').update(pdf).digest('hex'));
    const tags = tagWords(await words(await tempFile(frozen, 'tags-untouched.pdf')));
    const shown = await render(await tempFile(frozen, 'tags-untouched-render.pdf'), 1, 100, 'tags-untouched');
    expect(tags).toHaveLength(5);
    for (const word of tags) expect(darkPixels(shown, { x: word.xMin / pageWidth, y: word.yMin / pageHeight, width: (word.xMax - word.xMin) / pageWidth, height: (word.yMax - word.yMin) / pageHeight })).toBeGreaterThan(50);
  });
});

describe('POST /api/envelopes/{id}/fields/detect: rotated and cropped pages Ghostscript wrote', () => {
  // Page 1: US Letter shown turned by /Rotate 90, with one tag drawn across the page (it reads
  // downwards as shown) and one drawn turned (it reads upright as shown); page 2: a crop box
  // [100 200 500 700] inside the media box.
  const program = `%!PS
[ {ThisPage} << /Rotate 90 >> /PUT pdfmark
/Helvetica findfont 12 scalefont setfont
72 700 moveto (\\{\\{initi) show
/Times-Roman findfont 12 scalefont setfont (als;r=1;label=Init\\}\\}) show
gsave 500 100 translate 90 rotate 0 0 moveto /Courier findfont 11 scalefont setfont (Upright: \\{\\{text;label=Rotated\\}\\}) show grestore
showpage
[ /CropBox [100 200 500 700] /PAGE pdfmark
/Helvetica findfont 12 scalefont setfont
150 600 moveto (\\{\\{date_signed\\}\\}) show
150 400 moveto (\\{\\{sign) show /Times-Bold findfont 12 scalefont setfont (ature;label=Cropped\\}\\}) show
showpage
`;
  let pdf: Buffer;
  beforeAll(async () => {
    const source = await tempFile(Buffer.from(program, 'latin1'), 'pages.ps');
    const output = `${source}.pdf`;
    const made = await tool('gs', ['-q', '-dSAFER', '-dBATCH', '-dNOPAUSE', '-dAutoRotatePages=/None', '-sDEVICE=pdfwrite', '-sPAPERSIZE=letter', `-sOutputFile=${output}`, source]);
    expect(made.code).toBe(0);
    pdf = await readFile(output);
  });

  test('boxes come out as a viewer shows the pages (after /Rotate, inside the crop box), where pdftotext boxes the tags', async () => {
    const { id, signerIds } = await draftWith(pdf, [ada]);
    const answer = await detect(id);
    expect(answer.status).toBe(200);
    const fields = answer.body.fields as any[];
    expect(fields.map((field) => [field.page, field.type, field.label, field.recipientId])).toEqual([
      [1, 'initials', 'Init', signerIds[0]],
      [1, 'text', 'Rotated', signerIds[0]],
      [2, 'date_signed', null, signerIds[0]],
      [2, 'signature', 'Cropped', signerIds[0]],
    ]);
    const file = await tempFile(pdf);
    const all = tagWords(await words(file));
    const word = (text: string) => all.find((candidate) => candidate.text === text)!;
    // Page 1 turned clockwise: displayed 792 wide and 612 high; poppler lays the text out so too.
    const rotated = (x: number, y: number): [number, number] => [x / 792, y / 612];
    expectAt(fields[0], word('{{initials;r=1;label=Init}}'), rotated);
    expectAt(fields[1], word('{{text;label=Rotated}}'), rotated);
    // The initials' text runs down the turned page: its box is tall and narrow; the upright one's wide.
    expect(fields[0].height).toBeGreaterThan(fields[0].width);
    expect(fields[1].width).toBeGreaterThan(fields[1].height);
    // Page 2: poppler counts from the media box (612 x 792); the displayed page is the crop box.
    const cropped = (x: number, y: number): [number, number] => [(x - 100) / 400, (y - (792 - 700)) / 500];
    expectAt(fields[2], word('{{date_signed}}'), cropped);
    expectAt(fields[3], word('{{signature;label=Cropped}}'), cropped);

    const sealed = await sendSignAndSeal(id, { [ada.email]: { Rotated: 'Sideways', Init: { typed: 'AL' }, Cropped: { typed: 'Ada L' } } });
    const sealedFile = await tempFile(sealed, 'sealed.pdf');
    const text = (await tool('pdftotext', ['-f', '1', '-l', '2', sealedFile, '-'])).stdout;
    expect(text).toContain('Sideways');
    expect(text).toContain('Ada L');
    const page2 = await render(sealedFile, 2, 100, 'detect-gs-cropped-sealed');
    expect(page2.width).toBeLessThan(page2.height);
    await render(sealedFile, 1, 100, 'detect-gs-rotated-sealed');
  });
});

describe('POST /api/envelopes/{id}/fields/detect: the form fields of an AcroForm', () => {
  let pdf: Uint8Array;
  beforeAll(async () => {
    const document = PDF.create();
    const page = document.addPage({ size: 'a4' });
    page.drawText('Full name', { x: 60, y: 760, size: 12 });
    page.drawText('Member', { x: 60, y: 700, size: 12 });
    page.drawText('Signature', { x: 60, y: 640, size: 12 });
    const form = document.getOrCreateForm();
    const name = form.createTextField('applicant.name', { defaultValue: '' });
    page.drawField(name, { x: 160, y: 750, width: 220, height: 24 });
    const member = form.createCheckbox('member', { onValue: 'Yes' });
    page.drawField(member, { x: 160, y: 696, width: 18, height: 18 });
    // The library places a signature field's widget when it signs; an unsigned one gets it by hand.
    const signature = form.createSignatureField('applicant.signature');
    const widget = signature.addWidget(
      PdfDict.of({ Type: PdfName.of('Annot'), Subtype: PdfName.of('Widget'), Rect: new PdfArray([160, 600, 360, 650].map((value) => PdfNumber.of(value))), F: PdfNumber.of(4), P: page.ref }),
    );
    const annots = page.dict.getArray('Annots');
    if (annots === undefined) page.dict.set('Annots', new PdfArray([widget.ref!]));
    else annots.push(widget.ref!);
    pdf = await document.save();
  });

  test('unsigned signature, text and check box fields become fields at their widgets, for the first signer; at sealing the form fields give way to the drawn values', async () => {
    const { id, signerIds } = await draftWith(pdf, [cat, ada, bea]);
    const answer = await detect(id);
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ textTags: 0, formFields: 3 });
    const fields = answer.body.fields as any[];
    const [width, height] = [595.28, 841.89];
    const at = (x: number, y: number, w: number, h: number) => ({ x: expect.closeTo(x / width, 3), y: expect.closeTo(1 - (y + h) / height, 3), width: expect.closeTo(w / width, 3), height: expect.closeTo(h / height, 3) });
    expect(fields).toEqual([
      { id: expect.any(String), recipientId: signerIds[1], documentId: id, type: 'text', page: 1, ...at(160, 750, 220, 24), required: false, label: 'applicant.name', source: 'formField', formFieldName: 'applicant.name' },
      { id: expect.any(String), recipientId: signerIds[1], documentId: id, type: 'checkbox', page: 1, ...at(160, 696, 18, 18), required: false, label: 'member', source: 'formField', formFieldName: 'member' },
      { id: expect.any(String), recipientId: signerIds[1], documentId: id, type: 'signature', page: 1, ...at(160, 600, 200, 50), required: true, label: 'applicant.signature', source: 'formField', formFieldName: 'applicant.signature' },
    ]);

    const sealed = await sendSignAndSeal(id, { [ada.email]: { 'applicant.name': 'Ada Form', member: true, 'applicant.signature': { typed: 'Ada Lovelace' } } });
    const sealedFile = await tempFile(sealed, 'sealed.pdf');
    const text = (await tool('pdftotext', ['-f', '1', '-l', '1', sealedFile, '-'])).stdout;
    expect(text).toContain('Ada Form');
    expect(text).toContain('Ada Lovelace');
    // The detected form fields are gone from the form and the page: the seal's signature is the only one.
    const json = JSON.parse((await tool('qpdf', ['--json', '--json-key=acroform', sealedFile])).stdout) as { acroform: { fields: { fullname: string }[] } };
    expect(json.acroform.fields.filter((field) => /applicant|member/.test(field.fullname))).toEqual([]);
    const annotations = (await tool('qpdf', ['--show-object=1', '--json', '--json-key=pages', sealedFile])).stdout;
    expect(annotations).not.toMatch(/applicant|member/);
    expect((await tool('pdfsig', ['-nocert', sealedFile])).stdout.match(/Signature #/g)).toHaveLength(1);
    expect((await tool('qpdf', ['--check', sealedFile])).code).toBe(0);
    expect((await tool('pdfsig', ['-nocert', sealedFile])).stdout).toContain('Signature is Valid.');
    await render(sealedFile, 1, 100, 'detect-form-sealed');
  });
});

describe('POST /api/envelopes/{id}/fields/detect: a form LibreOffice Writer exported', () => {
  let pdf: Buffer;
  beforeAll(async () => {
    // A Writer document with a text box, a check box and a drop-down list box (form controls), and a
    // text tag for the signature; exported with "export form fields" by LibreOffice itself.
    pdf = await libreOfficePdf(`<?xml version="1.0" encoding="UTF-8"?>
<office:document ${FODT_NAMESPACES} office:version="1.3" office:mimetype="application/vnd.oasis.opendocument.text">
 <office:automatic-styles>
  <style:style style:name="gr1" style:family="graphic"><style:graphic-properties style:vertical-pos="middle" style:vertical-rel="text"/></style:style>
 </office:automatic-styles>
 <office:body>
  <office:text>
   <office:forms form:automatic-focus="false" form:apply-design-mode="false">
    <form:form form:name="Lease" form:apply-filter="true" form:command-type="table" form:control-implementation="ooo:com.sun.star.form.component.Form">
     <form:text form:name="FullName" form:control-implementation="ooo:com.sun.star.form.component.TextField" xml:id="control1" form:id="control1"/>
     <form:checkbox form:name="Agree" form:control-implementation="ooo:com.sun.star.form.component.CheckBox" xml:id="control2" form:id="control2"/>
     <form:listbox form:name="Plan" form:control-implementation="ooo:com.sun.star.form.component.ListBox" xml:id="control3" form:id="control3" form:dropdown="true" form:size="1">
      <form:option form:label="Basic"/>
      <form:option form:label="Premium"/>
     </form:listbox>
    </form:form>
   </office:forms>
   <text:p>Lease agreement</text:p>
   <text:p>Full name: <draw:control draw:style-name="gr1" text:anchor-type="as-char" svg:width="7cm" svg:height="0.8cm" draw:control="control1"/></text:p>
   <text:p>I agree: <draw:control draw:style-name="gr1" text:anchor-type="as-char" svg:width="0.6cm" svg:height="0.6cm" draw:control="control2"/></text:p>
   <text:p>Plan: <draw:control draw:style-name="gr1" text:anchor-type="as-char" svg:width="4cm" svg:height="0.8cm" draw:control="control3"/></text:p>
   <text:p>Signature: {{signature;label=Signature}}</text:p>
  </office:text>
 </office:body>
</office:document>
`);
  }, patience(120_000));

  /**
   * qpdf's reading of page 1: its media box, and the type and rectangle (points) of each form field
   * widget among its annotations, by field name.
   */
  async function widgets(file: string): Promise<{ mediaBox: number[]; fields: Record<string, { type: string; rect: number[] }> }> {
    const objects = JSON.parse((await tool('qpdf', ['--json', '--json-key=qpdf', '--json-key=pages', file])).stdout);
    const pageRef = objects.pages[0].object as string;
    const values = objects.qpdf[1] as Record<string, { value?: Record<string, any> }>;
    const object = (ref: string): Record<string, any> => values[`obj:${ref}`]?.value ?? {};
    const page = object(pageRef);
    const fields: Record<string, { type: string; rect: number[] }> = {};
    for (const ref of (page['/Annots'] ?? []) as string[]) {
      const annotation = object(ref);
      if (annotation['/Subtype'] === '/Widget' && typeof annotation['/T'] === 'string') fields[annotation['/T'].replace(/^u:/, '')] = { type: annotation['/FT'], rect: annotation['/Rect'] };
    }
    return { mediaBox: page['/MediaBox'], fields };
  }

  test('every form field at its widget rectangle with its type, the tag beside them; at sealing the form fields give way to the values, drawn in place', async () => {
    const file = await tempFile(pdf, 'libreoffice-form.pdf');
    const form = await widgets(file);
    expect(Object.fromEntries(Object.entries(form.fields).map(([name, field]) => [name, field.type]))).toEqual({ FullName: '/Tx', Agree: '/Btn', Plan: '/Ch' });
    const { id, signerIds } = await draftWith(pdf, [cat, ada]);
    const answer = await detect(id);
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ textTags: 1, formFields: 3 });
    const [left, bottom, right, top] = form.mediaBox as [number, number, number, number];
    const at = (name: string) => {
      const [x1, y1, x2, y2] = form.fields[name]!.rect as [number, number, number, number];
      return { x: expect.closeTo((x1 - left) / (right - left), 3), y: expect.closeTo((top - y2) / (top - bottom), 3), width: expect.closeTo((x2 - x1) / (right - left), 3), height: expect.closeTo((y2 - y1) / (top - bottom), 3) };
    };
    // The envelope's one document is the envelope's id (docs/api.md#several-documents).
    const fromForm = { recipientId: signerIds[1], documentId: id, page: 1, required: false, source: 'formField' };
    expect(answer.body.fields).toEqual([
      { id: expect.any(String), ...fromForm, type: 'text', ...at('FullName'), label: 'FullName', formFieldName: 'FullName' },
      { id: expect.any(String), ...fromForm, type: 'checkbox', ...at('Agree'), label: 'Agree', formFieldName: 'Agree' },
      { id: expect.any(String), ...fromForm, type: 'dropdown', ...at('Plan'), label: 'Plan', formFieldName: 'Plan', options: ['Basic', 'Premium'] },
      expect.objectContaining({ recipientId: signerIds[1], type: 'signature', page: 1, label: 'Signature', source: 'textTag' }),
    ]);

    const sealed = await sendSignAndSeal(id, { [ada.email]: { FullName: 'Ada Form', Agree: true, Plan: 'Premium', Signature: { typed: 'Ada Lovelace' } } });
    const sealedFile = await tempFile(sealed, 'libreoffice-sealed.pdf');
    expect((await tool('pdfsig', ['-nocert', sealedFile])).stdout).toContain('Signature is Valid.');
    // The form's fields are gone, from the form and from the page's annotations.
    const remaining = JSON.parse((await tool('qpdf', ['--json', '--json-key=acroform', sealedFile])).stdout).acroform.fields as { fullname: string }[];
    expect(remaining.map((field) => field.fullname).filter((name) => name in form.fields)).toEqual([]);
    expect(Object.keys((await widgets(sealedFile)).fields).filter((name) => name !== 'EnvelopeSeal')).toEqual([]);
    // Each value drawn inside its field's rectangle (poppler's word boxes, in points from the top-left).
    const sealedWords = (await words(sealedFile)).filter((word) => word.page === 1);
    const fields = answer.body.fields as { label: string; x: number; y: number; width: number; height: number }[];
    const [width, height] = [right - left, top - bottom];
    const placed = (text: string, label: string) => {
      const word = sealedWords.find((candidate) => candidate.text === text);
      const field = fields.find((candidate) => candidate.label === label)!;
      if (word === undefined) return [text, 'missing'];
      const middle = (word.yMin + word.yMax) / 2;
      const inside = word.xMin >= field.x * width - 1 && word.xMax <= (field.x + field.width) * width + 1 && middle >= field.y * height && middle <= (field.y + field.height) * height;
      return [text, inside ? 'inside' : `outside at ${JSON.stringify(word)}`];
    };
    expect([placed('Ada', 'FullName'), placed('Form', 'FullName'), placed('Premium', 'Plan')]).toEqual([
      ['Ada', 'inside'],
      ['Form', 'inside'],
      ['Premium', 'inside'],
    ]);
    // The tick drawn where the check box was (its own appearance removed with the field).
    const image = await render(sealedFile, 1, 100, 'detect-libreoffice-sealed');
    expect(darkPixels(image, fields.find((field) => field.label === 'Agree')!)).toBeGreaterThan(0);
  }, patience(120_000));
});

describe('POST /api/envelopes/{id}/fields/detect: refusals change nothing', () => {
  async function tagged(tags: string[]): Promise<Uint8Array> {
    const document = PDF.create();
    for (const tag of tags) document.addPage().drawText(tag, { x: 72, y: 700, size: 12 });
    return await document.save();
  }

  test.each([
    ['an unknown type', '{{sign;r=1}}', /unknown type "sign"/],
    ['an unknown key', '{{text;color=red}}', /unknown key "color"/],
    ['a recipient past the list', '{{signature;r=4}}', /names no signer/],
    ['a recipient whose role is cc', '{{signature;r=3}}', /role is cc/],
    ['a repeated key', '{{text;label=A;label=B}}', /repeats the key label/],
    ['a bad required', '{{text;required=maybe}}', /required=maybe/],
    ['options on a text field', '{{text;options=a|b}}', /only a dropdown has options/],
    ['a width that is no number', '{{signature;w=wide}}', /w=wide; it must be a size above 0/],
    ['a height of 0', '{{signature;h=0}}', /h=0; it must be a size above 0/],
    ['an offset past the right edge', '{{signature;x=0.9}}', /past the page's right edge/],
    ['a height past the bottom edge', '{{text;h=800}}', /past the page's bottom edge/],
    ['an offset past the top edge', '{{checkbox;y=-720}}', /past the page's top edge/],
  ])('%s: 422 text-tag-invalid naming the page and the tag', async (_name, tag, message) => {
    const { id, signerIds } = await draftWith(await tagged(['{{signature;r=1}}', tag]), [ada, bea, cat]);
    const placed = await api.request('PUT', `/envelopes/${id}`, { token: owner.token, json: { fields: [{ recipientId: signerIds[0], type: 'text', page: 1, x: 0.1, y: 0.1, width: 0.2, height: 0.05 }] } });
    const before = await api.request('GET', `/envelopes/${id}`, { token: owner.token });
    const answer = await detect(id);
    const { documentUrl: _url, documents, ...unchanged } = before.body;
    expectProblem(answer, 422);
    expect(answer.body.type).toBe('urn:problem:text-tag-invalid');
    expect(answer.body.detail).toContain(tag);
    expect(answer.body.detail).toContain('page 2');
    expect(answer.body.detail).toMatch(message);
    expect(answer.body.errors).toEqual([{ path: 'pages.2', message: expect.stringContaining(tag) }]);
    const after = await api.request('GET', `/envelopes/${id}`, { token: owner.token });
    // The read URLs are signed anew on every answer; nothing else may differ.
    expect(after.body).toEqual({ ...unchanged, documentUrl: expect.any(String), documents: documents.map((document: Record<string, unknown>) => ({ ...document, documentUrl: expect.any(String) })) });
    expect(after.headers.get('etag')).toBe(before.headers.get('etag'));
    expect(after.body.fields).toEqual(placed.body.fields);
  });

  test('a stale If-Match is 412 and changes nothing; the detected fields, sent back as read, keep their source', async () => {
    const { id } = await draftWith(await tagged(['{{signature}}', '{{text;label=Notes}}']), [ada]);
    const before = await api.request('GET', `/envelopes/${id}`, { token: owner.token });
    const stale = await api.request('POST', `/envelopes/${id}/fields/detect`, { token: owner.token, headers: { 'If-Match': '"0"' } });
    expectProblem(stale, 412);
    expect((await api.request('GET', `/envelopes/${id}`, { token: owner.token })).headers.get('etag')).toBe(before.headers.get('etag'));
    const answer = await api.request('POST', `/envelopes/${id}/fields/detect`, { token: owner.token, headers: { 'If-Match': before.headers.get('etag')! } });
    expect(answer.status).toBe(200);
    const fields = answer.body.fields as any[];
    expect(fields.map((field) => field.source)).toEqual(['textTag', 'textTag']);
    const moved = fields.map((field) => ({ ...field, x: field.x / 2 }));
    const saved = await api.request('PUT', `/envelopes/${id}`, { token: owner.token, json: { fields: moved } });
    expect(saved.status).toBe(200);
    expect(saved.body.fields).toEqual(moved);
    const invalid = await api.request('PUT', `/envelopes/${id}`, { token: owner.token, json: { fields: [{ ...moved[0], formFieldName: 'x' }] } });
    expectProblem(invalid, 400);
    expect(invalid.body.errors).toEqual([{ path: 'fields.0.formFieldName', message: 'goes only with source formField' }]);
  });

  test('a sent envelope is locked (409), a draft without its upload is 409, another owner\'s is 404, no token is 401', async () => {
    const { id } = await draftWith(await tagged(['{{signature}}']), [ada]);
    expect((await detect(id)).status).toBe(200);
    expect((await api.request('PUT', `/envelopes/${id}`, { token: owner.token, json: { status: 'sent' } })).status).toBe(200);
    const locked = await detect(id);
    expectProblem(locked, 409);
    expect(locked.body.type).toBe('urn:problem:envelope-locked');

    const empty = await createEnvelopeWithDocument(api, owner, null);
    const notUploaded = await detect(empty);
    expectProblem(notUploaded, 409);
    expect(notUploaded.body.type).toBe('urn:problem:document-not-uploaded');

    const stranger = await env.newUser();
    expectProblem(await detect(id, stranger.token), 404);
    expectProblem(await api.request('POST', `/envelopes/${id}/fields/detect`), 401);
  });

  test('a tag without r when the envelope has no signer with role signer: 422 text-tag-invalid', async () => {
    const { id } = await draftWith(await tagged(['{{text}}']), [cat]);
    const answer = await detect(id);
    expectProblem(answer, 422);
    expect(answer.body.type).toBe('urn:problem:text-tag-invalid');
  });

  test('form fields when the envelope has no signer with role signer: 409 no-signer naming the field', async () => {
    const document = PDF.create();
    const page = document.addPage();
    page.drawField(document.getOrCreateForm().createTextField('company'), { x: 100, y: 600, width: 200, height: 24 });
    const { id } = await draftWith(await document.save(), [cat]);
    const answer = await detect(id);
    expectProblem(answer, 409);
    expect(answer.body.type).toBe('urn:problem:no-signer');
    expect(answer.body.detail).toContain('"company" on page 1');
  });
});

describe('detection stays within the document limits', () => {
  /** A Ghostscript document of `pages` pages of text, with a tag on the last. */
  async function longDocument(pages: number): Promise<Buffer> {
    const program = `%!PS
/Helvetica findfont 10 scalefont setfont
1 1 ${pages} { /n exch def
  0 1 40 { 72 exch 16 mul 60 add moveto (Line of body text on a long document, page after page.) show } for
  n ${pages} eq { 72 40 moveto (\\{\\{signature;label=Last\\}\\}) show } if
  showpage } for
`;
    const source = await tempFile(Buffer.from(program, 'latin1'), 'long.ps');
    const made = await tool('gs', ['-q', '-dSAFER', '-dBATCH', '-dNOPAUSE', '-sDEVICE=pdfwrite', '-sPAPERSIZE=letter', `-sOutputFile=${source}.pdf`, source]);
    expect(made.code).toBe(0);
    return await readFile(`${source}.pdf`);
  }

  test('a 1,000-page document is read whole: the tag on its last page is found', async () => {
    const { id } = await draftWith(await longDocument(1000), [ada]);
    const answer = await detect(id);
    expect(answer.status).toBe(200);
    expect(answer.body.fields).toEqual([expect.objectContaining({ page: 1000, type: 'signature', label: 'Last' })]);
  }, patience(120_000));

  test('over the page bound: 422 document-too-complex, nothing changed', async () => {
    const { id } = await draftWith(await longDocument(2001), [ada]);
    const answer = await detect(id);
    expectProblem(answer, 422);
    expect(answer.body.type).toBe('urn:problem:document-too-complex');
    expect(answer.body.detail).toContain('2001 pages');
    expect((await api.request('GET', `/envelopes/${id}`, { token: owner.token })).body.fields).toEqual([]);
  }, patience(120_000));

  test('over the time budget: 422 document-too-complex naming the page it stopped at', async () => {
    await expect(detectDocumentFields({ document: await longDocument(50), timeoutMs: 0 })).rejects.toMatchObject({ status: 422, type: 'urn:problem:document-too-complex', detail: expect.stringContaining('stopped at page 1 of 50') });
  }, patience(60_000));
});
