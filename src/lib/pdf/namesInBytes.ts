/**
 * A look at the names a document's bytes hold, the cheap first step of the clean (`clean.ts`,
 * docs/api.md#what-the-service-removes-from-documents-and-why): every dictionary the clean's sweeps
 * can judge is parsed by @libpdf/core from the file's bytes, or from the decoded data of an object
 * stream (ISO 32000-1 §7.5.7), and what a sweep reacts to is always a name (ISO 32000-1 §7.3.5): an
 * action type, an annotation subtype, a key, a type. So when no byte of the file starts such a name,
 * and the file holds no object stream, no sweep can find anything, wherever it looks (the objects
 * the cross-reference sections list, those they do not, earlier revisions).
 *
 * The look errs one way only: every `/` of the file starts a name here, inside strings and stream
 * data too, read as the library reads a name (its end at whitespace or a delimiter, `#xx` escapes
 * decoded), so anything the library can read as a watched name is seen; the names it sees in
 * strings and content streams merely send the document to the full sweeps.
 */

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

const isRegular = (byte: number | undefined): boolean => byte !== undefined && !WHITESPACE.has(byte) && !DELIMITERS.has(byte);
const isHexDigit = (byte: number | undefined): boolean => byte !== undefined && ((byte >= 48 && byte <= 57) || (byte >= 65 && byte <= 70) || (byte >= 97 && byte <= 102));
const hexValue = (byte: number): number => (byte <= 57 ? byte - 48 : byte <= 70 ? byte - 55 : byte - 87);

/**
 * Reads every name in `bytes` (see the module comment).
 * @param watched the names a sweep reacts to, decoded (ASCII)
 */
export function namesInBytes(bytes: Uint8Array, watched: ReadonlySet<string>): NamesInBytes {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const result: NamesInBytes = { watched: false, objectStreams: false };
  for (let slash = buffer.indexOf(0x2f); slash !== -1; slash = buffer.indexOf(0x2f, slash + 1)) {
    let end = slash + 1;
    while (end < buffer.length && isRegular(buffer[end])) end++;
    if (end - slash - 1 > LONGEST_ENCODED) continue;
    const name = decodeName(buffer, slash + 1, end);
    if (name === 'ObjStm') result.objectStreams = true;
    else if (watched.has(name) || (name === 'F' && mayFlagPrintOnly(buffer, end))) result.watched = true;
    if (result.watched && result.objectStreams) break;
  }
  return result;
}

/**
 * A name's bytes decoded as @libpdf/core decodes them: `#` and two hexadecimal digits is one byte;
 * a `#` not so followed stays. A name with a byte above 127 is never a watched (ASCII) name; it is
 * returned with that byte as `\u0080` or above, which matches none.
 */
function decodeName(buffer: Buffer, start: number, end: number): string {
  const escaped = buffer.subarray(start, end).includes(0x23);
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
