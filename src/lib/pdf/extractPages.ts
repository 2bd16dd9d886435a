/**
 * Trailing pages of a PDF as a PDF of their own: the certificate of completion of a sealed PDF for
 * the download of a completed envelope (docs/api.md#download-a-completed-envelope). Runs in the seal
 * worker (`sealWorker.ts`), within its bounds.
 */
import { PDF } from '@libpdf/core';

/**
 * Copies the pages of `document` from the 0-based page `from` to its end into a new PDF, each
 * without annotations (a sealed PDF's seal widget would name a signature that does not cover the new file).
 * @returns the new PDF and its page count (0 when `from` is past the last page)
 * @throws Error when the document cannot be read (the caller maps it)
 */
export async function extractPages(document: Uint8Array, from: number): Promise<{ bytes: Uint8Array; pageCount: number }> {
  const source = await PDF.load(document);
  const count = source.getPageCount();
  const indices = [...Array(Math.max(0, count - from)).keys()].map((index) => from + index);
  const target = PDF.create();
  const pages = await target.copyPagesFrom(source, indices);
  for (const page of pages) page.dict.delete('Annots');
  return { bytes: await target.save(), pageCount: pages.length };
}
