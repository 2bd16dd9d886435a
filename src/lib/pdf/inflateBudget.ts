/**
 * Guard against decompression bombs (CONTRACT §4: "compressed streams are never inflated beyond
 * that"). @libpdf/core inflates FlateDecode streams with `pako.inflate`, without any output limit,
 * into Uint8Arrays, which live outside the V8 heap and so are not bounded by a worker's
 * `resourceLimits`. Before the document is parsed, every zlib stream in the file is therefore
 * inflated once here, streaming and discarding the output, and the document is refused when one
 * stream or all of them together would inflate beyond the budget.
 *
 * Streams are found by the `stream` / `endstream` keywords in the raw bytes (streams cannot live
 * inside object streams, so this sees all of them). A stream whose /Filter is a chain of
 * FlateDecode filters is inflated through the whole chain (nested bombs); any stream whose data
 * starts with a zlib header is inflated once. Encrypted streams cannot be seen into: the seal
 * worker's memory watchdog (see `workerPool.ts`) bounds those.
 */
import { Buffer } from 'node:buffer';
import { constants, createInflate, inflateSync } from 'node:zlib';
import type { Inflate } from 'node:zlib';
import { AppError } from '../errors.js';

/** Limits of the pre-scan, in bytes of inflated output. */
export interface InflateBudget {
  /** Largest inflated size of one stream. */
  perStreamBytes: number;
  /** Largest inflated size of all streams together. */
  totalBytes: number;
}

const MiB = 1024 * 1024;

/** 256 MiB for one stream, 512 MiB for the whole document (CONTRACT §4). */
export const DEFAULT_INFLATE_BUDGET: InflateBudget = { perStreamBytes: 256 * MiB, totalBytes: 512 * MiB };

const STREAM = Buffer.from('stream');
const ENDSTREAM = Buffer.from('endstream');
const OBJ = Buffer.from(' obj');
/** How far back from `stream` the stream's dictionary is looked for. */
const DICTIONARY_WINDOW = 64 * 1024;
/**
 * Output of one synchronous inflate, at most: a stream that inflates to more (or fails) is counted
 * again by the streaming decoders, which hold only a chunk at a time. Most streams are far smaller,
 * and one `inflateSync` call costs a fraction of a decoder stream's set-up and events.
 */
const SYNC_OUTPUT_LIMIT = 16 * MiB;

/** The error for a document that exceeds a bound (CONTRACT §4). */
export function tooComplex(cause?: unknown): AppError {
  return new AppError(
    'unprocessable',
    'The document is too complex to seal within the service limits (30 seconds and 512 MiB of memory); it may contain a decompression bomb.',
    { type: 'document-too-complex', cause },
  );
}

/**
 * Inflates every zlib stream of `document` (output discarded) and refuses the document when the budget is exceeded.
 * @throws AppError unprocessable / document-too-complex
 */
export async function checkInflateBudget(document: Uint8Array, budget: InflateBudget = DEFAULT_INFLATE_BUDGET): Promise<void> {
  const bytes = Buffer.from(document.buffer, document.byteOffset, document.byteLength);
  let total = 0;
  let searchFrom = 0;
  for (;;) {
    const keyword = bytes.indexOf(STREAM, searchFrom);
    if (keyword < 0) return;
    searchFrom = keyword + STREAM.length;
    // `endstream` contains `stream`: skip it.
    if (keyword >= 3 && bytes.toString('latin1', keyword - 3, keyword) === 'end') continue;
    let dataStart = keyword + STREAM.length;
    if (bytes[dataStart] === 0x0d) dataStart++;
    if (bytes[dataStart] !== 0x0a && bytes[dataStart - 1] !== 0x0d) continue;
    if (bytes[dataStart] === 0x0a) dataStart++;
    let dataEnd = bytes.indexOf(ENDSTREAM, dataStart);
    if (dataEnd < 0) dataEnd = bytes.length;
    searchFrom = dataEnd;

    const layers = flateLayers(bytes, keyword);
    const data = bytes.subarray(dataStart, dataEnd);
    if (layers === 0 && !startsWithZlibHeader(data)) continue;
    const limit = Math.min(budget.perStreamBytes, budget.totalBytes - total) + 1;
    const size = inflatedSizeSync(data, Math.max(layers, 1), limit) ?? (await inflatedSize(data, Math.max(layers, 1), limit));
    total += size;
    if (size > budget.perStreamBytes || total > budget.totalBytes) throw tooComplex();
  }
}

/** How many FlateDecode filters in a row the stream's /Filter starts with (0 when none or unknown). */
function flateLayers(bytes: Buffer, keyword: number): number {
  const windowStart = Math.max(0, keyword - DICTIONARY_WINDOW);
  const objectStart = bytes.lastIndexOf(OBJ, keyword);
  const dictionary = bytes.toString('latin1', Math.max(windowStart, objectStart), keyword);
  const filter = /\/Filter\s*(\[[^\]]*\]|\/[^\s/<>[\]()]+)/.exec(dictionary)?.[1];
  if (filter === undefined) return 0;
  const names = filter.match(/\/[^\s/<>[\]()]+/g) ?? [];
  let layers = 0;
  for (const name of names) {
    if (name !== '/FlateDecode' && name !== '/Fl') break;
    layers++;
  }
  return layers;
}

/** A zlib header (RFC 1950): deflate method, and the check bits make CMF·256 + FLG a multiple of 31. */
function startsWithZlibHeader(data: Buffer): boolean {
  const cmf = data[0];
  const flg = data[1];
  return cmf !== undefined && flg !== undefined && (cmf & 0x0f) === 8 && (cmf >> 4) <= 7 && (cmf * 256 + flg) % 31 === 0;
}

/**
 * Inflated size of `data` through `layers` zlib decoders when every layer inflates whole, without
 * error, to at most `limit` and {@link SYNC_OUTPUT_LIMIT} bytes; otherwise `undefined` (count it with
 * {@link inflatedSize}, which also counts what damaged data yields before the damage).
 */
function inflatedSizeSync(data: Buffer, layers: number, limit: number): number | undefined {
  let current = data;
  try {
    for (let layer = 0; layer < layers; layer++) {
      current = inflateSync(current, { finishFlush: constants.Z_SYNC_FLUSH, maxOutputLength: Math.min(limit, SYNC_OUTPUT_LIMIT) });
    }
  } catch {
    return undefined;
  }
  return current.length;
}

/**
 * Inflated size of `data` through `layers` zlib decoders, counting at most to `limit` bytes (then
 * it stops and returns a number over the limit). Damaged or truncated data counts what inflates
 * before the damage, as @libpdf/core keeps that part too.
 */
function inflatedSize(data: Buffer, layers: number, limit: number): Promise<number> {
  return new Promise((resolve) => {
    const decoders: Inflate[] = Array.from({ length: layers }, () => createInflate({ finishFlush: constants.Z_SYNC_FLUSH }));
    let size = 0;
    let settled = false;
    const finish = (): void => {
      if (settled) return;
      settled = true;
      for (const decoder of decoders) decoder.destroy();
      resolve(size);
    };
    decoders.forEach((decoder, index) => {
      decoder.on('error', finish);
      const next = decoders[index + 1];
      if (next !== undefined) decoder.pipe(next);
    });
    const last = decoders[decoders.length - 1];
    const first = decoders[0];
    if (last === undefined || first === undefined) {
      finish();
      return;
    }
    last.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) finish();
    });
    last.on('end', finish);
    last.on('close', finish);
    first.end(data);
  });
}
