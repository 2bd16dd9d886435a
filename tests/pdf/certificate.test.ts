import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import * as harfbuzz from 'harfbuzzjs';
import { describe, expect, test } from '@jest/globals';
import { describeAuditTrail } from '../../src/lib/envelopes/auditSentences.js';
import { serviceDisclosure } from '../../src/lib/i18n/disclosure.js';
import { sealDocument } from '../../src/lib/pdf/index.js';
import type { CertificateRecipient, CompletionCertificate, SignatureValue } from '../../src/lib/pdf/index.js';
import { pdfWithPages } from './geometryPdfs.js';
import type { PageSpec } from './geometryPdfs.js';
import { certificateFor, collapse, corpusFile, internationalSigners, pdfinfo, pdftotext, recipientFor, run, sealingForFile } from './pdfTools.js';
import type { Scratch, Sealer } from './pdfTools.js';

let sealer: Sealer;
let scratch: Scratch;
sealingForFile((started) => ({ sealer, scratch } = started));

/** Names in every script docs/api.md#evidence lists, emoji and a few more scripts, each with its own e-mail address. */
const everyScript = [
  { name: 'Ada Lovelace', email: 'latin@example.com' },
  { name: 'Γιώργος Παπαδόπουλος', email: 'greek@example.gr' },
  { name: 'Пётр Чайковский', email: 'cyrillic@example.ru' },
  { name: 'محمد عبد الله', email: 'arabic@example.sa' },
  { name: 'דוד כהן', email: 'hebrew@example.il' },
  { name: '王小明', email: 'chinese@example.cn' },
  { name: '山田 やまだ タロウ', email: 'japanese@example.jp' },
  { name: '김민준', email: 'korean@example.kr' },
  { name: 'अनुच्छेद क्षत्रिय', email: 'devanagari@example.in' },
  { name: 'বাংলা নাম', email: 'bengali@example.bd' },
  { name: 'தமிழ் பெயர்', email: 'tamil@example.in' },
  { name: 'สมชาย ใจดี', email: 'thai@example.th' },
  { name: 'Fan 🖋️ 👩‍💻 🇫🇷 1️⃣', email: 'emoji@example.com' },
  { name: 'Արամ Խաչատրյան', email: 'armenian@example.am' },
  { name: 'ნინო ბერიძე', email: 'georgian@example.ge' },
  { name: 'ሰላም ተስፋዬ', email: 'ethiopic@example.et' },
];

const strokes: [number, number][][] = [
  [[0.05, 0.6], [0.1, 0.2], [0.18, 0.75], [0.25, 0.3], [0.32, 0.7], [0.4, 0.4], [0.5, 0.5], [0.7, 0.3], [0.9, 0.6]],
  [[0.2, 0.85], [0.8, 0.8]],
];

/** A recipient who acted, as a completed envelope's certificate shows it. */
function actedRecipient(options: { name: string; email: string; role?: string; signature?: SignatureValue | null }): CertificateRecipient {
  const role = options.role ?? 'signer';
  return {
    id: randomUUID(),
    name: options.name,
    email: options.email,
    role,
    routingOrder: 2,
    status: role === 'signer' ? 'signed' : role === 'approver' ? 'approved' : 'viewed',
    actedAt: '2026-11-22T13:37:06.789Z',
    ip: '203.0.113.42',
    userAgent: 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Safari/537.36',
    identification: `Signing link e-mailed to ${options.email}`,
    language: 'English (en)',
    consent: { at: '2026-11-22T13:37:06.789Z', version: 'esd-0123456789ab' },
    signature: options.signature === undefined ? (role === 'signer' ? { typed: options.name } : null) : options.signature,
  };
}

async function seal(document: Uint8Array, overrides: Partial<CompletionCertificate>) {
  const certificate = certificateFor(document, overrides);
  const result = await sealDocument({ document, certificate, ...sealer });
  const file = await scratch.write(`${certificate.envelopeId}.pdf`, result.sealed);
  const firstPage = result.originalPageCount + 1;
  const certificateText = await pdftotext(file, ['-f', String(firstPage)]);
  return { certificate, result, file, firstPage, certificateText };
}

async function sealNormal(overrides: Partial<CompletionCertificate>) {
  return await seal(await corpusFile('normal.pdf'), overrides);
}

interface WordBox {
  page: number;
  text: string;
  xMin: number;
  xMax: number;
  yMin: number;
  yMax: number;
}

/** Word boxes of the pages from `firstPage` on, from `pdftotext -bbox` (page coordinates as displayed, origin top-left). */
async function wordBoxes(file: string, firstPage: number): Promise<WordBox[]> {
  const html = await pdftotext(file, ['-bbox', '-f', String(firstPage)]);
  const boxes: WordBox[] = [];
  let page = firstPage - 1;
  for (const line of html.split('\n')) {
    if (line.includes('<page ')) page++;
    const match = /<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">(.*)<\/word>/.exec(line);
    if (match !== null) {
      const text = (match[5] ?? '').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&amp;/g, '&');
      boxes.push({ page, text, xMin: Number(match[1]), yMin: Number(match[2]), xMax: Number(match[3]), yMax: Number(match[4]) });
    }
  }
  return boxes;
}

/** Size and rotation of one page, from pdfinfo. */
async function pageSize(file: string, page: number): Promise<{ width: number; height: number; rotation: number }> {
  const { stdout } = await run('pdfinfo', ['-f', String(page), '-l', String(page), file]);
  const size = new RegExp(`^Page\\s+${page} size:\\s+([\\d.]+) x ([\\d.]+) pts`, 'm').exec(stdout);
  const rotation = new RegExp(`^Page\\s+${page} rot:\\s+(\\d+)`, 'm').exec(stdout);
  return { width: Number(size?.[1]), height: Number(size?.[2]), rotation: Number(rotation?.[1]) };
}

/** Every glyph MuPDF draws on the pages from `firstPage` on (`mutool trace`): its font and glyph id. */
async function drawnGlyphs(file: string, firstPage: number, lastPage: number): Promise<{ font: string; glyph: number }[]> {
  const { stdout } = await run('mutool', ['trace', file, `${firstPage}-${lastPage}`]);
  const glyphs: { font: string; glyph: number }[] = [];
  let font = '';
  for (const line of stdout.split('\n')) {
    const span = /<span font="([^"]*)"/.exec(line);
    if (span !== null) font = span[1] ?? '';
    const glyph = /<g [^>]*glyph="(\d+)"/.exec(line);
    if (glyph !== null) glyphs.push({ font, glyph: Number(glyph[1]) });
  }
  return glyphs;
}

describe('certificate of completion (docs/api.md#evidence)', () => {
  test('shows the envelope, every recipient and every audit event as extractable text', async () => {
    const recipients = [
      actedRecipient({ name: 'Ada Lovelace', email: 'ada@example.com', signature: { typed: 'Ada Lovelace' } }),
      actedRecipient({ name: 'Charles Babbage', email: 'charles@example.com', role: 'approver' }),
      { ...recipientFor({ id: randomUUID(), name: 'Carol Copy', email: 'carol@example.com', role: 'cc' }), status: 'sent' },
    ];
    const { certificate, result, certificateText } = await sealNormal({ recipients, pageCount: 2 });
    expect(result.certificatePageCount).toBeGreaterThanOrEqual(1);
    const text = collapse(certificateText);
    for (const value of [certificate.envelopeId, certificate.documentName, certificate.ownerEmail, certificate.documentSha256]) expect(text).toContain(value);
    expect(text).toMatch(/Pages 2\b/);
    expect(text).toContain('Created 2026-11-22 10:15:30 UTC');
    expect(text).not.toContain(`<${certificate.ownerEmail}>`);
    expect(text).toContain('Sent 2026-11-22 10:21:00 UTC');
    expect(text).toContain('Completed 2026-11-22 11:02:03 UTC');
    for (const recipient of certificate.recipients) {
      for (const value of [recipient.name, recipient.email, recipient.role, recipient.id, recipient.status]) expect(text).toContain(value);
    }
    expect(text).toContain('Routing order 2');
    expect(text).toContain('Acted 2026-11-22 13:37:06 UTC');
    expect(text).toContain('IP address 203.0.113.42');
    expect(text).toContain('Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36');
    expect(text).toContain('Identified by Signing link e-mailed to ada@example.com');
    expect(text).toContain('Language English (en)');
    // The typed signature is drawn (in the handwriting font) besides the name.
    expect(text.split('Ada Lovelace').length - 1).toBeGreaterThanOrEqual(2);
    for (const event of certificate.events) expect(text).toContain(event.type);
  });

  test('prints every time as `2026-11-22 13:37:06 UTC`, never as an ISO 8601 timestamp', async () => {
    const { certificateText } = await sealNormal({ recipients: [actedRecipient({ name: 'Ada', email: 'ada@example.com' })] });
    const text = collapse(certificateText);
    expect(text).not.toMatch(/\d{4}-\d\d-\d\dT\d\d:\d\d/);
    expect(text).toContain('2026-11-22 10:20:00 UTC');
    expect(text.match(/\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC/g)?.length).toBeGreaterThanOrEqual(7);
  });

  test('names the owner as `Name <address>` when the owner gave a display name (docs/api.md#accounts)', async () => {
    const { certificateText } = await sealNormal({ ownerName: 'Grace Hopper', recipients: [actedRecipient({ name: 'Ada', email: 'ada@example.com' })] });
    expect(collapse(certificateText)).toContain('Owner Grace Hopper <owner@example.com>');
  });

  test('prints the audit trail as sentences naming who did what to whom, the raw type in small print, and the IP address', async () => {
    const owner = { id: randomUUID(), email: 'owner@example.com' };
    const tenant = { id: randomUUID(), email: 'tenant@example.com', name: 'Tom Tenant', role: 'signer' as const };
    const landlord = { id: randomUUID(), email: 'landlord@example.com', name: 'Lena Landlord', role: 'signer' as const };
    const base = { ip: '203.0.113.7', userAgent: null, apiKeyId: null };
    const trail = [
      { ...base, sequence: 1, type: 'envelope.created', at: '2026-11-22T10:15:30.123Z', actorId: owner.id, actorEmail: owner.email, details: { documentName: 'Lease.pdf' } },
      { ...base, sequence: 2, type: 'recipient.invited', at: '2026-11-22T10:16:00.000Z', actorId: owner.id, actorEmail: owner.email, details: { recipientId: tenant.id, email: tenant.email, resend: false } },
      { ...base, ip: '198.51.100.23', sequence: 3, type: 'recipient.signed', at: '2026-11-22T10:17:00.000Z', actorId: tenant.id, actorEmail: tenant.email, details: { recipientId: tenant.id, consent: { text: 'x', version: 'esd-0123456789ab' } } },
      { ...base, ip: '198.51.100.23', sequence: 4, type: 'recipient.invited', at: '2026-11-22T10:17:00.000Z', actorId: tenant.id, actorEmail: tenant.email, details: { recipientId: landlord.id, email: landlord.email, resend: false } },
      { ...base, ip: null, sequence: 5, type: 'envelope.expired', at: '2026-12-22T10:16:00.000Z', actorId: 'system', actorEmail: null, details: {} },
    ];
    const sentences = describeAuditTrail(trail, { ownerId: owner.id, ownerEmail: owner.email, recipients: [tenant, landlord] });
    expect(sentences).toEqual([
      'Envelope created by owner@example.com for the document "Lease.pdf".',
      'Invitation e-mailed to tenant@example.com.',
      'tenant@example.com signed, agreeing to do so electronically (disclosure esd-0123456789ab).',
      'Invitation e-mailed to landlord@example.com, after tenant@example.com signed.',
      'Envelope expired before everyone had acted.',
    ]);
    const events = trail.map((event, index) => ({ sequence: event.sequence, type: event.type, at: event.at, sentence: sentences[index]!, ip: event.ip }));
    const { file, firstPage, certificateText } = await sealNormal({ events });
    const text = collapse(certificateText);
    for (const sentence of sentences) expect(text).toContain(sentence);
    expect(text).toContain('What happened');
    expect(text).toContain('198.51.100.23');
    // The raw type follows its sentence, in smaller print.
    const boxes = await wordBoxes(file, firstPage);
    const invited = boxes.filter((box) => box.text === 'recipient.invited');
    const invitation = boxes.find((box) => box.text === 'Invitation');
    expect(invited).toHaveLength(2);
    expect(invitation).toBeDefined();
    for (const box of invited) expect(box.yMax - box.yMin).toBeLessThan((invitation!.yMax - invitation!.yMin) * 0.9);
  });

  test('prints the disclosure once and, for each recipient who acted, the consent given with its time and version', async () => {
    const disclosure = { text: 'Consent to use electronic records and signatures. By ticking the box you agree.', version: 'esd-0123456789ab' };
    const { certificateText } = await sealNormal({ disclosures: [{ ...disclosure, language: 'English (en)' }], recipients: [actedRecipient({ name: 'Ada', email: 'ada@example.com' }), actedRecipient({ name: 'Bo', email: 'bo@example.com', role: 'approver' })] });
    const text = collapse(certificateText);
    expect(text.split(disclosure.text)).toHaveLength(2);
    expect(text).toContain('Agreed to sign electronically on 2026-11-22 13:37:06 UTC, after being shown the disclosure esd-0123456789ab.');
    expect(text).toContain('Agreed to approve electronically on 2026-11-22 13:37:06 UTC');
    expect(text).toContain('(as reported by the browser)');
  });

  test('prints each distinct disclosure version once, in its own script, with its version and language, an organisation\'s line breaks kept', async () => {
    const japanese = { text: serviceDisclosure('ja').text, version: serviceDisclosure('ja').version, language: 'Japanese (ja)' };
    const arabic = { text: serviceDisclosure('ar').text, version: serviceDisclosure('ar').version, language: 'Arabic (ar)' };
    const own = { text: 'Our own words, first paragraph, about signing electronically.\nSecond paragraph: paper copies on request.', version: 'esd-00000000000a', language: 'German (de)' };
    const { certificateText } = await sealNormal({ disclosures: [japanese, arabic, own], recipients: [actedRecipient({ name: 'Ada', email: 'ada@example.com' })] });
    const squeezed = certificateText.replace(/\s/g, '');
    for (const disclosure of [japanese, own]) expect(squeezed.split(disclosure.text.replace(/\s/g, ''))).toHaveLength(2);
    // pdftotext breaks Arabic words where ligatures join their letters: its words are there once the spaces go.
    const arabicText = squeezed.replace(/[\u202A-\u202E]/g, '');
    for (const word of ['الموافقة', 'الإلكترونية', 'المغلف', 'المختومة']) expect(arabicText).toContain(word);
    expect(squeezed).toContain(`Disclosure${japanese.version}(Japanese(ja)),shownwordforwordtotherecipientswhoagreedtoit:`);
    expect(squeezed).toContain(`Disclosure${arabic.version}(Arabic(ar))`);
    expect(squeezed).toContain(`Disclosure${own.version}(German(de))`);
    // Each line of the organisation's text is a paragraph of its own.
    expect(certificateText).toMatch(/about signing electronically\.\s*\n\s*Second paragraph/);
  });

  test('prints the document\'s SHA-256 as uploaded and as frozen, and the kinds of content removed; without the upload\'s, the frozen one alone', async () => {
    const uploadSha256 = 'b'.repeat(64);
    const cleaned = collapse((await sealNormal({ uploadSha256, documentSha256: 'c'.repeat(64), removed: ['javascript', 'embeddedFile'] })).certificateText);
    // Labels and values in the order printed (a long label may wrap beside its value).
    const order = ['SHA-256 as uploaded', uploadSha256, 'SHA-256 as frozen', 'c'.repeat(64), 'Content removed', 'javascript, embeddedFile'].map((part) => cleaned.indexOf(part));
    expect(order.every((at) => at >= 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect(cleaned).toContain('(after cleaning)');
    expect(cleaned).not.toContain('Document SHA-256');
    const plain = collapse((await sealNormal({ uploadSha256, documentSha256: uploadSha256, removed: [] })).certificateText);
    expect(plain).toContain('Content removed None');
    const unknown = collapse((await sealNormal({ uploadSha256: null, documentSha256: 'c'.repeat(64) })).certificateText);
    expect(unknown).toContain(`Document SHA-256 ${'c'.repeat(64)}`);
    expect(unknown).not.toContain('SHA-256 as uploaded');
  });

  describe('pages of the size and orientation of the document\'s last page', () => {
    const cases: [string, PageSpec[], { width: number; height: number }][] = [
      ['Letter after A4', [{ mediaBox: [0, 0, 595, 842] }, { mediaBox: [0, 0, 612, 792] }], { width: 612, height: 792 }],
      ['A4 landscape', [{ mediaBox: [0, 0, 842, 595] }], { width: 842, height: 595 }],
      ['A4 portrait turned by /Rotate 90 (displayed landscape)', [{ mediaBox: [0, 0, 595, 842], rotate: 90 }], { width: 842, height: 595 }],
      ['a crop box offset inside the media box', [{ mediaBox: [-20, -20, 700, 900], cropBox: [30, 40, 530, 740] }], { width: 500, height: 700 }],
      ['rotation and crop box inherited from the page tree', [{ mediaBox: [0, 0, 842, 595], cropBox: [100, 50, 742, 545], rotate: 270, inherit: true }], { width: 495, height: 642 }],
    ];
    test.each(cases)('%s', async (_name, pages, expected) => {
      const document = new Uint8Array(pdfWithPages(pages));
      const recipients = internationalSigners.map((signer) => actedRecipient(signer));
      const { result, file, firstPage, certificateText } = await seal(document, { recipients, pageCount: pages.length });
      for (let page = firstPage; page < firstPage + result.certificatePageCount; page++) {
        expect(await pageSize(file, page)).toEqual({ ...expected, rotation: 0 });
      }
      for (const recipient of recipients) expect(collapse(certificateText)).toContain(recipient.name);
      for (const box of await wordBoxes(file, firstPage)) {
        expect(box.xMin).toBeGreaterThanOrEqual(0);
        expect(box.xMax).toBeLessThanOrEqual(expected.width);
        expect(box.yMin).toBeGreaterThanOrEqual(0);
        expect(box.yMax).toBeLessThanOrEqual(expected.height);
      }
    });
  });

  test('flows 100 recipients and 400 events over numbered pages, never splitting a recipient\'s block', async () => {
    const recipients = Array.from({ length: 100 }, (_, index) => {
      const person = everyScript[index % everyScript.length] ?? { name: 'Nobody', email: 'nobody@example.com' };
      const role = ['signer', 'approver', 'viewer', 'signer'][index % 4] ?? 'signer';
      return actedRecipient({
        name: person.name,
        email: `r${index}.${person.email}`,
        role,
        signature: role !== 'signer' ? null : index % 8 === 0 ? { strokes } : { typed: person.name },
      });
    });
    const events = Array.from({ length: 400 }, (_, index) => ({
      sequence: index + 1,
      type: index % 2 === 0 ? 'recipient.signed' : 'envelope.sent',
      at: new Date(Date.UTC(2026, 10, 22, 10, 0, index)).toISOString(),
      sentence: `${index % 5 === 0 ? 'the service' : `r${index % 100}.actor@example.com`} did step ${index + 1}.`,
      ip: index % 5 === 0 ? null : '203.0.113.9',
    }));
    const { certificate, result, file, firstPage, certificateText } = await sealNormal({ recipients, events });
    expect(result.certificatePageCount).toBeGreaterThan(10);
    expect((await pdfinfo(file)).pages).toBe(result.originalPageCount + result.certificatePageCount);
    const text = collapse(certificateText);
    for (const recipient of certificate.recipients) {
      expect(text).toContain(recipient.email);
      expect(text).toContain(recipient.id);
    }
    for (const event of certificate.events) expect(text).toContain(`${event.sequence} ${event.at.slice(0, 10)} ${event.at.slice(11, 19)} UTC`);
    for (let page = 1; page <= result.certificatePageCount; page++) expect(text).toContain(`Page ${page} of ${result.certificatePageCount}`);

    const boxes = await wordBoxes(file, firstPage);
    // Every word inside the Letter page's margins.
    for (const box of boxes) {
      expect(box.xMin).toBeGreaterThanOrEqual(45);
      expect(box.xMax).toBeLessThanOrEqual(567);
      expect(box.yMin).toBeGreaterThanOrEqual(40);
      expect(box.yMax).toBeLessThanOrEqual(772);
    }
    // A block runs from its number ("17.") to its recipient id: both on the same page, and every
    // page's first block number follows the previous page's last.
    const numberPage = new Map<number, number>();
    for (const box of boxes) {
      const number = /^(\d+)\.$/.exec(box.text);
      if (number !== null && box.xMin < 60) numberPage.set(Number(number[1]), box.page);
    }
    certificate.recipients.forEach((recipient, index) => {
      const idBox = boxes.find((box) => box.text === recipient.id);
      expect(idBox).toBeDefined();
      expect(numberPage.get(index + 1)).toBe(idBox?.page);
      if (recipient.role === 'signer') {
        // A signer's block ends with its signature and caption, on the same page too.
        const caption = boxes.filter((box) => box.page === idBox?.page && (box.text === 'Drawn' || box.text === 'Typed') && (box.yMin > (idBox?.yMax ?? 0)));
        expect(caption.length).toBeGreaterThanOrEqual(1);
      }
    });
  });

  test('breaks a long e-mail address at `@` or `.`, not inside a word', async () => {
    const email = 'first.middle.lastname.department.of.procurement.and.legal.affairs@subdomain.example-company.example.com';
    const { file, firstPage } = await sealNormal({
      events: [{ sequence: 1, type: 'envelope.signers_replaced', at: '2026-11-22T10:20:00.000Z', sentence: `Recipients changed by ${email}.`, ip: null }],
    });
    // The column of what happened is narrower than the address: it takes more than one line.
    const pieces = (await wordBoxes(file, firstPage)).filter((box) => box.xMin > 180 && box.text.length > 3 && email.includes(box.text.replace(/\.$/, ''))).map((box) => ({ ...box, text: box.text.replace(/\.$/, '') }));
    pieces.sort((a, b) => a.yMin - b.yMin);
    expect(pieces.length).toBeGreaterThan(1);
    expect(pieces.map((piece) => piece.text).join('')).toBe(email);
    for (let index = 1; index < pieces.length; index++) {
      const before = pieces[index - 1]?.text ?? '';
      const after = pieces[index]?.text ?? '';
      expect(before.endsWith('@') || after.startsWith('.')).toBe(true);
    }
  });

  test('continues a value taller than a page (a user agent of kilobytes) on the next page instead of running off it', async () => {
    const userAgent = Array.from({ length: 900 }, (_, index) => `Token${index}/1.0`).join(' ');
    const recipient = { ...actedRecipient({ name: 'Long Agent', email: 'agent@example.com', role: 'viewer' }), userAgent };
    const { file, firstPage, certificateText } = await sealNormal({ recipients: [recipient] });
    const text = collapse(certificateText);
    expect(text).toContain('Token0/1.0 Token1/1.0');
    expect(text).toContain('Token898/1.0 Token899/1.0');
    for (const box of await wordBoxes(file, firstPage)) {
      expect(box.yMin).toBeGreaterThanOrEqual(40);
      expect(box.yMax).toBeLessThanOrEqual(772);
    }
  });

  test('keeps a SHA-256 on one line whatever its digits (the widest hex digits fill the whole value column)', async () => {
    const { certificateText } = await sealNormal({ documentSha256: 'bdbd'.repeat(16) });
    expect(certificateText.split('\n')).toContain('bdbd'.repeat(16));
  });

  test('draws every script with real glyphs that extract as the original characters', async () => {
    const recipients = everyScript.map((person) => actedRecipient(person));
    const { file, result, firstPage, certificateText } = await sealNormal({ recipients });
    const text = collapse(certificateText);
    for (const person of everyScript) expect(text).toContain(person.name);
    expect(certificateText).not.toContain('\uFFFD');
    // Every glyph drawn is a real glyph of its font: none is .notdef (glyph 0).
    const glyphs = await drawnGlyphs(file, firstPage, result.originalPageCount + result.certificatePageCount);
    expect(glyphs.length).toBeGreaterThan(1000);
    expect(glyphs.filter((glyph) => glyph.glyph === 0)).toEqual([]);
    // One font per script family, all embedded as subsets with a ToUnicode map (emb, sub, uni: yes).
    const { stdout } = await run('pdffonts', ['-f', String(firstPage), file]);
    const fonts = stdout.split('\n').slice(2).filter((line) => line.trim() !== '');
    const names = [...new Set(fonts.map((line) => /^[A-Z]{6}\+([\w-]+)/.exec(line)?.[1]))].sort();
    expect(names).toEqual(
      [
        'Caveat-Regular',
        'NotoEmoji-Regular',
        'NotoSansArmenian-Regular',
        'NotoSansEthiopic-Regular',
        'NotoSansGeorgian-Regular',
        'NotoNaskhArabic-Regular',
        'NotoSans-Bold',
        'NotoSans-Regular',
        'NotoSansBengali-Regular',
        'NotoSansHebrew-Regular',
        'NotoSansKR-Regular',
        'NotoSansSC-Regular',
        'NotoSansTamil-Regular',
        'NotoSansThai-Regular',
      ].sort(),
    );
    for (const line of fonts) expect(line).toMatch(/CID TrueType\s+Identity-H\s+yes\s+yes\s+yes/);
  });

  test('joins Arabic letters and forms the lam-alef ligature', async () => {
    const name = 'سلام لا';
    const { file, firstPage, result, certificateText } = await sealNormal({
      recipients: [actedRecipient({ name, email: 'lamalef@example.sa', role: 'viewer' })],
      documentName: 'agreement.pdf',
    });
    expect(collapse(certificateText)).toContain(name);
    // What HarfBuzz makes of the name in the vendored font, with and without the required ligatures
    // (Noto Naskh Arabic draws lam-alef as a pair of ligature glyphs, `rlig`), and unjoined.
    const font = new harfbuzz.Font(new harfbuzz.Face(new harfbuzz.Blob(await readFile('assets/fonts/NotoNaskhArabic-Regular.ttf'))));
    const shape = (text: string, features: harfbuzz.Feature[] = []): number[] => {
      const buffer = new harfbuzz.Buffer();
      buffer.addText(text);
      buffer.guessSegmentProperties();
      harfbuzz.shape(font, buffer, features);
      return buffer.getGlyphInfos().map((glyph) => glyph.codepoint);
    };
    const shaped = shape(name);
    expect(shaped).not.toEqual(shape(name, [new harfbuzz.Feature('rlig', 0)]));
    expect(shaped).not.toEqual(shape(name, [new harfbuzz.Feature('init', 0), new harfbuzz.Feature('medi', 0), new harfbuzz.Feature('fina', 0)]));
    // The certificate draws exactly the shaped glyphs, right to left.
    const drawn = (await drawnGlyphs(file, firstPage, result.originalPageCount + result.certificatePageCount))
      .filter((glyph) => glyph.font.endsWith('+NotoNaskhArabic-Regular'))
      .map((glyph) => glyph.glyph);
    expect(drawn).toEqual(shaped);
  });

  test('embeds only the glyphs used: the sealed file stays small', async () => {
    const recipients = everyScript.map((person) => actedRecipient(person));
    const original = await corpusFile('normal.pdf');
    const { result } = await sealNormal({ recipients });
    // The Chinese and Korean fonts alone are 16 MB; subsetted, the whole certificate adds little.
    expect(result.sealed.length - original.length).toBeLessThan(250 * 1024);
  });

  test('draws a drawn signature as vector strokes and a typed one in the handwriting font', async () => {
    const { file, firstPage, result, certificateText } = await sealNormal({
      recipients: [
        actedRecipient({ name: 'Ink Signer', email: 'ink@example.com', signature: { strokes } }),
        actedRecipient({ name: 'Typed Signer', email: 'typed@example.com', signature: { typed: 'Typed Signer' } }),
      ],
    });
    const text = collapse(certificateText);
    expect(text).toContain('Drawn by the signer');
    expect(text).toContain('Typed by the signer');
    const trace = (await run('mutool', ['trace', file, `${firstPage}-${result.originalPageCount + result.certificatePageCount}`])).stdout;
    // Two strokes with round caps (the rules under the signatures have butt caps).
    expect(trace.match(/<stroke_path [^>]*linecap="1,1,1"/g)?.length).toBe(2);
    expect(trace).toMatch(/<span font="[A-Z]{6}\+Caveat-Regular"/);
  });

  test('captions a typed signature "in a handwriting font" only when that font drew it: a script it lacks is captioned "typed"', async () => {
    const { certificateText } = await sealNormal({
      recipients: [
        actedRecipient({ name: 'Latin Signer', email: 'latin@example.com', signature: { typed: 'Zoë Signer' } }),
        actedRecipient({ name: 'Arabic Signer', email: 'arabic@example.com', signature: { typed: 'ليلى حداد' } }),
        actedRecipient({ name: 'Han Signer', email: 'han@example.com', signature: { typed: '王小明' } }),
        actedRecipient({ name: 'Mixed Signer', email: 'mixed@example.com', signature: { typed: 'Ali علي' } }),
      ],
    });
    const text = collapse(certificateText);
    // One handwriting caption (the Latin name); the other three say "typed" and no more.
    expect(text.split('Typed by the signer, shown in a handwriting font')).toHaveLength(2);
    expect(text.split('Typed by the signer')).toHaveLength(5);
  });

  test('removes bidi override characters, so a name cannot be made to display as something else', async () => {
    const { certificateText } = await sealNormal({ recipients: [recipientFor({ id: randomUUID(), name: 'Eve \u202Egnp.exe\u202C Mallory', email: 'eve@example.com', role: 'signer' })] });
    expect(certificateText).not.toContain('\u202E');
    expect(collapse(certificateText)).toContain('Eve gnp.exe Mallory');
  });
});
