/**
 * Pixel comparison of PDF pages as three independent engines draw them: poppler (`pdftoppm`),
 * MuPDF (`mutool draw`) and Ghostscript (`gs`). Each renders to binary PPM (P6, 8-bit RGB; Ghostscript's
 * `ppmraw` device rasterizes exactly as its `png16m` device, only the container differs), which is
 * parsed here and compared byte by byte. Annotations (form widgets included) are drawn as a viewer
 * shows them on screen: Ghostscript runs with `-dPrinted=false`, else it would draw only the widgets
 * flagged for printing, as a printer does (a flattened field is page content, printed or not).
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

export type Renderer = 'poppler' | 'mupdf' | 'ghostscript';

export const renderers: readonly Renderer[] = ['poppler', 'mupdf', 'ghostscript'];

/** One rendered page: `pixels` holds `width * height` RGB triplets, row by row from the top. */
export interface Raster {
  width: number;
  height: number;
  pixels: Buffer;
}

/**
 * Parses a binary PPM (P6, maxval 255) or PGM (P5, expanded to RGB) file.
 * @throws Error for any other format
 */
export function parsePnm(bytes: Buffer): Raster {
  let position = 0;
  const tokens: string[] = [];
  while (tokens.length < 4) {
    while (position < bytes.length && /\s/.test(String.fromCharCode(bytes[position] ?? 0))) position++;
    if (bytes[position] === 0x23) {
      while (position < bytes.length && bytes[position] !== 0x0a) position++;
      continue;
    }
    const start = position;
    while (position < bytes.length && !/\s/.test(String.fromCharCode(bytes[position] ?? 0))) position++;
    if (start === position) throw new Error('Truncated PNM header.');
    tokens.push(bytes.toString('latin1', start, position));
  }
  position++; // the single white-space byte after maxval
  const [magic, width, height, maxval] = [tokens[0], Number(tokens[1]), Number(tokens[2]), Number(tokens[3])];
  if ((magic !== 'P6' && magic !== 'P5') || maxval !== 255) throw new Error(`Unsupported PNM: ${tokens.join(' ')}`);
  const channels = magic === 'P6' ? 3 : 1;
  const data = bytes.subarray(position, position + width * height * channels);
  if (data.length !== width * height * channels) throw new Error('Truncated PNM data.');
  if (channels === 3) return { width, height, pixels: Buffer.from(data) };
  const pixels = Buffer.alloc(width * height * 3);
  for (let index = 0; index < data.length; index++) pixels.fill(data[index] ?? 0, index * 3, index * 3 + 3);
  return { width, height, pixels };
}

/**
 * How two rasters differ: `differing` pixels have any channel different, `maxDelta` is the largest
 * channel difference (0 to 255), and `unshifted` counts the differing pixels that a shift of at
 * most one pixel does not explain (see {@link comparePixels}).
 */
export interface PixelDifference {
  sameSize: boolean;
  total: number;
  differing: number;
  maxDelta: number;
  unshifted: number;
}

/** Whether every channel of pixel `index` of `a` lies within the range `b` has in the 3x3 pixels around the same place. */
function bracketed(a: Raster, b: Raster, index: number): boolean {
  const x = index % a.width;
  const y = Math.floor(index / a.width);
  for (let channel = 0; channel < 3; channel++) {
    let low = 255;
    let high = 0;
    for (let dy = -1; dy <= 1; dy++) {
      for (let dx = -1; dx <= 1; dx++) {
        const nx = x + dx;
        const ny = y + dy;
        if (nx < 0 || ny < 0 || nx >= b.width || ny >= b.height) continue;
        const value = b.pixels[(ny * b.width + nx) * 3 + channel] ?? 0;
        low = Math.min(low, value);
        high = Math.max(high, value);
      }
    }
    const value = a.pixels[index * 3 + channel] ?? 0;
    if (value < low || value > high) return false;
  }
  return true;
}

/**
 * Compares two rasters pixel by pixel (channel values 0 to 255). Besides exact differences it
 * counts the differing pixels that are not explained by a displacement of at most one pixel: a pixel
 * is explained when each of its channels lies between the smallest and largest value the other
 * raster has within one pixel of the same place, both ways. Engines place a glyph or a hairline
 * a pixel apart when the same transformation reaches them by another chain of floating-point
 * operations (an annotation's matrix versus the same matrix in page content); that moves edges by
 * a pixel and is explained, while a value that appears or vanishes, or another glyph or colour, is not.
 */
export function comparePixels(a: Raster, b: Raster): PixelDifference {
  const total = a.width * a.height;
  if (a.width !== b.width || a.height !== b.height) return { sameSize: false, total, differing: total, maxDelta: 255, unshifted: total };
  let differing = 0;
  let maxDelta = 0;
  let unshifted = 0;
  for (let pixel = 0; pixel < total; pixel++) {
    let delta = 0;
    for (let channel = pixel * 3; channel < pixel * 3 + 3; channel++) delta = Math.max(delta, Math.abs((a.pixels[channel] ?? 0) - (b.pixels[channel] ?? 0)));
    if (delta === 0) continue;
    differing++;
    maxDelta = Math.max(maxDelta, delta);
    if (!bracketed(a, b, pixel) || !bracketed(b, a, pixel)) unshifted++;
  }
  return { sameSize: true, total, differing, maxDelta, unshifted };
}

function commandFor(renderer: Renderer, file: string, dir: string, dpi: number, first: number, last: number): [string, string[]] {
  switch (renderer) {
    case 'poppler':
      return ['pdftoppm', ['-r', String(dpi), '-f', String(first), '-l', String(last), file, path.join(dir, 'page')]];
    case 'mupdf':
      return ['mutool', ['draw', '-q', '-r', String(dpi), '-c', 'rgb', '-F', 'pnm', '-o', path.join(dir, 'page-%d.ppm'), file, `${first}-${last}`]];
    case 'ghostscript':
      return ['gs', ['-q', '-dNOPAUSE', '-dBATCH', '-dSAFER', '-dPrinted=false', '-sDEVICE=ppmraw', `-r${dpi}`, `-dFirstPage=${first}`, `-dLastPage=${last}`, '-o', path.join(dir, 'page-%d.ppm'), file]];
  }
}

/** What one engine made of a page range: the pages in order and what the engine wrote to stderr. */
export interface Rendering {
  pages: Raster[];
  stderr: string;
}

/**
 * Renders pages `first` to `last` (1-based, inclusive) of `file` with one engine at `dpi`.
 * @throws Error when the engine exits with an error or renders another number of pages
 */
export async function renderPages(file: string, renderer: Renderer, options: { dpi: number; first: number; last: number }): Promise<Rendering> {
  const dir = await mkdtemp(path.join(os.tmpdir(), `render-${renderer}-`));
  try {
    const [command, args] = commandFor(renderer, file, dir, options.dpi, options.first, options.last);
    // Rejects on a non-zero exit, with the engine's stderr in the message.
    const { stderr } = await execFileAsync(command, args, { maxBuffer: 16 * 1024 * 1024, encoding: 'utf8' });
    // File names end in the page number (poppler pads it; Ghostscript counts from 1 whatever the first page).
    const names = (await readdir(dir)).sort((a, b) => Number(/(\d+)\.\w+$/.exec(a)?.[1]) - Number(/(\d+)\.\w+$/.exec(b)?.[1]));
    if (names.length !== options.last - options.first + 1) throw new Error(`${command} rendered ${names.length} page(s) of ${file}, expected ${options.last - options.first + 1}.`);
    const pages = await Promise.all(names.map(async (name) => parsePnm(await readFile(path.join(dir, name)))));
    return { pages, stderr };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** One page that renders differently in the two files. */
export interface PageDifference extends PixelDifference {
  page: number;
  renderer: Renderer;
}

/**
 * Renders pages 1 to `pages` of both files with `renderer`, at most `batch` pages at a time (memory
 * stays bounded for long documents), and lists every page whose pixels differ.
 */
export async function differingPages(
  original: string,
  changed: string,
  renderer: Renderer,
  options: { dpi: number; pages: number; batch?: number },
): Promise<PageDifference[]> {
  const batch = options.batch ?? 25;
  const differences: PageDifference[] = [];
  for (let first = 1; first <= options.pages; first += batch) {
    const last = Math.min(options.pages, first + batch - 1);
    const [a, b] = await Promise.all([
      renderPages(original, renderer, { dpi: options.dpi, first, last }),
      renderPages(changed, renderer, { dpi: options.dpi, first, last }),
    ]);
    a.pages.forEach((raster, index) => {
      const other = b.pages[index];
      const difference = other === undefined ? { sameSize: false, total: 0, differing: 1, maxDelta: 255, unshifted: 1 } : comparePixels(raster, other);
      if (difference.differing > 0) differences.push({ page: first + index, renderer, ...difference });
    });
  }
  return differences;
}
