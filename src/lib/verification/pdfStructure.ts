/**
 * What the verifier reads of a PDF's file structure itself (docs/evidence.md): its signatures' byte
 * ranges and values (ISO 32000-2 §12.8.1: `/ByteRange [a b c d]` covers bytes a..a+b and c..c+d, and
 * the gap b..c is exactly the `/Contents` hexadecimal string), the signature's claimed time (`/M`),
 * and the incremental updates written after a revision (§7.5.6), with the objects they add or
 * redefine. PDF syntax only: what the hexadecimal strings hold (CMS, DER) is read with pkijs in
 * `cms.ts`.
 */
import { fromHex, latin1 } from './bytes.js';

/** One signature or document timestamp of the file, as its dictionary spans it. */
export interface SignatureSpan {
  /** `[a, b, c, d]` as written. */
  byteRange: [number, number, number, number];
  /** Where the `/ByteRange` key is, a byte offset. */
  at: number;
  /** The bytes the gap holds, decoded from hex (the DER value, then zero padding). */
  contents: Uint8Array;
  /** `c + d`: the end of the bytes the signature covers. */
  end: number;
  /** The dictionary's `/M` (`D:YYYYMMDDHHmmSS...`) as a date, or `null` when absent or unreadable. */
  claimedTime: Date | null;
}

/** Why a `/ByteRange` is not one this verifier can check, or `null` when it is sound. */
function byteRangeProblem(text: string, [a, b, c, d]: [number, number, number, number]): string | null {
  if (a !== 0) return `it starts at byte ${a}, not at the file's first byte`;
  if (!(b < c)) return 'its two ranges overlap';
  if (c + d > text.length) return `it ends at byte ${c + d}, past the end of the file (${text.length} bytes)`;
  if (text[b] !== '<' || text[c - 1] !== '>') return `the gap ${b}..${c} is not a hexadecimal string`;
  if (!/^[0-9A-Fa-f\s]*$/.test(text.slice(b + 1, c - 1))) return `the gap ${b}..${c} holds more than the signature's hexadecimal value`;
  return null;
}

/** Reads a PDF date (`D:YYYYMMDDHHmmSSOHH'mm`, ISO 32000-2 §7.9.4), or `null`. */
export function pdfDate(value: string): Date | null {
  const match = /^D:(\d{4})(\d{2})?(\d{2})?(\d{2})?(\d{2})?(\d{2})?(Z|[+-]\d{2}'?\d{2}'?)?/.exec(value);
  if (match === null) return null;
  const [, year, month = '01', day = '01', hour = '00', minute = '00', second = '00', zone = 'Z'] = match;
  const offset = zone === 'Z' ? 'Z' : `${zone.slice(0, 3)}:${zone.replace(/'/g, '').slice(3, 5)}`;
  const date = new Date(`${year}-${month}-${day}T${hour}:${minute}:${second}${offset}`);
  return Number.isNaN(date.getTime()) ? null : date;
}

/**
 * Every signature dictionary's span in the file, in the order of their byte ranges' ends (the seal
 * first, then later document timestamps).
 * @throws Error naming a `/ByteRange` that is malformed (see {@link byteRangeProblem})
 */
export function signatureSpans(bytes: Uint8Array, text: string = latin1(bytes)): SignatureSpan[] {
  const spans: SignatureSpan[] = [];
  for (const match of text.matchAll(/\/ByteRange\s*\[\s*(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s*\]/g)) {
    const byteRange = [Number(match[1]), Number(match[2]), Number(match[3]), Number(match[4])] as [number, number, number, number];
    const problem = byteRangeProblem(text, byteRange);
    if (problem !== null) throw new Error(`The /ByteRange [${byteRange.join(' ')}] at byte ${match.index ?? 0} is unsound: ${problem}.`);
    const [, b, c, d] = byteRange;
    // The dictionary's /M: the nearest before the value (a writer puts it among the keys around /Contents).
    const around = text.slice(Math.max(0, b - 4096), b) + text.slice(c, Math.min(text.length, c + 1024));
    const claimed = /\/M\s*\((D:[^)]*)\)/.exec(around);
    spans.push({ byteRange, at: match.index ?? 0, contents: fromHex(text.slice(b + 1, c - 1)), end: c + d, claimedTime: claimed === null ? null : pdfDate(claimed[1]!) });
  }
  return spans.sort((x, y) => x.end - y.end);
}

/** The bytes a signature covers: `a..a+b` then `c..c+d`. */
export function signedBytes(bytes: Uint8Array, span: SignatureSpan): Uint8Array {
  const [a, b, c, d] = span.byteRange;
  const signed = new Uint8Array(b + d);
  signed.set(bytes.subarray(a, a + b), 0);
  signed.set(bytes.subarray(c, c + d), b);
  return signed;
}

/** Whether `end` is a revision's end: the bytes before it close with `%%EOF` and at most an end of line. */
export function endsRevision(text: string, end: number): boolean {
  return /%%EOF(\r\n|\r|\n)?$/.test(text.slice(Math.max(0, end - 8), end));
}

// --- The objects of incremental updates, for checking what an update after the seal changed ---

/** One indirect object written in an update. */
interface UpdateObject {
  number: number;
  generation: number;
  /** Its text up to `stream` (a stream's dictionary) or `endobj`. */
  body: string;
}

/** The indirect objects written in `text` (an update's bytes), by their `N G obj ... endobj`. */
function objectsOf(text: string): UpdateObject[] {
  const objects: UpdateObject[] = [];
  for (const match of text.matchAll(/(?<![0-9])(\d+)\s+(\d+)\s+obj\b([\s\S]*?)(?:\bstream(?:\r\n|\n)[\s\S]*?\bendstream\s*)?\bendobj/g)) {
    objects.push({ number: Number(match[1]), generation: Number(match[2]), body: match[3]!.trim() });
  }
  return objects;
}

/**
 * The top-level entries of a dictionary's text (`<< /Key value ... >>`), each value's text as
 * written; nested dictionaries, arrays and strings are skipped over whole (ISO 32000-2 §7.3).
 * @returns `null` when `text` is not a dictionary
 */
export function dictionaryEntries(text: string): Map<string, string> | null {
  const source = text.trim();
  if (!source.startsWith('<<')) return null;
  const entries = new Map<string, string>();
  let index = 2;
  const skipSpace = (): void => {
    while (index < source.length) {
      if (/\s/.test(source[index]!)) index++;
      else if (source[index] === '%') while (index < source.length && source[index] !== '\n' && source[index] !== '\r') index++;
      else break;
    }
  };
  /** Moves past one object: a dictionary, array, string, name, or a number or `n g R` reference. */
  const skipValue = (): void => {
    skipSpace();
    const start = source[index];
    if (source.startsWith('<<', index)) {
      let depth = 0;
      while (index < source.length) {
        if (source.startsWith('<<', index)) { depth++; index += 2; continue; }
        if (source.startsWith('>>', index)) { depth--; index += 2; if (depth === 0) return; continue; }
        if (source[index] === '(') { skipValue(); continue; }
        index++;
      }
      return;
    }
    if (start === '[') {
      let depth = 0;
      while (index < source.length) {
        const character = source[index]!;
        if (character === '(') { skipValue(); continue; }
        if (character === '[') depth++;
        if (character === ']') { depth--; index++; if (depth === 0) return; continue; }
        index++;
      }
      return;
    }
    if (start === '(') {
      let depth = 0;
      while (index < source.length) {
        const character = source[index]!;
        if (character === '\\') { index += 2; continue; }
        if (character === '(') depth++;
        if (character === ')') { depth--; index++; if (depth === 0) return; continue; }
        index++;
      }
      return;
    }
    if (start === '<') {
      index = source.indexOf('>', index) + 1 || source.length;
      return;
    }
    if (start === '/') {
      index++;
      while (index < source.length && !/[\s/<>\[\]()%]/.test(source[index]!)) index++;
      return;
    }
    // A number, a keyword, or a reference `n g R`.
    const reference = /^\d+\s+\d+\s+R\b/.exec(source.slice(index));
    if (reference !== null) { index += reference[0].length; return; }
    while (index < source.length && !/[\s/<>\[\]()%]/.test(source[index]!)) index++;
  };
  for (;;) {
    skipSpace();
    if (index >= source.length || source.startsWith('>>', index)) return entries;
    if (source[index] !== '/') return null;
    const keyStart = index;
    skipValue();
    const key = source.slice(keyStart + 1, index);
    skipSpace();
    const valueStart = index;
    skipValue();
    entries.set(key, source.slice(valueStart, index).replace(/\s+/g, ' ').trim());
  }
}

/** The keys each kind of object may change in an update after the seal (PAdES's DSS and document timestamps, ETSI EN 319 142-1 §5.4-5.5). */
const CHANGEABLE: Record<'catalog' | 'page' | 'form', ReadonlySet<string>> = {
  catalog: new Set(['DSS', 'Extensions', 'AcroForm', 'Version']),
  page: new Set(['Annots']),
  form: new Set(['Fields', 'SigFlags', 'DR', 'DA', 'NeedAppearances']),
};

/** What kind of object a dictionary is, for {@link CHANGEABLE}. */
function kindOf(entries: Map<string, string>): keyof typeof CHANGEABLE | null {
  const type = entries.get('Type');
  if (type === '/Catalog') return 'catalog';
  if (type === '/Page') return 'page';
  if (type === undefined && entries.has('Fields')) return 'form';
  return null;
}

/** The text of object `number` as the signed revision last wrote it (uncompressed), or `null`. */
function signedObject(signedText: string, number: number): string | null {
  const pattern = new RegExp(`(?<![0-9])${number}\\s+\\d+\\s+obj\\b([\\s\\S]*?)(?:\\bstream(?:\\r\\n|\\n)|\\bendobj)`, 'g');
  let last: string | null = null;
  for (const match of signedText.matchAll(pattern)) last = match[1]!.trim();
  return last;
}

/**
 * What the incremental updates written after a signed revision change, judged by what PAdES adds
 * after a seal (ETSI EN 319 142-1: the DSS dictionary with its certificates, OCSP responses and CRLs,
 * and document timestamps with their signature fields): new objects are allowed (nothing reaches them
 * but through a redefined object) except annotations other than signature widgets; a redefined
 * object must be the catalog, a page or the interactive form, changed only in the keys PAdES changes
 * ({@link CHANGEABLE}), or an array of references that only gains entries (a page's `/Annots` kept as
 * an object of its own); an object stream (compressed objects) cannot be checked and is refused.
 * @param text the whole file, one character per byte
 * @param signedEnd where the signed revision ends
 * @returns one sentence per problem; empty when the updates add only what PAdES adds
 */
export function updateProblems(text: string, signedEnd: number): string[] {
  const signedText = text.slice(0, signedEnd);
  const sizes = [...signedText.matchAll(/\/Size\s+(\d+)/g)];
  const signedSize = sizes.length === 0 ? 0 : Number(sizes.at(-1)![1]);
  const problems: string[] = [];
  for (const object of objectsOf(text.slice(signedEnd))) {
    const label = `object ${object.number} ${object.generation}`;
    const entries = dictionaryEntries(object.body);
    if (entries?.get('Type') === '/ObjStm') {
      problems.push(`${label} is an object stream, whose compressed objects this verifier cannot check`);
      continue;
    }
    if (object.number >= signedSize) {
      const subtype = entries?.get('Subtype');
      const annotation = entries !== null && entries !== undefined && (entries.get('Type') === '/Annot' || (subtype !== undefined && entries.has('Rect')));
      if (annotation && !(subtype === '/Widget' && entries!.get('FT') === '/Sig')) problems.push(`${label} adds an annotation (${subtype ?? 'no subtype'}) that is not a signature field`);
      continue;
    }
    const before = signedObject(signedText, object.number);
    // An array of references (a page's /Annots kept as an object of its own) may only gain entries.
    if (before !== null && before.startsWith('[') && object.body.startsWith('[')) {
      const references = (array: string): string[] => [...array.matchAll(/(\d+)\s+(\d+)\s+R\b/g)].map((found) => `${found[1]} ${found[2]}`);
      const now = new Set(references(object.body));
      const lost = references(before).filter((reference) => !now.has(reference));
      if (lost.length > 0) problems.push(`${label} (an array) loses ${lost.join(', ')}`);
      else if (object.body.replace(/(\d+)\s+(\d+)\s+R\b|[\s\[\]]/g, '') !== '') problems.push(`${label} (an array) now holds more than references`);
      continue;
    }
    const kind = entries === null ? null : kindOf(entries);
    if (before === null || kind === null || entries === null) {
      problems.push(`${label} existed when the seal was made and is written again${before === null ? ' (its signed version is compressed, so it cannot be compared)' : ''}`);
      continue;
    }
    const old = dictionaryEntries(before);
    if (old === null) {
      problems.push(`${label} was not a dictionary when sealed and is one now`);
      continue;
    }
    const changed = [...new Set([...old.keys(), ...entries.keys()])].filter((key) => old.get(key) !== entries.get(key) && !CHANGEABLE[kind].has(key));
    if (changed.length > 0) problems.push(`${label} (the ${kind === 'form' ? 'interactive form' : kind}) changes ${changed.map((key) => `/${key}`).join(', ')}`);
  }
  return problems;
}
