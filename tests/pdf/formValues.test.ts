/**
 * Form values regenerated at sealing keep every character and sit where viewers place them
 * (docs/api.md#what-completion-does step 1): a multi-line text field's "ü" and "ß" survive, its first line starts
 * at the top inward, a list box highlights its selected row. The form leaves its appearances to the
 * viewer (`/NeedAppearances true`), so poppler and MuPDF each draw the original's fields their own
 * way: the sealed page, whose fields are flattened into page content, must match what each shows.
 * Read back with pdftotext (poppler), `mutool draw -F stext` and pixel comparisons.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { sealDocument } from '../../src/lib/pdf/index.js';
import { MULTILINE_FORM, pdfWithMultilineForm } from './craftedPdfs.js';
import { certificateFor, developmentSealer, pdftotext, run, scratchDir } from './pdfTools.js';
import { comparePixels, inkInside, renderPages, toPixels } from './rendering.js';
import type { PixelBox, Raster, Renderer } from './rendering.js';

const DPI = 100;
const PAGE: [number, number, number, number] = [0, 0, 612, 792];
let scratch: Awaited<ReturnType<typeof scratchDir>>;
let original: string;
let sealed: string;

beforeAll(async () => {
  scratch = await scratchDir();
  const document = pdfWithMultilineForm();
  const { sealingP12, sealingPassphrase } = await developmentSealer();
  const result = await sealDocument({ document, certificate: certificateFor(document), sealingP12, sealingPassphrase });
  original = await scratch.write('form.pdf', document);
  sealed = await scratch.write('sealed.pdf', result.sealed);
});

afterAll(async () => {
  await scratch.remove();
});

/** The words of page 1 as poppler places them: text and top edge (points from the page top). */
async function popplerWords(file: string): Promise<{ text: string; x: number; y: number }[]> {
  const html = (await run('pdftotext', ['-f', '1', '-l', '1', '-bbox', file, '-'])).stdout;
  return [...html.matchAll(/<word xMin="([\d.]+)" yMin="([\d.]+)"[^>]*>([^<]*)<\/word>/g)].map((match) => ({ text: decode(match[3]!), x: Number(match[1]), y: Number(match[2]) }));
}

/** The text lines of page 1 as MuPDF places them: text and top edge (points from the page top). */
async function mupdfLines(file: string): Promise<{ text: string; y: number }[]> {
  const xml = (await run('mutool', ['draw', '-q', '-F', 'stext', '-o', '-', file, '1'])).stdout;
  return [...xml.matchAll(/<line bbox="[\d.]+ ([\d.]+)[^>]*>([\s\S]*?)<\/line>/g)].map((match) => ({
    y: Number(match[1]),
    text: decode([...match[2]!.matchAll(/<char [^>]*c="([^"]*)"/g)].map((char) => char[1]).join('')),
  }));
}

function decode(text: string): string {
  return text
    .replace(/&#x([0-9a-f]+);/gi, (_, hex: string) => String.fromCodePoint(parseInt(hex, 16)))
    .replace(/&#(\d+);/g, (_, decimal: string) => String.fromCodePoint(Number(decimal))).replace(/&amp;/g, '&').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&apos;/g, "'");
}

/** The pixels of `box` of a raster, as a raster of their own. */
function crop(raster: Raster, box: PixelBox): Raster {
  const width = box.x1 - box.x0;
  const height = box.y1 - box.y0;
  const pixels = Buffer.alloc(width * height * 3, 255);
  for (let y = 0; y < height; y++) raster.pixels.copy(pixels, y * width * 3, ((box.y0 + y) * raster.width + box.x0) * 3, ((box.y0 + y) * raster.width + box.x1) * 3);
  return { width, height, pixels };
}

describe('a multi-line text field keeps every character (docs/api.md#what-completion-does)', () => {
  test('pdftotext reads each line of the value, umlauts, ß and accents included, from the sealed page', async () => {
    // poppler draws the original's field itself and reads the same lines from it.
    const before = await pdftotext(original);
    const after = await run('pdftotext', ['-f', '1', '-l', '1', '-layout', sealed, '-']);
    for (const line of MULTILINE_FORM.lines) {
      expect(before).toContain(line);
      expect(after.stdout).toContain(line);
    }
  });

  test('its lines sit where poppler places them in the original, and its first line where MuPDF does', async () => {
    const [before, after] = await Promise.all([popplerWords(original), popplerWords(sealed)]);
    const words = MULTILINE_FORM.lines.join(' ').split(' ');
    for (const word of words) {
      const a = before.find((entry) => entry.text === word);
      const b = after.find((entry) => entry.text === word);
      expect({ word, found: a !== undefined && b !== undefined }).toEqual({ word, found: true });
      expect(Math.abs(a!.x - b!.x)).toBeLessThan(0.5);
      expect(Math.abs(a!.y - b!.y)).toBeLessThan(0.5);
    }
    const [mupdfBefore, mupdfAfter] = await Promise.all([mupdfLines(original), mupdfLines(sealed)]);
    const first = MULTILINE_FORM.lines[0]!;
    const a = mupdfBefore.find((line) => line.text === first);
    const b = mupdfAfter.find((line) => line.text === first);
    expect(a).toBeDefined();
    expect(b).toBeDefined();
    expect(Math.abs(a!.y - b!.y)).toBeLessThan(1);
  });

  // Inside the border (which poppler leaves out when it draws such a field and MuPDF draws): poppler's
  // whole field; MuPDF's first line, since MuPDF spaces lines 1.116 font sizes apart where poppler
  // spaces them one size apart, and the sealed page follows poppler.
  const [left, bottom, right, top] = MULTILINE_FORM.notesRect;
  test.each<[Renderer, [number, number, number, number]]>([
    ['poppler', [left, bottom, right, top]],
    ['mupdf', [left, top - 18, right, top]],
  ])('%s draws the sealed field as it draws the original one', async (renderer, rect) => {
    const [before, after] = await Promise.all([renderPages(original, renderer, { dpi: DPI, first: 1, last: 1 }), renderPages(sealed, renderer, { dpi: DPI, first: 1, last: 1 })]);
    const box = toPixels(rect, PAGE, DPI, -3);
    const [a, b] = [crop(before.pages[0]!, box), crop(after.pages[0]!, box)];
    const difference = comparePixels(a, b);
    expect({ renderer, changed: difference.changed }).toEqual({ renderer, changed: false });
    // The comparison sees the text: the field is not empty in either.
    expect(inkInside(a, { x0: 0, y0: 0, x1: a.width, y1: a.height })).toBeGreaterThan(100);
    expect(inkInside(b, { x0: 0, y0: 0, x1: b.width, y1: b.height })).toBeGreaterThan(100);
  });
});

describe('a list box shows its options from the top, its selected row highlighted (docs/api.md#what-completion-does)', () => {
  test('every option is on the sealed page, where poppler places it in the original', async () => {
    const [before, after] = await Promise.all([popplerWords(original), popplerWords(sealed)]);
    for (const option of MULTILINE_FORM.options) {
      const a = before.find((entry) => entry.text === option);
      const b = after.find((entry) => entry.text === option);
      expect({ option, found: a !== undefined && b !== undefined }).toEqual({ option, found: true });
      expect(Math.abs(a!.y - b!.y)).toBeLessThan(0.5);
    }
  });

  test('the selected row, and only it, lies on a highlight band', async () => {
    const { pages } = await renderPages(sealed, 'poppler', { dpi: DPI, first: 1, last: 1 });
    const page = pages[0]!;
    const words = await popplerWords(sealed);
    const scale = DPI / 72;
    // The colour just right of each option's text, inside the box: the band's, or white.
    const [, , right] = MULTILINE_FORM.planRect;
    const background = (option: string): [number, number, number] => {
      const word = words.find((entry) => entry.text === option)!;
      const x = Math.round((right - 10) * scale);
      const y = Math.round((word.y + 6) * scale);
      const index = (y * page.width + x) * 3;
      return [page.pixels[index]!, page.pixels[index + 1]!, page.pixels[index + 2]!];
    };
    expect(background(MULTILINE_FORM.selected)).toEqual([153, 193, 218]);
    for (const option of MULTILINE_FORM.options.filter((entry) => entry !== MULTILINE_FORM.selected)) expect(background(option)).toEqual([255, 255, 255]);
  });
});
