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
  if (channels === 3) return { width, height, pixels: data }; // a view of the file's bytes, not a copy (pages run to megabytes)
  const pixels = Buffer.alloc(width * height * 3);
  for (let index = 0; index < data.length; index++) pixels.fill(data[index] ?? 0, index * 3, index * 3 + 3);
  return { width, height, pixels };
}

/**
 * How two rasters differ (see {@link comparePixels}): `differing` pixels have any channel different,
 * `maxDelta` is the largest channel difference (0 to 255), `unshifted` counts the differing pixels
 * that a small displacement does not explain, `lone` those of them with no such pixel next to them,
 * and `changed` says whether the content changed: an unexplained pixel has an unexplained
 * neighbour, or more than {@link LONE_PIXELS} stand alone.
 */
export interface PixelDifference {
  sameSize: boolean;
  total: number;
  differing: number;
  maxDelta: number;
  unshifted: number;
  lone: number;
  changed: boolean;
}

/**
 * Unexplained pixels a page may have when each stands alone: a sub-pixel feature (a dot, the tip of
 * a glyph) that one rasterization covers and the other misses. Anything that appears or vanishes
 * (a value, a tick) covers adjacent pixels.
 */
export const LONE_PIXELS = 4;

/** How far (pixels) an edge may move, and by how much (channel levels) an anti-aliased pixel may go beyond its neighbours, in {@link comparePixels}. */
export const SHIFT = { radius: 2, tolerance: 16 };

/** A rectangle of pixels, `x1`/`y1` exclusive. */
export interface PixelBox {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

/**
 * Whether every channel of pixel `index` of `a` lies within the range `b` has in the pixels at most
 * {@link SHIFT}.radius away from the same place, widened by {@link SHIFT}.tolerance.
 */
function bracketed(a: Raster, b: Raster, index: number): boolean {
  const x = index % a.width;
  const y = (index - x) / a.width;
  for (let channel = 0; channel < 3; channel++) {
    let low = 255;
    let high = 0;
    for (let dy = -SHIFT.radius; dy <= SHIFT.radius; dy++) {
      for (let dx = -SHIFT.radius; dx <= SHIFT.radius; dx++) {
        const nx = x + dx;
        const ny = y + dy;
        if (nx < 0 || ny < 0 || nx >= b.width || ny >= b.height) continue;
        const value = b.pixels[(ny * b.width + nx) * 3 + channel] ?? 0;
        if (value < low) low = value;
        if (value > high) high = value;
      }
    }
    const value = a.pixels[index * 3 + channel] ?? 0;
    if (value < low - SHIFT.tolerance || value > high + SHIFT.tolerance) return false;
  }
  return true;
}

/**
 * Compares two rasters pixel by pixel (channel values 0 to 255), leaving out the pixels inside
 * `options.except` (e.g. form fields whose appearance was generated anew). Besides exact differences
 * it counts the differing pixels that a small displacement does not explain: a pixel is explained
 * when each of its channels lies between the smallest and largest value the other raster has within
 * {@link SHIFT}.radius pixels of the same place (give or take {@link SHIFT}.tolerance levels of
 * anti-aliasing), both ways. Engines place an edge or a glyph a pixel apart, and anti-alias it a
 * little differently, when the same transformation reaches them by another chain of floating-point
 * operations (an annotation's matrix versus the same matrix in page content); that is explained,
 * while a value that appears or vanishes, or a tick that is drawn or not, is not, and covers
 * adjacent pixels (`changed`).
 */
export function comparePixels(a: Raster, b: Raster, options: { except?: PixelBox[] } = {}): PixelDifference {
  const total = a.width * a.height;
  if (a.width !== b.width || a.height !== b.height) return { sameSize: false, total, differing: total, maxDelta: 255, unshifted: total, lone: 0, changed: true };
  const except = options.except ?? [];
  const unexplained = new Uint8Array(total);
  let differing = 0;
  let maxDelta = 0;
  let unshifted = 0;
  const rowBytes = a.width * 3;
  for (let pixel = 0; pixel < total; pixel++) {
    // Whole equal rows are skipped natively. (Hot loops here avoid Math.*: under jest's VM modules
    // each call costs some fifty times what it costs in plain Node.)
    if (pixel % a.width === 0) {
      const start = (pixel / a.width) * rowBytes;
      if (a.pixels.compare(b.pixels, start, start + rowBytes, start, start + rowBytes) === 0) {
        pixel += a.width - 1;
        continue;
      }
    }
    let delta = 0;
    for (let channel = pixel * 3; channel < pixel * 3 + 3; channel++) {
      const difference = (a.pixels[channel] ?? 0) - (b.pixels[channel] ?? 0);
      if (difference > delta) delta = difference;
      else if (-difference > delta) delta = -difference;
    }
    if (delta === 0) continue;
    if (except.length > 0) {
      const x = pixel % a.width;
      const y = (pixel - x) / a.width;
      if (except.some((box) => x >= box.x0 && x < box.x1 && y >= box.y0 && y < box.y1)) continue;
    }
    differing++;
    if (delta > maxDelta) maxDelta = delta;
    if (!bracketed(a, b, pixel) || !bracketed(b, a, pixel)) {
      unexplained[pixel] = 1;
      unshifted++;
    }
  }
  let lone = 0;
  let clustered = false;
  for (let pixel = 0; pixel < total && unshifted > 0; pixel++) {
    if (unexplained[pixel] !== 1) continue;
    const x = pixel % a.width;
    const y = (pixel - x) / a.width;
    let neighbour = false;
    for (let dy = -1; dy <= 1 && !neighbour; dy++) {
      for (let dx = -1; dx <= 1 && !neighbour; dx++) {
        const nx = x + dx;
        const ny = y + dy;
        if ((dx !== 0 || dy !== 0) && nx >= 0 && ny >= 0 && nx < a.width && ny < a.height && unexplained[ny * a.width + nx] === 1) neighbour = true;
      }
    }
    if (neighbour) clustered = true;
    else lone++;
  }
  return { sameSize: true, total, differing, maxDelta, unshifted, lone, changed: clustered || lone > LONE_PIXELS };
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

/** What {@link differingPages} found: the pages that differ, and what the engine wrote to stderr for each file. */
export interface RenderingComparison {
  pages: PageDifference[];
  originalStderr: string;
  changedStderr: string;
}

/**
 * Renders pages 1 to `pages` of both files with `renderer`, at most `batch` pages at a time (memory
 * stays bounded for long documents), and lists every page whose pixels differ.
 * @throws Error when the engine fails on either file
 */
export async function differingPages(
  original: string,
  changed: string,
  renderer: Renderer,
  options: { dpi: number; pages: number; batch?: number },
): Promise<RenderingComparison> {
  const batch = options.batch ?? 25;
  const comparison: RenderingComparison = { pages: [], originalStderr: '', changedStderr: '' };
  for (let first = 1; first <= options.pages; first += batch) {
    const last = Math.min(options.pages, first + batch - 1);
    const [a, b] = await Promise.all([
      renderPages(original, renderer, { dpi: options.dpi, first, last }),
      renderPages(changed, renderer, { dpi: options.dpi, first, last }),
    ]);
    comparison.originalStderr += a.stderr;
    comparison.changedStderr += b.stderr;
    a.pages.forEach((raster, index) => {
      const other = b.pages[index];
      const difference = other === undefined ? { sameSize: false, total: 0, differing: 1, maxDelta: 255, unshifted: 1, lone: 0, changed: true } : comparePixels(raster, other);
      if (difference.differing > 0) comparison.pages.push({ page: first + index, renderer, ...difference });
    });
  }
  return comparison;
}

/** Pixels inside `box` that are not white (any channel below 200): the ink a field shows. */
export function inkInside(raster: Raster, box: PixelBox): number {
  let ink = 0;
  const [x0, x1] = [Math.max(0, box.x0), Math.min(raster.width, box.x1)];
  const [y0, y1] = [Math.max(0, box.y0), Math.min(raster.height, box.y1)];
  for (let y = y0; y < y1; y++) {
    for (let x = x0; x < x1; x++) {
      const index = (y * raster.width + x) * 3;
      if ((raster.pixels[index] ?? 255) < 200 || (raster.pixels[index + 1] ?? 255) < 200 || (raster.pixels[index + 2] ?? 255) < 200) ink++;
    }
  }
  return ink;
}

/** A widget annotation of a page: its field's full name (empty when unnamed) and its /Rect in points. */
export interface WidgetRect {
  field: string;
  rect: [number, number, number, number];
}

type QpdfValue = string | number | boolean | null | QpdfValue[] | { [key: string]: QpdfValue };

/**
 * The widget annotations of page `page` (1-based) of `file` and the page's visible box (/CropBox,
 * else /MediaBox, inherited as ISO 32000-1 §7.7.3.4 says), read with `qpdf --json` (independent of
 * the library under test). Only unrotated pages are supported.
 * @throws Error for a rotated page
 */
export async function pageWidgets(file: string, page: number): Promise<{ box: [number, number, number, number]; widgets: WidgetRect[] }> {
  const { stdout } = await execFileAsync('qpdf', ['--json', '--json-key=pages', '--json-key=qpdf', file], { maxBuffer: 256 * 1024 * 1024, encoding: 'utf8' });
  const json = JSON.parse(stdout) as { pages: { object: string }[]; qpdf: [unknown, Record<string, { value?: QpdfValue }>] };
  const objects = json.qpdf[1];
  const resolve = (value: QpdfValue | undefined): QpdfValue | undefined =>
    typeof value === 'string' && / \d+ R$/.test(value) ? objects[`obj:${value}`]?.value : value;
  const dict = (value: QpdfValue | undefined): Record<string, QpdfValue> | undefined => {
    const resolved = resolve(value);
    return resolved !== null && typeof resolved === 'object' && !Array.isArray(resolved) ? resolved : undefined;
  };
  const numbers = (value: QpdfValue | undefined): [number, number, number, number] | undefined => {
    const resolved = resolve(value);
    return Array.isArray(resolved) && resolved.length === 4 ? (resolved.map((item) => Number(resolve(item))) as [number, number, number, number]) : undefined;
  };
  const pageObject = json.pages[page - 1]?.object;
  const pageDict = dict(pageObject);
  if (pageDict === undefined) throw new Error(`${file} has no page ${page}.`);
  const inherited = (key: string): QpdfValue | undefined => {
    for (let node: Record<string, QpdfValue> | undefined = pageDict, depth = 0; node !== undefined && depth < 64; node = dict(node['/Parent']), depth++) {
      if (node[key] !== undefined) return node[key];
    }
    return undefined;
  };
  if (Number(resolve(inherited('/Rotate')) ?? 0) % 360 !== 0) throw new Error(`Page ${page} of ${file} is rotated.`);
  const box = numbers(inherited('/CropBox')) ?? numbers(inherited('/MediaBox'));
  if (box === undefined) throw new Error(`Page ${page} of ${file} has no /MediaBox.`);
  const annotations = resolve(pageDict['/Annots']);
  const widgets: WidgetRect[] = [];
  for (const item of Array.isArray(annotations) ? annotations : []) {
    const annotation = dict(item);
    const rect = numbers(annotation?.['/Rect']);
    if (annotation?.['/Subtype'] !== '/Widget' || rect === undefined) continue;
    const names: string[] = [];
    for (let node: Record<string, QpdfValue> | undefined = annotation, depth = 0; node !== undefined && depth < 64; node = dict(node['/Parent']), depth++) {
      const name = resolve(node['/T']);
      if (typeof name === 'string') names.unshift(name.replace(/^u:/, ''));
    }
    widgets.push({ field: names.join('.'), rect });
  }
  return { box, widgets };
}

/**
 * A rectangle in PDF points (`[x0, y0, x1, y1]` in any corner order) as the pixels a renderer at
 * `dpi` covers on an unrotated page whose visible box is `box`, grown by `margin` pixels on each
 * side (edges are anti-aliased into the neighbouring pixels).
 */
export function toPixels(rect: [number, number, number, number], box: [number, number, number, number], dpi: number, margin = 2): PixelBox {
  const scale = dpi / 72;
  const [left, right] = [Math.min(rect[0], rect[2]), Math.max(rect[0], rect[2])];
  const [bottom, top] = [Math.min(rect[1], rect[3]), Math.max(rect[1], rect[3])];
  const boxTop = Math.max(box[1], box[3]);
  const boxLeft = Math.min(box[0], box[2]);
  return {
    x0: Math.floor((left - boxLeft) * scale) - margin,
    y0: Math.floor((boxTop - top) * scale) - margin,
    x1: Math.ceil((right - boxLeft) * scale) + margin,
    y1: Math.ceil((boxTop - bottom) * scale) + margin,
  };
}
