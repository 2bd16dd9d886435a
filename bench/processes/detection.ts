/**
 * Field detection against its floor (target: detection at most 1.5 times the text engine's own
 * extraction of the same document's text with positions): in one process, rounds alternating which
 * goes first,
 * - detection: `detectDocumentFields` (the service's: the document posted to the seal worker, every
 *   page's text content read with PDF.js, lines joined and searched for tags, the form looked up);
 * - the floor: PDF.js itself, in this process, opening the same bytes and calling `getTextContent()`
 *   on every page, with the same options.
 * One of each first, unmeasured (starts the worker, loads PDF.js and the fonts).
 *
 * Argv: the PDF's path, the number of rounds.
 */
import { readFile } from 'node:fs/promises';
import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { detectDocumentFields, stopSealWorker } from '../../src/lib/pdf/index.js';

const [file = '', roundsText = '3'] = process.argv.slice(2);

async function floor(bytes: Uint8Array): Promise<number> {
  const document = await getDocument({ data: bytes.slice(), isEvalSupported: false, disableFontFace: true, useSystemFonts: false, stopAtErrors: false, verbosity: 0 }).promise;
  let items = 0;
  for (let number = 1; number <= document.numPages; number++) {
    const page = await document.getPage(number);
    items += (await page.getTextContent()).items.length;
    page.cleanup();
  }
  await document.destroy();
  return items;
}

try {
  const bytes = new Uint8Array(await readFile(file));
  const first = await detectDocumentFields({ document: bytes });
  await floor(bytes);
  const detectionMs: number[] = [];
  const floorMs: number[] = [];
  const timed = async (run: () => Promise<unknown>): Promise<number> => {
    const started = performance.now();
    await run();
    return performance.now() - started;
  };
  for (let round = 0; round < Number(roundsText); round++) {
    if (round % 2 === 0) {
      detectionMs.push(await timed(() => detectDocumentFields({ document: bytes })));
      floorMs.push(await timed(() => floor(bytes)));
    } else {
      floorMs.push(await timed(() => floor(bytes)));
      detectionMs.push(await timed(() => detectDocumentFields({ document: bytes })));
    }
  }
  await stopSealWorker();
  process.send?.({ type: 'result', result: { pageCount: first.pageCount, textTags: first.textTags.length, formFields: first.formFields.length, detectionMs, floorMs } }, () => process.exit(0));
} catch (error) {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.send?.({ type: 'error', error: String(error) }, () => process.exit(1));
}
