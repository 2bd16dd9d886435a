/**
 * A look at the names a document's bytes hold, the cheap first step of the clean (`clean.ts`,
 * docs/api.md#what-the-service-removes-from-documents-and-why): every dictionary the clean's sweeps
 * can judge is parsed by @libpdf/core from the file's bytes, or from the decoded data of an object
 * stream (ISO 32000-1 §7.5.7), and what a sweep reacts to is always a name (ISO 32000-1 §7.3.5): an
 * action type, an annotation subtype, a key, a type. So when no byte of the file starts such a name,
 * and the file holds no object stream, no sweep can find anything, wherever it looks (the objects
 * the cross-reference sections list, those they do not, earlier revisions); nor when its object
 * streams, decoded ({@link namesInObjectStreams}), hold none of those names either.
 *
 * The look errs one way only: every `/` of the file starts a name here, inside strings and stream
 * data too, read as the library reads a name (its end at whitespace or a delimiter, `#xx` escapes
 * decoded), so anything the library can read as a watched name is seen; the names it sees in
 * strings and content streams merely send the document to the full sweeps.
 */

import { inflateSync } from 'node:zlib';

/** PDF whitespace (ISO 32000-1 §7.2.2, Table 1), as @libpdf/core's tokenizer has it. */
const WHITESPACE = new Set([0, 9, 10, 12, 13, 32]);
/** PDF delimiters (ISO 32000-1 §7.2.2, Table 2), as @libpdf/core's tokenizer has it. */
const DELIMITERS = new Set([40, 41, 60, 62, 91, 93, 123, 125, 47, 37]);

/** Annotation flags `Print` (bit 3) and `NoView` (bit 6) together (ISO 32000-1 §12.5.3). */
const PRINT_ONLY_FLAGS = (1 << 2) | (1 << 5);

/** Longest raw name that can decode to a watched name (each character written `#xx`). */
const LONGEST_ENCODED = 3 * 16;

/** What {@link namesInBytes} found. */
export interface NamesInBytes {
  /**
   * Some name a sweep reacts to (one of `watched`), or annotation flags `/F` that may print without
   * showing (a number with both bits, a reference, a number the look cannot read for sure).
   */
  watched: boolean;
  /** Some name `/ObjStm`: the file may hold object streams, whose decoded objects these bytes do not show. */
  objectStreams: boolean;
}

/** For each byte, whether it is regular (neither whitespace nor a delimiter). */
const REGULAR = Uint8Array.from({ length: 256 }, (_, byte) => (WHITESPACE.has(byte) || DELIMITERS.has(byte) ? 0 : 1));
const isRegular = (byte: number | undefined): boolean => byte !== undefined && REGULAR[byte] === 1;
const isHexDigit = (byte: number | undefined): boolean => byte !== undefined && ((byte >= 48 && byte <= 57) || (byte >= 65 && byte <= 70) || (byte >= 97 && byte <= 102));
const hexValue = (byte: number): number => (byte <= 57 ? byte - 48 : byte <= 70 ? byte - 55 : byte - 87);

/**
 * Reads every name in `bytes` (see the module comment).
 * @param watched the names a sweep reacts to, decoded (ASCII)
 */
export function namesInBytes(bytes: Uint8Array, watched: ReadonlySet<string>): NamesInBytes {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const result: NamesInBytes = { watched: false, objectStreams: false };
  eachName(buffer, candidatesWith(watched), (name, end) => {
    if (name === 'ObjStm') result.objectStreams = true;
    else if (watched.has(name) || (name === 'F' && mayFlagPrintOnly(buffer, end))) result.watched = true;
    return result.watched && result.objectStreams;
  });
  return result;
}

/** The names {@link eachName} is to find, as it compares them with a name's bytes. */
interface Candidates {
  lengths: ReadonlySet<number>;
  /** {@link nameHash} of each. */
  hashes: ReadonlySet<number>;
}

const candidatesOf = new WeakMap<ReadonlySet<string>, Candidates>();

/** The candidates of {@link namesInBytes}: the watched names, `F` and `ObjStm` (made once per set of watched names). */
function candidatesWith(watched: ReadonlySet<string>): Candidates {
  let candidates = candidatesOf.get(watched);
  if (candidates === undefined) {
    candidates = candidatesFor([...watched, 'F', 'ObjStm']);
    candidatesOf.set(watched, candidates);
  }
  return candidates;
}

function candidatesFor(names: readonly string[]): Candidates {
  return { lengths: new Set(names.map((name) => name.length)), hashes: new Set(names.map(nameHash)) };
}

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

/** FNV-1a (32 bits) of an ASCII name's characters: the same as of its bytes written without `#` escapes. */
function nameHash(name: string): number {
  let hash = FNV_OFFSET;
  for (let at = 0; at < name.length; at++) hash = Math.imul(hash ^ name.charCodeAt(at), FNV_PRIME);
  return hash >>> 0;
}

/**
 * Calls `visit` with every name of `buffer` (decoded, where it ends, where its `/` is) that may
 * decode to one of `candidates`, until `visit` returns `true`. A name with a `#` is decoded unless too
 * long to decode to a watched name; one without is passed over, never made a string, when its
 * length or the hash of its bytes is none of the candidates' (equal names have equal hashes).
 */
function eachName(buffer: Buffer, candidates: Candidates, visit: (name: string, end: number, slash: number) => boolean): void {
  const size = buffer.length;
  const { lengths, hashes } = candidates;
  for (let slash = buffer.indexOf(0x2f); slash !== -1; slash = buffer.indexOf(0x2f, slash + 1)) {
    let end = slash + 1;
    let escaped = false;
    let hash = FNV_OFFSET;
    for (let byte = buffer[end]; end < size && REGULAR[byte!] === 1; byte = buffer[++end]) {
      if (byte === 0x23) escaped = true;
      hash = Math.imul(hash ^ byte!, FNV_PRIME);
    }
    const length = end - slash - 1;
    if (length > LONGEST_ENCODED || (!escaped && (!lengths.has(length) || !hashes.has(hash >>> 0)))) continue;
    if (visit(decodeName(buffer, slash + 1, end, escaped), end, slash)) return;
  }
}

/**
 * A name's bytes decoded as @libpdf/core decodes them: `#` and two hexadecimal digits is one byte;
 * a `#` not so followed stays. A name with a byte above 127 is never a watched (ASCII) name; it is
 * returned with that byte as `\u0080` or above, which matches none.
 */
function decodeName(buffer: Buffer, start: number, end: number, escaped = buffer.subarray(start, end).includes(0x23)): string {
  if (!escaped) return buffer.toString('latin1', start, end);
  const decoded: number[] = [];
  for (let at = start; at < end; at++) {
    const byte = buffer[at]!;
    if (byte === 0x23 && isHexDigit(buffer[at + 1]) && at + 1 < end) {
      if (isHexDigit(buffer[at + 2]) && at + 2 < end) {
        decoded.push((hexValue(buffer[at + 1]!) << 4) | hexValue(buffer[at + 2]!));
        at += 2;
        continue;
      }
    }
    decoded.push(byte);
  }
  return String.fromCharCode(...decoded.map((byte) => Math.min(byte, 0x80)));
}

/**
 * Whether the value after a name `/F` (ending at `at`) may be annotation flags that print without
 * showing (`hasArea` and the subtype are left to the sweep): a number with both bits, or what the
 * look cannot read for sure (a reference, a sign, a decimal point, a long number).
 */
function mayFlagPrintOnly(buffer: Buffer, at: number): boolean {
  let position = skipSpace(buffer, at);
  const first = buffer[position];
  if (first === undefined || !(first === 43 || first === 45 || first === 46 || (first >= 48 && first <= 57))) return false;
  const start = position;
  while (position < buffer.length && buffer[position]! >= 48 && buffer[position]! <= 57) position++;
  const next = buffer[position];
  if (position === start || position - start > 15 || next === 43 || next === 45 || next === 46) return true;
  if ((Number(buffer.toString('latin1', start, position)) & PRINT_ONLY_FLAGS) === PRINT_ONLY_FLAGS) return true;
  // `/F 12 0 R`: flags stored in another object.
  const after = buffer[skipSpace(buffer, position)];
  return after !== undefined && after >= 48 && after <= 57;
}

/** The position of the next token: whitespace and comments (`%` to the end of the line) skipped. */
function skipSpace(buffer: Buffer, at: number): number {
  let position = at;
  while (position < buffer.length) {
    const byte = buffer[position]!;
    if (WHITESPACE.has(byte)) {
      position++;
    } else if (byte === 37) {
      while (position < buffer.length && buffer[position] !== 10 && buffer[position] !== 13) position++;
    } else {
      break;
    }
  }
  return position;
}

/** The names {@link namesInObjectStreams} looks for in the file's bytes. */
const OBJECT_STREAM_CANDIDATES = candidatesFor(['ObjStm', 'Encrypt']);

/** What {@link namesInObjectStreams} found. */
export type NamesInObjectStreams = 'none' | 'watched' | 'unreadable';

/** How far from a name `/ObjStm` its stream dictionary's `obj` and `stream` keywords are looked for. */
const DICTIONARY_REACH = 64 * 1024;

/** The checksum that ends zlib data (RFC 1950 §2.2). */
const ADLER32_BYTES = 4;

/**
 * Reads the names the object streams of `bytes` hold once decoded (ISO 32000-1 §7.5.7), as
 * {@link namesInBytes} reads the bytes: `watched` when one of them holds a watched name (or
 * flags, or a name `/ObjStm`: an object stream inside one), `none` when every one was decoded and
 * none does, `unreadable` when one of them could not be read here for sure.
 *
 * @libpdf/core takes as an object stream only a stream whose dictionary holds `/Type /ObjStm`
 * directly, so each object stream's dictionary is in the file's bytes, around a name `/ObjStm`.
 * Each such name is read in its dictionary: the `obj` keyword before it and the `stream` keyword
 * after, with nothing between them but names, numbers, arrays, dictionaries and references (no
 * string, no comment, no other keyword), one `/Filter`, exactly `/FlateDecode` (alone or in an
 * array), and no `/DecodeParms` (a predictor changes the bytes). Anything else is `unreadable`, as is
 * a file with a name `/Encrypt` (its streams are encrypted). The data is taken as a reader that
 * does not trust `/Length` takes it, from the end of line after `stream` to the first `endstream`;
 * a reader that takes less (`/Length` pointing at an `endstream` earlier in the data) reads the
 * same compressed data or less of it, so the decoded data's last names are also read cut short.
 * Decompression is node:zlib's (RFC 1950), strict: a stream that does not end, a wrong checksum,
 * or more than `cap` bytes decoded in all is `unreadable`.
 * @param watched the names a sweep reacts to, decoded (ASCII)
 * @param cap most bytes decoded in all, all object streams together
 */
export function namesInObjectStreams(bytes: Uint8Array, watched: ReadonlySet<string>, cap: number): NamesInObjectStreams {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const anchors: number[] = [];
  let encrypted = false;
  eachName(buffer, OBJECT_STREAM_CANDIDATES, (name, _, slash) => {
    if (name === 'ObjStm') anchors.push(slash);
    else if (name === 'Encrypt') encrypted = true;
    return false;
  });
  if (encrypted) return anchors.length === 0 ? 'none' : 'unreadable';
  const decoded = new Set<number>();
  let left = cap;
  for (const anchor of anchors) {
    const start = streamDataStart(buffer, anchor);
    if (start === undefined) return 'unreadable';
    if (decoded.has(start)) continue;
    decoded.add(start);
    const end = buffer.indexOf('endstream', start, 'latin1');
    if (end === -1) return 'unreadable';
    // A reader that trusts a `/Length` may stop at the end of line, or any whitespace, before that
    // `endstream`: what the compressed data needs past that point can only be its checksum.
    let shortest = end;
    while (shortest > start && WHITESPACE.has(buffer[shortest - 1]!)) shortest--;
    let data: Buffer;
    try {
      const { buffer: inflated, engine } = inflateSync(buffer.subarray(start, end), { maxOutputLength: Math.max(left, 1), info: true }) as unknown as { buffer: Buffer; engine: { bytesWritten: number } };
      if (start + engine.bytesWritten - ADLER32_BYTES > shortest) return 'unreadable';
      data = inflated;
    } catch {
      return 'unreadable';
    }
    left -= data.length;
    if (left <= 0) return 'unreadable';
    const names = namesInBytes(data, watched);
    if (names.watched || names.objectStreams) return 'watched';
  }
  return 'none';
}

/**
 * Where the data of the stream whose dictionary holds the name at `anchor` starts, when that
 * dictionary reads for sure as a FlateDecode stream's (see {@link namesInObjectStreams}).
 */
function streamDataStart(buffer: Buffer, anchor: number): number | undefined {
  const opening = keywordBefore(buffer, anchor, 'obj');
  const stream = keywordAfter(buffer, anchor);
  if (opening === undefined || stream === undefined || buffer.toString('latin1', stream, stream + 6) !== 'stream') return undefined;
  const dictionary = buffer.subarray(opening + 3, stream);
  if (!plainDictionary(dictionary)) return undefined;
  let filters = 0;
  for (let slash = dictionary.indexOf(0x2f); slash !== -1; slash = dictionary.indexOf(0x2f, slash + 1)) {
    let end = slash + 1;
    while (end < dictionary.length && isRegular(dictionary[end])) end++;
    const name = decodeName(dictionary, slash + 1, end);
    if (name === 'DecodeParms' || name === 'DP') return undefined;
    if (name !== 'Filter') continue;
    filters++;
    if (!flateOnly(dictionary, end)) return undefined;
  }
  if (filters !== 1) return undefined;
  let start = stream + 6;
  if (buffer[start] === 13) start++;
  if (buffer[start] === 10) start++;
  return start;
}

/**
 * Whether a dictionary's bytes hold nothing but names, numbers, `R`, arrays and dictionaries
 * (`<<` and `>>` paired as delimiters), and end with `>>`.
 */
function plainDictionary(dictionary: Buffer): boolean {
  for (let at = 0; at < dictionary.length; at++) {
    const byte = dictionary[at]!;
    if (byte === 40 || byte === 41 || byte === 37 || byte === 123 || byte === 125) return false;
    if (byte === 60 || byte === 62) {
      if (dictionary[at + 1] !== byte) return false;
      at++;
    }
  }
  // Names blanked, only numbers, `R`, brackets and whitespace may be left.
  const text = dictionary.toString('latin1').replace(NAME, (name) => ' '.repeat(name.length));
  return /^[\x00\t\n\f\r 0-9.+\-[\]<>R]*$/.test(text) && text.replace(/[\x00\t\n\f\r ]+$/, '').endsWith('>>');
}

/** Whether the value after a name `/Filter` (ending at `at`) is `/FlateDecode` or `[/FlateDecode]`. */
function flateOnly(dictionary: Buffer, at: number): boolean {
  const match = /^[\x00\t\n\f\r ]*(\[[\x00\t\n\f\r ]*)?\/([^\x00\t\n\f\r ()<>[\]{}/%]*)[\x00\t\n\f\r ]*(\]?)/.exec(dictionary.toString('latin1', at));
  if (!match || Boolean(match[1]) !== Boolean(match[3])) return false;
  const name = match[2]!;
  return decodeName(Buffer.from(name, 'latin1'), 0, name.length) === 'FlateDecode';
}

/** A name, read as in {@link namesInBytes}: from `/` to whitespace or a delimiter. */
const NAME = /\/[^\x00\t\n\f\r ()<>[\]{}/%]*/g;

/** Whether the byte at `at` ends a token (or is outside `buffer`). */
const isBoundary = (buffer: Buffer, at: number): boolean => at < 0 || at >= buffer.length || !isRegular(buffer[at]);

/** The position of the nearest keyword `keyword` standing alone before `at`, within reach. */
function keywordBefore(buffer: Buffer, at: number, keyword: string): number | undefined {
  const floor = Math.max(0, at - DICTIONARY_REACH);
  for (let found = buffer.lastIndexOf(keyword, at, 'latin1'); found >= floor; found = buffer.lastIndexOf(keyword, found - 1, 'latin1')) {
    if (found === -1) return undefined;
    if (isBoundary(buffer, found - 1) && buffer[found - 1] !== 0x2f && isBoundary(buffer, found + keyword.length)) return found;
    if (found === 0) return undefined;
  }
  return undefined;
}

/** The position of the first keyword (a token of letters standing alone, not a name, not `R`) after `at`, within reach. */
function keywordAfter(buffer: Buffer, at: number): number | undefined {
  // A dictionary is short: its first bytes are read first, the whole reach only when needed.
  for (const reach of [512, 4096, DICTIONARY_REACH]) {
    const end = Math.min(buffer.length, at + reach);
    const text = buffer.toString('latin1', at, end).replace(NAME, (name) => ' '.repeat(name.length));
    for (const match of text.matchAll(/[A-Za-z]+/g)) {
      // A token cut by the end of what was read is read again with the whole reach.
      if (at + match.index + match[0].length === end && end < buffer.length) break;
      if (match[0] !== 'R' && isBoundary(buffer, at + match.index - 1) && isBoundary(buffer, at + match.index + match[0].length)) return at + match.index;
    }
  }
  return undefined;
}
