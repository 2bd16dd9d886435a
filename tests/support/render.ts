/**
 * Rendering PDF pages to look at them in tests: poppler's pdftoppm to gray pixels (and a PNG in
 * SCREENSHOT_DIR for a person), and counting dark pixels inside a field's rectangle.
 */
import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { expect } from '@jest/globals';
import { SCREENSHOT_DIR } from './browser.js';
import { tool } from './tools.js';

/** The page of `file` rendered in gray at `dpi`: width, height and one byte per pixel (poppler's pdftoppm, PGM). */
export async function render(file: string, page: number, dpi: number, name: string): Promise<{ width: number; height: number; pixels: Buffer }> {
  const prefix = `${file}-${page}`;
  const done = await tool('pdftoppm', ['-f', String(page), '-l', String(page), '-r', String(dpi), '-gray', '-singlefile', file, prefix]);
  expect(done.code).toBe(0);
  const bytes = await readFile(`${prefix}.pgm`);
  // Also as PNG, for a person to look at.
  await mkdir(SCREENSHOT_DIR, { recursive: true });
  await tool('pdftoppm', ['-f', String(page), '-l', String(page), '-r', String(dpi), '-png', '-singlefile', file, path.join(SCREENSHOT_DIR, name)]);
  const header = /^P5\s+(\d+)\s+(\d+)\s+255\s/.exec(bytes.subarray(0, 40).toString('latin1'));
  if (header === null) throw new Error('pdftoppm did not write a PGM');
  return { width: Number(header[1]), height: Number(header[2]), pixels: bytes.subarray(header[0].length) };
}

/** Dark pixels (below half gray) inside a rectangle of displayed fractions. */
export function darkPixels(image: { width: number; height: number; pixels: Buffer }, rect: { x: number; y: number; width: number; height: number }): number {
  let dark = 0;
  const [x0, x1] = [Math.floor(rect.x * image.width), Math.ceil((rect.x + rect.width) * image.width)];
  const [y0, y1] = [Math.floor(rect.y * image.height), Math.ceil((rect.y + rect.height) * image.height)];
  for (let y = Math.max(0, y0 + 1); y < Math.min(image.height, y1 - 1); y++) {
    for (let x = Math.max(0, x0 + 1); x < Math.min(image.width, x1 - 1); x++) if (image.pixels[y * image.width + x]! < 128) dark++;
  }
  return dark;
}

