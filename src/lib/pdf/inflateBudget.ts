/**
 * Guard against decompression bombs (docs/api.md#create-an-envelope-and-upload-its-document: "compressed streams are never inflated beyond
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
 *
 * Only as many streams are inflated as it takes to prove the budget holds: deflate cannot inflate
 * beyond {@link MAX_DEFLATE_RATIO} times its input, so streams are inflated largest first, and the
 * scan stops once the sizes counted plus the worst case of every stream left fit the budget. With
 * the default budget, a document whose zlib streams (one decoder each) hold under 508 KiB in all,
 * none over 254 KiB, is accepted without inflating anything.
 */
import { Buffer } from 'node:buffer';
import { constants, createInflate, inflateSync } from 'node:zlib';
import type { Inflate } from 'node:zlib';
import { AppError } from '../errors.js';
import { problem } from '../problems.js';

/** Limits of the pre-scan, in bytes of inflated output. */
export interface InflateBudget {
  /** Largest inflated size of one stream. */
  perStreamBytes: number;
  /** Largest inflated size of all streams together. */
  totalBytes: number;
}

const MiB = 1024 * 1024;

/** 256 MiB for one stream, 512 MiB for the whole document (docs/api.md#create-an-envelope-and-upload-its-document). */
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

/**
 * The most bytes one byte of deflate data (RFC 1951) can inflate to, through one decoder: each
 * output byte comes from a literal, coded in at least 1 bit, or from a length/distance pair, at
 * least 2 bits for at most 258 bytes, so at most 129 bytes per bit (zlib's technical details give
 * the same limit, 1032:1). Headers, checksums and damaged data only lower it.
 */
export const MAX_DEFLATE_RATIO = 1032;

/** A zlib stream found in the document: its data and how many zlib decoders it goes through. */
interface FlateStream {
  data: Buffer;
  layers: number;
}

/** The error for a document that exceeds a bound (docs/api.md#create-an-envelope-and-upload-its-document). */
export function tooComplex(cause?: unknown): AppError {
  return problem('documentTooComplex', { cause });
}

/**
 * Refuses `document` when its zlib streams would inflate beyond the budget: one stream over
 * `perStreamBytes`, or all together over `totalBytes`. Inflates (output discarded) only the streams
 * whose worst case does not already fit (see the module comment).
 * @throws AppError unprocessable / document-too-complex
 */
export async function checkInflateBudget(document: Uint8Array, budget: InflateBudget = DEFAULT_INFLATE_BUDGET): Promise<void> {
  // The most each stream can inflate to ({@link MAX_DEFLATE_RATIO} per decoder), in bytes; capped
  // just over the budget, which keeps every sum below exact integers' limit.
  const streams = flateStreams(Buffer.from(document.buffer, document.byteOffset, document.byteLength)).map((stream) => ({
    ...stream,
    worstCase: Math.min(stream.data.length * MAX_DEFLATE_RATIO ** stream.layers, budget.totalBytes + 1),
  }));
  streams.sort((a, b) => b.worstCase - a.worstCase);
  let unchecked = streams.reduce((sum, stream) => sum + stream.worstCase, 0);
  let total = 0;
  for (const { data, layers, worstCase } of streams) {
    // Largest worst case first: once this one and the sum fit, so does every stream after it.
    if (worstCase <= budget.perStreamBytes && total + unchecked <= budget.totalBytes) return;
    const limit = Math.min(budget.perStreamBytes, budget.totalBytes - total) + 1;
    const size = inflatedSizeSync(data, layers, limit) ?? (await inflatedSize(data, layers, limit));
    total += size;
    unchecked -= worstCase;
    if (size > budget.perStreamBytes || total > budget.totalBytes) throw tooComplex();
  }
}

/** Every stream of the raw bytes that goes through at least one zlib decoder. */
function flateStreams(bytes: Buffer): FlateStream[] {
  const streams: FlateStream[] = [];
  let searchFrom = 0;
  for (;;) {
    const keyword = bytes.indexOf(STREAM, searchFrom);
    if (keyword < 0) return streams;
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

    const data = bytes.subarray(dataStart, dataEnd);
    let layers = flateLayers(bytes, keyword);
    if (layers === 0) {
      if (!startsWithZlibHeader(data)) continue;
      layers = 1;
    }
    streams.push({ data, layers });
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
