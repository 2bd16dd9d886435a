import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { sealDocument } from '../../src/lib/pdf/index.js';
import type { CompletionCertificate } from '../../src/lib/pdf/index.js';
import { certificateFor, collapse, recipientFor, corpusFile, developmentSealer, internationalSigners, pdfinfo, pdftotext, run, scratchDir } from './pdfTools.js';
import type { Sealer } from './pdfTools.js';

let sealer: Sealer;
let scratch: Awaited<ReturnType<typeof scratchDir>>;

beforeAll(async () => {
  [sealer, scratch] = await Promise.all([developmentSealer(), scratchDir()]);
});

afterAll(async () => {
  await scratch.remove();
});

async function sealNormal(overrides: Partial<CompletionCertificate>) {
  const document = await corpusFile('normal.pdf');
  const certificate = certificateFor(document, overrides);
  const result = await sealDocument({ document, certificate, ...sealer });
  const file = await scratch.write(`${certificate.envelopeId}.pdf`, result.sealed);
  const certificateText = await pdftotext(file, ['-f', String(result.originalPageCount + 1)]);
  return { certificate, result, file, certificateText };
}

/** Word boxes of the certificate pages, from `pdftotext -bbox`. */
async function wordBoxes(file: string, firstPage: number): Promise<{ page: number; xMin: number; xMax: number; yMin: number; yMax: number }[]> {
  const html = await pdftotext(file, ['-bbox', '-f', String(firstPage)]);
  const boxes: { page: number; xMin: number; xMax: number; yMin: number; yMax: number }[] = [];
  let page = firstPage - 1;
  for (const line of html.split('\n')) {
    if (line.includes('<page ')) page++;
    const match = /<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)"/.exec(line);
    if (match !== null) boxes.push({ page, xMin: Number(match[1]), yMin: Number(match[2]), xMax: Number(match[3]), yMax: Number(match[4]) });
  }
  return boxes;
}

describe('certificate of completion (CONTRACT §10)', () => {
  test('shows envelope, document, owner, times, original SHA-256, every signer and every event as extractable text', async () => {
    const { certificate, result, certificateText } = await sealNormal({});
    expect(result.certificatePageCount).toBeGreaterThanOrEqual(1);
    const text = collapse(certificateText);
    for (const value of [certificate.envelopeId, certificate.documentName, certificate.ownerEmail, certificate.createdAt, certificate.completedAt, certificate.documentSha256]) {
      expect(text).toContain(value);
    }
    for (const signer of certificate.recipients) {
      for (const value of [signer.name, signer.email, signer.role, signer.id]) expect(text).toContain(value);
    }
    for (const event of certificate.events) {
      expect(text).toContain(event.type);
      expect(text).toContain(event.at);
    }
  });

  test('embeds its fonts subsetted, with ToUnicode maps, covering Chinese, Arabic, Hebrew, Cyrillic and Greek', async () => {
    const { file, result } = await sealNormal({});
    const { stdout } = await run('pdffonts', ['-f', String(result.originalPageCount + 1), file]);
    const fonts = stdout.split('\n').slice(2).filter((line) => line.trim() !== '');
    const noto = fonts.filter((line) => /\+Noto/.test(line));
    expect(noto.map((line) => /\+(Noto[\w-]+)/.exec(line)?.[1]).sort()).toEqual(
      ['NotoNaskhArabic', 'NotoSans-Bold', 'NotoSans-Regular', 'NotoSansHebrew', 'NotoSansSC-Regular'].sort(),
    );
    // emb, sub and uni all "yes": embedded, subsetted, with a ToUnicode map.
    for (const line of noto) expect(line).toMatch(/yes\s+yes\s+yes/);
    // The Chinese font alone is over 10 MB; subsetted, the whole sealed file stays small.
    const original = await corpusFile('normal.pdf');
    expect(result.sealed.length - original.length).toBeLessThan(400 * 1024);
  });

  test('flows over as many pages as 100 signers and 400 events need, each page numbered, nothing lost', async () => {
    const signers = Array.from({ length: 100 }, (_, index) => ({
      id: randomUUID(),
      ...(internationalSigners[index % internationalSigners.length] ?? { name: '', email: '', role: 'signer' }),
      email: `signer${index}@example.com`,
    }));
    const actor = 'owner@example.com';
    const events = Array.from({ length: 400 }, (_, index) => ({
      sequence: index + 1,
      type: index % 2 === 0 ? 'envelope.signers_replaced' : 'envelope.sent',
      at: new Date(Date.UTC(2026, 10, 22, 10, 0, index)).toISOString(),
      actorEmail: index % 5 === 0 ? null : actor,
    }));
    const { certificate, result, file, certificateText } = await sealNormal({ recipients: signers.map(recipientFor), events });
    expect(result.certificatePageCount).toBeGreaterThan(5);
    expect((await pdfinfo(file)).pages).toBe(result.originalPageCount + result.certificatePageCount);
    const text = collapse(certificateText);
    for (const signer of certificate.recipients) {
      expect(text).toContain(signer.email);
      expect(text).toContain(signer.id);
    }
    for (const event of certificate.events) expect(text).toContain(event.at);
    for (let page = 1; page <= result.certificatePageCount; page++) expect(text).toContain(`Page ${page} of ${result.certificatePageCount}`);
    // Every word inside the A4 page (595 × 842 pt), none in the margins.
    const boxes = await wordBoxes(file, result.originalPageCount + 1);
    for (const box of boxes) {
      expect(box.xMin).toBeGreaterThanOrEqual(50);
      expect(box.xMax).toBeLessThanOrEqual(545);
      expect(box.yMin).toBeGreaterThanOrEqual(40);
      expect(box.yMax).toBeLessThanOrEqual(820);
    }
  });

  test('wraps long names, e-mails and document names inside the page instead of cutting them', async () => {
    const longName = 'Maria del Carmen Esperanza Guadalupe de los Santos Villanueva-Rodríguez y Fernández de Córdoba ' +
      'Hohenzollern-Sigmaringen 慕容雪儿 عبد الرحمن بن عبد العزيز';
    const longEmail = `${'very.long.local.part.'.repeat(6)}end@${'sub-domain.'.repeat(6)}example.com`;
    const { file, result, certificateText } = await sealNormal({
      documentName: `${'Master services agreement with schedules and annexes '.repeat(4)}.pdf`,
      recipients: [recipientFor({ id: randomUUID(), name: longName, email: longEmail, role: 'signer' })],
    });
    const text = collapse(certificateText);
    for (const word of longName.split(' ')) expect(text).toContain(word);
    // The e-mail is broken across lines but nothing of it is lost.
    expect(certificateText.replace(/\s+/g, '')).toContain(longEmail);
    for (const box of await wordBoxes(file, result.originalPageCount + 1)) expect(box.xMax).toBeLessThanOrEqual(545);
  });

  test('keeps a SHA-256 on one line whatever its digits (the widest hex digits fill the whole value column)', async () => {
    const { certificateText } = await sealNormal({ documentSha256: 'bdbd'.repeat(16) });
    expect(certificateText.split('\n')).toContain('bdbd'.repeat(16));
  });

  test('keeps an actor id on the line of its audit event whatever its digits (the widest hex digits)', async () => {
    const actorId = 'bdbdbdbd-bdbd-7bdb-bdbd-bdbdbdbdbdbd';
    const { certificateText } = await sealNormal({ events: [{ sequence: 1, type: 'envelope.signers_replaced', at: '2026-11-22T10:20:00.000Z', actorEmail: actorId }] });
    expect(certificateText).toMatch(/envelope\.signers_replaced\s+bdbdbdbd-bdbd-7bdb-bdbd-bdbdbdbdbdbd\n/);
  });

  test('draws characters no font covers (Korean, emoji) as a placeholder glyph, keeping the real characters in the text', async () => {
    const { certificateText } = await sealNormal({ recipients: [recipientFor({ id: randomUUID(), name: '김민준 🖋️ Kim', email: 'kim@example.kr', role: 'signer' })] });
    expect(collapse(certificateText)).toContain('김민준');
    expect(collapse(certificateText)).toContain('Kim');
  });

  test('removes bidi override characters, so a name cannot be made to display as something else', async () => {
    const { certificateText } = await sealNormal({ recipients: [recipientFor({ id: randomUUID(), name: 'Eve \u202Egnp.exe\u202C Mallory', email: 'eve@example.com', role: 'signer' })] });
    expect(certificateText).not.toContain('\u202E');
    expect(collapse(certificateText)).toContain('Eve gnp.exe Mallory');
  });
});
