import { readFile } from 'node:fs/promises';
import { beforeAll, describe, expect, test } from '@jest/globals';
import { sealDocument } from '../../src/lib/pdf/index.js';
import type { FieldDrawing } from '../../src/lib/pdf/index.js';
import { pdfWithPages } from './geometryPdfs.js';
import type { PageSpec } from './geometryPdfs.js';
import { certificateFor, collapse, expectValidSeal, pdftotext, run, sealingForFile } from './pdfTools.js';
import type { Scratch, Sealer } from './pdfTools.js';

let sealer: Sealer;
let scratch: Scratch;
sealingForFile((started) => ({ sealer, scratch } = started));

const strokes: [number, number][][] = [
  [[0.05, 0.6], [0.1, 0.2], [0.18, 0.75], [0.25, 0.3], [0.32, 0.7], [0.4, 0.4], [0.5, 0.5], [0.7, 0.3], [0.9, 0.6]],
  [[0.2, 0.85], [0.8, 0.8]],
];
const longText =
  'A much longer free text value that cannot fit on one line at the minimum size and wraps onto several lines inside its box 김민준 देवनागरी';

/** One field of each kind on page 1 (rectangles as fractions of the displayed page, origin top-left). */
const drawings: FieldDrawing[] = [
  { page: 1, x: 0.1, y: 0.05, width: 0.5, height: 0.08, type: 'signature', value: { strokes } },
  { page: 1, x: 0.1, y: 0.15, width: 0.5, height: 0.08, type: 'signature', value: { typed: 'Ada Lovelace' } },
  { page: 1, x: 0.65, y: 0.15, width: 0.2, height: 0.05, type: 'initials', value: { typed: 'AL' } },
  { page: 1, x: 0.1, y: 0.26, width: 0.35, height: 0.04, type: 'name', value: 'محمد عبد الله' },
  { page: 1, x: 0.5, y: 0.26, width: 0.35, height: 0.04, type: 'email', value: 'a.really.long.address@subdomain.example.com' },
  { page: 1, x: 0.1, y: 0.33, width: 0.2, height: 0.03, type: 'date_signed', value: '2026-11-22' },
  { page: 1, x: 0.35, y: 0.33, width: 0.05, height: 0.04, type: 'checkbox', value: true },
  { page: 1, x: 0.45, y: 0.33, width: 0.05, height: 0.04, type: 'checkbox', value: false },
  { page: 1, x: 0.1, y: 0.4, width: 0.3, height: 0.06, type: 'text', value: longText },
  { page: 1, x: 0.5, y: 0.4, width: 0.4, height: 0.05, type: 'signature', value: { typed: 'Пётр Γιώργος 王小明' } },
];

/** `value`, which a test cannot go on without. @throws Error naming `what` when it is missing */
function found<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`${what} is missing`);
  return value;
}

interface Gray {
  width: number;
  height: number;
  pixels: Uint8Array;
}

/** Page `page` of `file` rendered by poppler in grey at `dpi`, as displayed (`-cropbox`: the crop box, turned by /Rotate). */
async function render(file: string, page: number, dpi: number): Promise<Gray> {
  const prefix = `${file}-p${page}-${dpi}`;
  const { code } = await run('pdftoppm', ['-gray', '-cropbox', '-r', String(dpi), '-f', String(page), '-l', String(page), '-singlefile', file, prefix]);
  expect(code).toBe(0);
  const bytes = await readFile(`${prefix}.pgm`);
  const header = /^P5\s+(\d+)\s+(\d+)\s+255\s/.exec(bytes.subarray(0, 40).toString('latin1'));
  if (header === null) throw new Error(`Not a binary PGM: ${prefix}.pgm`);
  const width = Number(header[1]);
  const height = Number(header[2]);
  return { width, height, pixels: new Uint8Array(bytes.subarray(header[0].length, header[0].length + width * height)) };
}

/** A drawing's rectangle in pixels of a rendering, grown by `margin` pixels on every side. */
function pixelRect(drawing: FieldDrawing, image: Gray, margin: number): { left: number; top: number; right: number; bottom: number } {
  return {
    left: Math.floor(drawing.x * image.width) - margin,
    top: Math.floor(drawing.y * image.height) - margin,
    right: Math.ceil((drawing.x + drawing.width) * image.width) + margin,
    bottom: Math.ceil((drawing.y + drawing.height) * image.height) + margin,
  };
}

async function sealWith(spec: PageSpec, name: string) {
  const document = new Uint8Array(pdfWithPages([spec]));
  const certificate = certificateFor(document, { pageCount: 1 });
  const result = await sealDocument({ document, certificate, fieldDrawings: drawings, ...sealer });
  const original = await scratch.write(`${name}-original.pdf`, document);
  const sealed = await scratch.write(`${name}-sealed.pdf`, result.sealed);
  return { certificate, result, original, sealed };
}

/** Page geometries a viewer displays differently from the media box. */
const geometries: [string, PageSpec, { width: number; height: number }][] = [
  ['Letter, no rotation', { mediaBox: [0, 0, 612, 792] }, { width: 612, height: 792 }],
  ['A4 turned by /Rotate 90', { mediaBox: [0, 0, 595, 842], rotate: 90 }, { width: 842, height: 595 }],
  ['/Rotate 180 with a crop box offset inside a media box that does not start at 0', { mediaBox: [-50, -50, 700, 900], cropBox: [50, 100, 550, 800], rotate: 180 }, { width: 500, height: 700 }],
  [
    '/Rotate 270, crop box and resources inherited from the page tree',
    { mediaBox: [0, 0, 842, 595], cropBox: [100, 50, 742, 545], rotate: 270, inherit: true },
    { width: 495, height: 642 },
  ],
];

describe('field values drawn into the pages (docs/api.md#what-completion-does step 2)', () => {
  describe.each(geometries)('%s', (name, spec, displayed) => {
    let sealed: Awaited<ReturnType<typeof sealWith>>;
    beforeAll(async () => {
      sealed = await sealWith(spec, name.replace(/\W+/g, '-'));
    });

    test('changes pixels inside the rectangles and none outside them', async () => {
      const dpi = 50;
      const [before, after] = await Promise.all([render(sealed.original, 1, dpi), render(sealed.sealed, 1, dpi)]);
      expect([after.width, after.height]).toEqual([before.width, before.height]);
      expect(Math.abs(before.width - (displayed.width * dpi) / 72)).toBeLessThan(2);
      // Pixels on a rectangle's edge are partly covered by the clip: one pixel of slack around each.
      const guarded = drawings.map((drawing) => pixelRect(drawing, before, 1));
      const changedInside = drawings.map(() => 0);
      let changedOutside = 0;
      for (let y = 0; y < before.height; y++) {
        for (let x = 0; x < before.width; x++) {
          const index = y * before.width + x;
          if (before.pixels[index] === after.pixels[index]) continue;
          const inside = guarded.findIndex((rect) => x >= rect.left && x < rect.right && y >= rect.top && y < rect.bottom);
          if (inside === -1) changedOutside++;
          else changedInside[inside] = (changedInside[inside] ?? 0) + 1;
        }
      }
      expect(changedOutside).toBe(0);
      drawings.forEach((drawing, index) => {
        if (drawing.type === 'checkbox' && drawing.value === false) expect(changedInside[index]).toBe(0);
        else expect(changedInside[index]).toBeGreaterThan(3);
      });
    });

    test('draws text values as extractable text, upright as displayed and inside their rectangles', async () => {
      const text = collapse(await pdftotext(sealed.sealed, ['-f', '1', '-l', '1']));
      for (const value of ['Ada Lovelace', 'AL', 'محمد عبد الله', 'a.really.long.address@subdomain.example.com', '2026-11-22', 'Γιώργος', '王小明']) {
        expect(text).toContain(value);
      }
      for (const word of ['wraps', 'several', 'lines', '김민준', 'देवनागरी']) expect(text).toContain(word);

      const html = await pdftotext(sealed.sealed, ['-bbox', '-cropbox', '-f', '1', '-l', '1']);
      const words = [...html.matchAll(/<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">([^<]*)<\/word>/g)].map((match) => ({
        xMin: Number(match[1]),
        yMin: Number(match[2]),
        xMax: Number(match[3]),
        yMax: Number(match[4]),
        text: match[5] ?? '',
      }));
      // A word's box spans its font's whole ascent and descent, more than the glyphs drawn: its
      // horizontal extent and its middle must be inside the rectangle.
      const inRect = (drawing: FieldDrawing) => (word: { xMin: number; xMax: number; yMin: number; yMax: number }): boolean =>
        word.xMin >= drawing.x * displayed.width - 1 &&
        word.xMax <= (drawing.x + drawing.width) * displayed.width + 1 &&
        (word.yMin + word.yMax) / 2 >= drawing.y * displayed.height &&
        (word.yMin + word.yMax) / 2 <= (drawing.y + drawing.height) * displayed.height;
      // The typed signature: "Ada" left of "Lovelace" on one baseline, wider than tall: upright.
      const ada = found(words.find((word) => word.text === 'Ada'), 'the word Ada');
      const lovelace = found(words.find((word) => word.text === 'Lovelace'), 'the word Lovelace');
      expect(ada.xMax).toBeLessThan(lovelace.xMin);
      expect(Math.abs(ada.yMax - lovelace.yMax)).toBeLessThan(1);
      expect(lovelace.xMax - lovelace.xMin).toBeGreaterThan(lovelace.yMax - lovelace.yMin);
      const typed = found(drawings[1], 'the typed signature');
      for (const word of [ada, lovelace]) expect(inRect(typed)(word)).toBe(true);
      // Shrunk and wrapped to fit: every word of the e-mail and the long text inside its rectangle.
      const email = found(drawings[4], 'the e-mail field');
      const long = found(drawings[8], 'the long text field');
      const emailWords = words.filter((word) => word.text.includes('@'));
      expect(emailWords).toHaveLength(1);
      for (const word of emailWords) expect(inRect(email)(word)).toBe(true);
      for (const expected of ['longer', 'value', 'cannot', 'minimum', 'wraps', 'several', 'inside']) {
        expect(inRect(long)(found(words.find((candidate) => candidate.text === expected), `the word ${expected}`))).toBe(true);
      }
    });

    test('leaves a valid seal over the whole document', async () => {
      await expectValidSeal({
        original: sealed.original,
        sealed: sealed.sealed,
        certificate: sealed.certificate,
        originalPageCount: sealed.result.originalPageCount,
        certificatePageCount: sealed.result.certificatePageCount,
      });
    });
  });

  test('embeds the handwriting font and the Noto fonts subsetted, with ToUnicode maps', async () => {
    const { sealed } = await sealWith({ mediaBox: [0, 0, 612, 792] }, 'fonts');
    const { stdout } = await run('pdffonts', ['-f', '1', '-l', '1', sealed]);
    const fonts = stdout.split('\n').slice(2).filter((line) => /\+/.test(line));
    const names = fonts.map((line) => /^[A-Z]{6}\+([\w-]+)/.exec(line)?.[1]);
    expect(names).toEqual(expect.arrayContaining(['Caveat-Regular', 'NotoSans-Regular', 'NotoNaskhArabic-Regular', 'NotoSansKR-Regular', 'NotoSansSC-Regular']));
    for (const line of fonts) expect(line).toMatch(/CID TrueType\s+Identity-H\s+yes\s+yes\s+yes/);
  });
});
