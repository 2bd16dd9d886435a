/**
 * Clean documents (docs/api.md#what-the-service-removes-from-documents-and-why), run inside a seal worker when a document is frozen: what the
 * service seals must be what every viewer shows, and its seal must not vouch for content that acts
 * on the reader's machine. So the frozen copy loses, through @libpdf/core's object model:
 * - every action that runs code, opens or sends files, or plays media: `/S` of `/JavaScript`,
 *   `/Launch`, `/ImportData`, `/SubmitForm`, `/ResetForm`, `/GoToR`, `/GoToE`, `/Rendition` and
 *   `/GoTo3DView`, and the document-level JavaScript name tree;
 * - every additional-actions dictionary (`/AA`): actions a viewer runs on its own (on opening,
 *   closing, printing, focusing a field, formatting, validating or calculating its value);
 * - embedded files (`/EF` of every file specification, every `/Type /EmbeddedFile` stream, the
 *   `/EmbeddedFiles` name tree), file attachment, rich media and 3D annotations, and the XFA form
 *   (`/XFA`, with `/NeedsRendering`).
 * URI links, go-to links within the document and named actions stay.
 *
 * Where these sit does not matter: the clean does not start from the places a well-formed file uses
 * (the open action, the pages' annotations, the form's field list), which a crafted file goes around.
 * It sweeps every object: first all that the trailer reaches, every reference resolved (an action's
 * `/S` may itself be a reference), then every other object of the cross-reference table (objects
 * nothing refers to, objects in object streams), and, for a document written whole, every earlier
 * revision of the file, opened as the file it was, and the objects that only the file's bytes hold
 * (found as a reader that repairs a file finds them). Each dictionary is judged by what it is, not by
 * where it was found. What a sweep reacts to is always a name, so the file's bytes are first read for
 * those names (`namesInBytes.ts`), and the object streams (whose objects the bytes hold only
 * compressed) are decoded and read for them too: with none of them in either, no sweep could find
 * anything and none runs; with an object stream that could not be decoded for sure, the sweeps run;
 * with none of them in the bytes, the objects only the bytes hold, read from those bytes, are not
 * swept. A removed action or annotation is emptied in place, and dropped from the entry
 * or array that held it, so that a reference left elsewhere (the structure tree's `/OBJR`, for one)
 * keeps nothing alive. The cleaned document is written whole, so nothing removed survives in an older
 * revision or unreferenced; it is then swept again as it reads back, and anything left is a fault of
 * this module (never sealed). A document that carries signatures is written as an incremental update
 * instead, so that they stay valid (their revision keeps what they signed, unreferenced from the
 * cleaned one). A document protected by an owner password only loses that protection with its
 * active content, as it would at sealing.
 *
 * Content some viewer would hide is refused, not cleaned, because it would be sealed although the
 * signer may never have seen it:
 * - optional content (ISO 32000-1 §8.11): a layer off in the default configuration, a layer whose
 *   visibility depends on its usage (`/Usage` states off, or a zoom range), a layer named by an
 *   automatic-state array (`/AS`), a membership dictionary (`/Type /OCMD`, anywhere in the file:
 *   page and appearance resources, XObjects, annotations) that hides content with every layer on,
 *   a layer that a `SetOCGState` action anywhere (open action, additional actions, links, `/Next`
 *   chains) turns off or toggles, and every layer of a document whose scripts use optional content
 *   (the JavaScript API's `getOCGs` and `OCG` objects);
 * - annotations, widgets included, whose flags (ISO 32000-1 §12.5.3) print them but do not show
 *   them on screen (`Print` and `NoView`).
 * Scripts that do not touch layers (the formatting and calculation scripts of most forms) are
 * removed without refusing the document.
 */
import { createHash } from 'node:crypto';
import { PDF, PdfArray, PdfDict, PdfName, PdfNumber, PdfRef, PdfStream, PdfString } from '@libpdf/core';
import type { PdfObject } from '@libpdf/core';
import { tooComplex } from './inflateBudget.js';
import { namesInBytes, namesInObjectStreams } from './namesInBytes.js';
import { keepOpened, openForSealing, removeOwnerRestrictions } from './seal.js';
import { REMOVED_KINDS } from './types.js';
import type { CleanResult, RemovedKind } from './types.js';
import { problem } from '../problems.js';

type Resolve = (ref: PdfRef) => PdfObject | null;

/** Action types (`/S`) removed, with the kind each is recorded as. */
const REMOVED_ACTIONS: Record<string, RemovedKind> = {
  JavaScript: 'javascript',
  Launch: 'launch',
  ImportData: 'importData',
  SubmitForm: 'submitForm',
  ResetForm: 'resetForm',
  GoToR: 'goToR',
  GoToE: 'goToE',
  Rendition: 'rendition',
  GoTo3DView: '3d',
};

/** Annotation subtypes removed, with the kind each is recorded as. */
const REMOVED_ANNOTATIONS: Record<string, RemovedKind> = {
  FileAttachment: 'fileAttachment',
  RichMedia: 'richMedia',
  '3D': '3d',
};

/**
 * The names that make {@link Sweep.inspect} find or record something (the annotation flags `/F` are
 * looked at by `namesInBytes.ts` itself): a document whose bytes hold none of them, and no object
 * stream, is not swept.
 */
export const WATCHED_NAMES: ReadonlySet<string> = new Set([
  ...Object.keys(REMOVED_ACTIONS),
  'SetOCGState',
  ...Object.keys(REMOVED_ANNOTATIONS),
  'OCMD',
  'EmbeddedFile',
  'AA',
  'EF',
  'JavaScript',
  'EmbeddedFiles',
  'XFA',
]);

/** Script text that reaches optional content through the JavaScript API (`getOCGs()`, `OCG` objects, `ocgs`). */
const LAYER_SCRIPT = /ocg/i;

/** Most characters of script text kept for {@link LAYER_SCRIPT} (per document). */
const SCRIPT_TEXT_LIMIT = 4 * 1024 * 1024;

/**
 * Most dictionaries the sweeps of one document visit, all revisions together, before the document
 * is refused as too complex (a sweep that stopped short could miss what it looks for).
 */
const OBJECT_LIMIT = 2_000_000;

/**
 * Most bytes the object streams of a document are decoded to, in all, per byte of the document, for
 * the look at their names; past it they are swept object by object.
 */
const OBJECT_STREAM_DATA_FACTOR = 8;

/** Most earlier revisions of an unsigned document that are swept before it is refused as too complex. */
const REVISION_LIMIT = 64;

/** Annotation flags (ISO 32000-1 §12.5.3): `Print` (bit 3) and `NoView` (bit 6). */
const PRINT_FLAG = 1 << 2;
const NO_VIEW_FLAG = 1 << 5;

/**
 * Checks a document (as `inspect` does), refuses hidden content and removes active content.
 * Keeps the cleaned document opened for a seal of the same bytes that may follow.
 * @returns the cleaned bytes, or `null` when nothing was removed; the page count; the kinds removed
 * @throws AppError 422 as `openForSealing`, `document-hidden-content` naming what is hidden, and
 *   `document-too-complex` for a document too large to sweep
 */
export async function clean(document: Uint8Array): Promise<CleanResult> {
  const opened = await openForSealing(document);
  const { pdf, originalPageCount: pageCount } = opened;
  const budget = { left: OBJECT_LIMIT };
  const signed = pdf.getForm()?.getSignatureFields().some((field) => field.isSigned()) ?? false;
  // No name a sweep reacts to anywhere in the bytes, nor in any object stream once decoded: no
  // sweep can find anything.
  const names = namesInBytes(document, WATCHED_NAMES);
  const packed = names.objectStreams && namesInObjectStreams(document, WATCHED_NAMES, OBJECT_STREAM_DATA_FACTOR * document.length) !== 'none';
  const swept = names.watched || packed ? removeActiveContent(pdf, budget) : nothingFound();
  assertNothingHidden(pdf, swept);
  const ends = signed ? [] : revisionEnds(document);
  if (ends.length > REVISION_LIMIT) throw tooComplex(new Error(`The document has ${ends.length} revisions.`));
  // A document written whole loses its earlier revisions and whatever no cross-reference section
  // lists: what they hold counts as removed. A signed document keeps them, under its signatures.
  // The objects only the bytes hold are read from those bytes, stream data blanked: with no watched
  // name in the bytes they hold none. Earlier revisions may use object streams of their own.
  const found = new Set(swept.found);
  if (!signed && (names.watched || packed)) {
    for (const kind of await kindsOutsideLastRevision(document, ends, budget, names.watched)) found.add(kind);
  }
  const removed = REMOVED_KINDS.filter((kind) => found.has(kind));
  if (removed.length === 0) {
    keepOpened(document, opened);
    return { cleaned: null, pageCount, removed };
  }
  // An owner-password-only protection goes now rather than at sealing (docs/api.md#create-an-envelope-and-upload-its-document): re-encrypting
  // would draw new random initialization vectors, and the same upload must clean to the same bytes.
  // (`openForSealing` refuses documents that are both signed and encrypted.)
  if (pdf.isEncrypted) removeOwnerRestrictions(pdf);
  if (!signed) {
    giveStableIdentifier(pdf, document);
    // What was removed may sit only in objects the cleaned document does not keep (an earlier
    // revision, an object nothing refers to): the catalog is marked changed so that the document is
    // written anew even when no object it keeps changed.
    const catalog = pdf.getCatalog();
    catalog.set('Type', catalog.get('Type') ?? PdfName.of('Catalog'));
  }
  const cleaned = await pdf.save({ incremental: signed });
  if (!signed && cleaned === document) throw new Error('The cleaned document was not written anew.');
  const reopened = await openForSealing(cleaned, { inflateChecked: true });
  if (reopened.originalPageCount !== pageCount) throw new Error('The cleaned document does not read back with all its pages.');
  // The cleaned copy is read again as a viewer would, every object of its cross-reference table:
  // anything still there is a fault of this module, never sealed.
  const left = sweepDocument(reopened.pdf, { left: OBJECT_LIMIT }, false).found;
  if (left.size > 0) throw new Error(`The cleaned document still holds active content: ${[...left].join(', ')}.`);
  keepOpened(cleaned, reopened);
  // The kept document reads `cleaned`; the copy is what the worker hands over (and detaches).
  return { cleaned: cleaned.slice(), pageCount, removed };
}

/** What {@link removeActiveContent} found. */
export interface RemovedContent {
  /** The kinds found (and removed). */
  found: Set<RemovedKind>;
  /** The text of the removed scripts (up to 4 MiB in all), to tell whether they used layers. */
  scripts: string[];
  /** The optional content membership dictionaries (`/Type /OCMD`) anywhere in the document. */
  memberships: PdfDict[];
  /** The `SetOCGState` actions anywhere in the document (kept: they run no code). */
  layerSwitches: PdfDict[];
  /** The annotations anywhere in the document that print but do not show on screen. */
  printOnly: PdfDict[];
}

/** What a sweep of a document that holds nothing it looks for finds. */
function nothingFound(): RemovedContent {
  return { found: new Set(), scripts: [], memberships: [], layerSwitches: [], printOnly: [] };
}

/** What the sweeps may still visit, shared by the sweeps of one document. */
interface Budget {
  left: number;
}

/**
 * Removes the active content listed in the module comment from the in-memory document, wherever it
 * sits: every object reachable from the trailer, every reference resolved, and every other object
 * of the cross-reference table (unreferenced objects, objects in object streams).
 * @throws AppError `document-too-complex` past the budget
 */
export function removeActiveContent(pdf: PDF, budget: Budget = { left: OBJECT_LIMIT }): RemovedContent {
  return sweepDocument(pdf, budget, true);
}

/**
 * Visits every object of `pdf`'s cross-reference table, those reachable from the trailer first (so
 * that an object is reached through the reference its document uses), and records, or removes when
 * `remove`, what the module comment lists.
 */
function sweepDocument(pdf: PDF, budget: Budget, remove: boolean): RemovedContent {
  const sweep = new Sweep((ref) => pdf.getObject(ref), budget, remove);
  const trailer = pdf.context.info.trailer;
  // The encryption dictionary is read as it is stored, never decrypted: it holds no content.
  const encryption = trailer.get('Encrypt');
  if (encryption instanceof PdfRef) sweep.pass(encryption.objectNumber);
  for (const [key, value] of trailer) {
    if (key.value !== 'Encrypt' && key.value !== 'Prev' && key.value !== 'XRefStm') sweep.visit(value);
  }
  sweep.visit(pdf.getCatalog());
  // The objects nothing refers to: no viewer shows them, but they are in the file.
  const size = pdf.context.registry.nextObjectNumber;
  for (let number = 1; number < size; number++) {
    if (!sweep.reached(number)) sweep.visit(PdfRef.of(number, 0));
  }
  return sweep.result();
}

/**
 * The kinds of active content in the file's bytes outside its last revision: each earlier revision
 * (ISO 32000-1 §7.5.6: each incremental update ends with `%%EOF`), opened as the file it was, and
 * every object the file's bytes hold whether a cross-reference section lists it or not, as a reader
 * that repairs a file finds them (each `n g obj`, and the objects of each object stream). Each is
 * swept whole; nothing is removed from them: the cleaned document, written whole, keeps none of them.
 * @param ends where each earlier revision ends ({@link revisionEnds})
 * @param scan whether to read the objects only the bytes hold too (needless when the bytes hold no
 *   name a sweep reacts to: those objects are read from the bytes, stream data blanked)
 */
async function kindsOutsideLastRevision(document: Uint8Array, ends: number[], budget: Budget, scan: boolean): Promise<Set<RemovedKind>> {
  const found = new Set<RemovedKind>();
  const copies = ends.map((end) => document.subarray(0, end));
  if (scan) copies.push(scannable(document));
  for (const copy of copies) {
    let revision: PDF;
    try {
      revision = await PDF.load(copy);
    } catch {
      continue; // bytes no reader can open show nothing (a "%%EOF" inside a stream, say)
    }
    for (const kind of sweepDocument(revision, budget, false).found) found.add(kind);
  }
  return found;
}

/**
 * A copy of `document` that the library reads by scanning it for objects, as it repairs a file: no
 * `startxref` keyword is left, so no cross-reference section is used. Stream data is blanked (its
 * length kept): bytes inside streams that happen to read `n g obj` are no objects, and parsing them
 * as objects can take the library unbounded time. So objects compressed in an object stream that no
 * cross-reference section lists are not seen here (no reader sees them either).
 */
function scannable(document: Uint8Array): Uint8Array {
  const copy = Buffer.from(document);
  for (let at = copy.indexOf('startxref'); at !== -1; at = copy.indexOf('startxref', at + 9)) copy[at + 8] = 0x58; // "startxreX"
  for (let at = copy.indexOf('stream'); at !== -1; ) {
    const preceding = at >= 3 ? copy.toString('latin1', at - 3, at) : '';
    let start = at + 6;
    if (preceding === 'end') {
      at = copy.indexOf('stream', start);
      continue;
    }
    if (copy[start] === 0x0d) start++;
    if (copy[start] === 0x0a) start++;
    const end = copy.indexOf('endstream', start);
    if (end === -1) break;
    copy.fill(0x20, start, end);
    at = copy.indexOf('stream', end + 9);
  }
  return new Uint8Array(copy.buffer, copy.byteOffset, copy.byteLength);
}

/** Where each revision but the last ends: just after each `%%EOF` that another `startxref` follows. */
function revisionEnds(document: Uint8Array): number[] {
  const bytes = Buffer.from(document.buffer, document.byteOffset, document.byteLength);
  const last = bytes.lastIndexOf('startxref');
  const ends: number[] = [];
  for (let at = bytes.indexOf('%%EOF'); at !== -1 && at < last; at = bytes.indexOf('%%EOF', at + 5)) ends.push(at + 5);
  return ends;
}

/** One sweep of one document (see {@link sweepDocument}). */
class Sweep {
  private readonly found = new Set<RemovedKind>();
  private readonly scripts = new ScriptTexts();
  private readonly memberships: PdfDict[] = [];
  private readonly layerSwitches: PdfDict[] = [];
  private readonly printOnly: PdfDict[] = [];
  /** Object numbers reached (whatever the generation their reference names). */
  private readonly numbers = new Set<number>();
  private readonly seen = new Set<PdfDict>();
  /** Dictionaries emptied (removed actions and annotations), which their holders then drop. */
  private readonly emptied = new Set<PdfDict>();

  constructor(
    private readonly resolve: Resolve,
    private readonly budget: Budget,
    private readonly remove: boolean,
  ) {}

  /** Leaves out an object (as though visited). */
  pass(number: number): void {
    this.numbers.add(number);
  }

  reached(number: number): boolean {
    return this.numbers.has(number);
  }

  result(): RemovedContent {
    return { found: this.found, scripts: this.scripts.texts, memberships: this.memberships, layerSwitches: this.layerSwitches, printOnly: this.printOnly };
  }

  /**
   * Visits `start` and everything it refers to, depth first. Each dictionary's entries are taken
   * before it is cleaned, so what cleaning drops is visited (and cleaned) too.
   */
  visit(start: PdfObject): void {
    const stack: PdfObject[] = [start];
    while (stack.length > 0) {
      let value = stack.pop()!;
      if (value instanceof PdfRef) {
        if (this.numbers.has(value.objectNumber)) continue;
        this.numbers.add(value.objectNumber);
        const resolved = this.resolve(value);
        if (resolved === null) continue;
        value = resolved;
      }
      if (value instanceof PdfArray) {
        // A direct array sits in one object only, and an indirect one is reached once by its number.
        for (const item of value) if (item instanceof PdfRef || item instanceof PdfDict || item instanceof PdfArray) stack.push(item);
        continue;
      }
      if (!(value instanceof PdfDict) || this.seen.has(value)) continue;
      this.seen.add(value);
      if (--this.budget.left < 0) throw tooComplex(new Error('The document has too many objects to sweep.'));
      for (const [, item] of value) stack.push(item);
      this.inspect(value);
    }
  }

  /** Records (and, when removing, removes) what the module comment lists from one dictionary. */
  private inspect(dict: PdfDict): void {
    const { resolve, found } = this;
    const actionType = dict.get('S', resolve);
    const action = actionType instanceof PdfName ? actionType.value : undefined;
    if (action === 'SetOCGState') this.layerSwitches.push(dict);
    const actionKind = action === undefined ? undefined : REMOVED_ACTIONS[action];
    if (actionKind !== undefined) {
      found.add(actionKind);
      if (actionKind === 'javascript') this.scripts.add(dict, resolve);
      this.empty(dict);
      return;
    }
    const subtype = dict.get('Subtype', resolve);
    const annotationKind = subtype instanceof PdfName ? REMOVED_ANNOTATIONS[subtype.value] : undefined;
    if (annotationKind !== undefined && !(dict instanceof PdfStream)) {
      found.add(annotationKind);
      if (dict.has('FS')) found.add('embeddedFile');
      this.empty(dict);
      return;
    }
    if (dict.getName('Type', resolve)?.value === 'OCMD') this.memberships.push(dict);
    const flags = dict.get('F', resolve);
    if (flags instanceof PdfNumber && subtype instanceof PdfName && (flags.value & PRINT_FLAG) !== 0 && (flags.value & NO_VIEW_FLAG) !== 0 && hasArea(dict, resolve)) {
      this.printOnly.push(dict);
    }
    if (dict.getName('Type', resolve)?.value === 'EmbeddedFile' && dict instanceof PdfStream) {
      found.add('embeddedFile');
      if (this.remove) emptyStream(dict);
      return;
    }
    if (dict.has('AA')) {
      found.add('additionalActions');
      if (this.remove) dict.delete('AA');
    }
    // A file specification's embedded files (ISO 32000-1 §7.11.4): /EF is a dictionary of streams
    // (in usage-rights transform parameters /EF is an array of permissions, left alone).
    const embedded = dict.get('EF', resolve);
    if (embedded instanceof PdfDict && !(embedded instanceof PdfStream)) {
      found.add('embeddedFile');
      if (this.remove) {
        dict.delete('EF');
        dict.delete('RF');
      }
    }
    // The name trees of document scripts and attachments (ISO 32000-1 §7.7.4, the catalog's /Names).
    if (dict.has('JavaScript')) {
      found.add('javascript');
      if (this.remove) dict.delete('JavaScript');
    }
    if (dict.has('EmbeddedFiles')) {
      found.add('embeddedFile');
      if (this.remove) dict.delete('EmbeddedFiles');
    }
    if (dict.has('XFA')) {
      found.add('xfa');
      if (this.remove) dict.delete('XFA');
    }
    if (this.remove && dict.has('NeedsRendering')) dict.delete('NeedsRendering');
    if (!this.remove) return;
    // Where a removed action or annotation hung: the entry, or its place in an array, goes.
    for (const key of ['A', 'OpenAction', 'PA', 'Next']) {
      const entry = dict.get(key);
      const target = entry instanceof PdfRef ? resolve(entry) : entry;
      if (target instanceof PdfDict && this.isRemoved(target)) dict.delete(key);
      else if (target instanceof PdfArray) this.dropRemoved(target);
    }
    const annotations = dict.get('Annots', resolve);
    if (annotations instanceof PdfArray) this.dropRemoved(annotations);
  }

  /** Whether `dict` is (or will be, once visited) emptied as a removed action or annotation. */
  private isRemoved(dict: PdfDict): boolean {
    if (this.emptied.has(dict)) return true;
    const type = dict.get('S', this.resolve);
    if (type instanceof PdfName && REMOVED_ACTIONS[type.value] !== undefined) return true;
    const subtype = dict.get('Subtype', this.resolve);
    return subtype instanceof PdfName && REMOVED_ANNOTATIONS[subtype.value] !== undefined && !(dict instanceof PdfStream);
  }

  private dropRemoved(array: PdfArray): void {
    for (let index = array.length - 1; index >= 0; index--) {
      const item = array.at(index, this.resolve);
      if (item instanceof PdfDict && this.isRemoved(item)) array.remove(index);
    }
  }

  /**
   * Empties a removed action or annotation in place, so that a reference this sweep did not drop
   * (the structure tree's `/OBJR`, for one) keeps nothing alive.
   */
  private empty(dict: PdfDict): void {
    if (!this.remove) return;
    this.emptied.add(dict);
    if (dict instanceof PdfStream) emptyStream(dict);
    else emptyDictionary(dict);
  }
}

/**
 * Whether an annotation's rectangle has an area: an annotation of zero width or height (an invisible
 * signature, for one) draws nothing, on paper or on screen.
 */
function hasArea(annotation: PdfDict, resolve: Resolve): boolean {
  const rect = annotation.getArray('Rect', resolve);
  if (rect === undefined) return false;
  const [x1, y1, x2, y2] = [0, 1, 2, 3].map((index) => {
    const value = rect.at(index, resolve);
    return value instanceof PdfNumber ? value.value : 0;
  });
  return x1 !== x2 && y1 !== y2;
}

/** The text of removed scripts, kept up to {@link SCRIPT_TEXT_LIMIT} characters in all. */
class ScriptTexts {
  readonly texts: string[] = [];
  private length = 0;

  /** Keeps the `/JS` of a JavaScript action (a text string or a stream). */
  add(action: PdfDict, resolve: Resolve): void {
    if (this.length >= SCRIPT_TEXT_LIMIT) return;
    const code = action.get('JS', resolve);
    let text = '';
    if (code instanceof PdfStream) {
      try {
        const data = code.getDecodedData();
        text = Buffer.from(data.buffer, data.byteOffset, Math.min(data.byteLength, SCRIPT_TEXT_LIMIT)).toString('latin1');
      } catch {
        text = ''; // an undecodable script runs nowhere
      }
    } else if (code instanceof PdfString) {
      text = code.asString();
    }
    this.texts.push(text);
    this.length += text.length;
  }
}

function emptyDictionary(dict: PdfDict): void {
  for (const key of [...dict.keys()]) dict.delete(key);
}

function emptyStream(stream: PdfStream): void {
  emptyDictionary(stream);
  stream.setData(new Uint8Array(0));
}

/**
 * Gives a document without a file identifier (trailer `/ID`) one derived from its bytes: the
 * library would otherwise make a random one on saving, and the same upload must clean to the same
 * bytes (a retried send finds the copy it froze before, `freeze.ts`). The identifier is a hash of
 * the contents, as ISO 32000-1 §14.4 suggests.
 */
function giveStableIdentifier(pdf: PDF, document: Uint8Array): void {
  const trailer = pdf.context.info.trailer;
  if (trailer.has('ID')) return;
  const id = createHash('sha256').update(document).digest().subarray(0, 16);
  trailer.set('ID', PdfArray.of(new PdfString(new Uint8Array(id), 'hex'), new PdfString(new Uint8Array(id), 'hex')));
}

/**
 * Refuses content some viewer would hide (see the module comment): optional content, and
 * annotations that print but do not show on screen.
 * @param swept what {@link removeActiveContent} found: the scripts, membership dictionaries,
 *   layer-switching actions and print-only annotations anywhere in the document
 * @throws AppError 422 `document-hidden-content` naming the layers and the annotations
 */
export function assertNothingHidden(pdf: PDF, swept: RemovedContent): void {
  const resolve: Resolve = (ref) => pdf.getObject(ref);
  const problems: string[] = [];
  const layers = hiddenLayers(pdf, swept, resolve);
  if (layers.length > 0) {
    problems.push(`optional content (layers) that some viewers would hide: ${layers.map((name) => `"${name}"`).join(', ')}`);
  }
  if (swept.printOnly.length > 0) {
    problems.push(`annotations that are printed but not shown on screen (flags Print and NoView): ${describeAnnotations(pdf, swept.printOnly, resolve)}`);
  }
  if (problems.length === 0) return;
  throw problem('documentHiddenContent', {
    detail: `The document has ${problems.join('; and ')}; so a signer might not see what gets sealed. Make everything visible and flatten the document (for example by printing to PDF), then upload it again.`,
  });
}

/** The names of the layers some viewer would hide (see the module comment), each once. */
function hiddenLayers(pdf: PDF, swept: RemovedContent, resolve: Resolve): string[] {
  const properties = pdf.getCatalog().getDict('OCProperties', resolve);
  if (properties === undefined) return [];
  const groups = refsOf(properties.get('OCGs', resolve));
  if (groups.length === 0) return [];
  const hasScripts = swept.scripts.some((script) => LAYER_SCRIPT.test(script));
  const config = properties.getDict('D', resolve);
  const keyOf = (ref: PdfRef): string => `${ref.objectNumber} ${ref.generation}`;
  const listed = (key: string): Set<string> => new Set(refsOf(config?.get(key, resolve)).map(keyOf));
  const baseOff = config?.getName('BaseState', resolve)?.value === 'OFF';
  const on = listed('ON');
  const off = listed('OFF');
  const automatic = new Set<string>();
  for (const entry of arrayItems(config?.get('AS', resolve), resolve)) {
    if (entry instanceof PdfDict) for (const ref of refsOf(entry.get('OCGs', resolve))) automatic.add(keyOf(ref));
  }
  const hidden = new Map<string, PdfRef>();
  const hide = (ref: PdfRef): void => void hidden.set(keyOf(ref), ref);
  const named: string[] = [];
  const visible = (key: string): boolean => !off.has(key) && (!baseOff || on.has(key));
  for (const ref of groups) {
    const key = keyOf(ref);
    const group = resolve(ref);
    if (!visible(key) || automatic.has(key) || hasScripts || (group instanceof PdfDict && usageMayHide(group, resolve))) hide(ref);
  }
  for (const membership of swept.memberships) {
    if (membershipVisible(membership, (ref) => visible(keyOf(ref)), resolve)) continue;
    const members = [...refsOf(membership.get('OCGs', resolve)), ...expressionGroups(membership.get('VE', resolve), resolve, 0)];
    for (const ref of members) hide(ref);
    if (members.length === 0) named.push('a visibility expression that hides its content');
  }
  // A SetOCGState action (ISO 32000-1 §12.6.4.12) that turns a layer off or toggles it, wherever it hangs.
  for (const action of swept.layerSwitches) {
    let switching = false;
    for (const item of action.getArray('State', resolve) ?? []) {
      if (item instanceof PdfName) switching = item.value === 'OFF' || item.value === 'Toggle';
      else if (switching && item instanceof PdfRef) hide(item);
    }
  }
  // In the order of the document's list of groups, then the others.
  const order = new Map(groups.map((ref, index) => [keyOf(ref), index]));
  const sorted = [...hidden].sort(([a], [b]) => (order.get(a) ?? groups.length) - (order.get(b) ?? groups.length));
  for (const [, ref] of sorted) named.push(layerName(resolve(ref), resolve));
  return [...new Set(named)];
}

/** The groups a visibility expression names, at most 32 levels deep. */
function expressionGroups(value: PdfObject | undefined, resolve: Resolve, depth: number): PdfRef[] {
  const expression = value instanceof PdfRef ? resolve(value) : value;
  if (!(expression instanceof PdfArray) || depth > 32) return value instanceof PdfRef ? [value] : [];
  return expression.toArray().flatMap((operand) => (operand instanceof PdfName ? [] : expressionGroups(operand, resolve, depth + 1)));
}

/** Names annotations for a person: their kind, field name or contents, and page. */
function describeAnnotations(pdf: PDF, annotations: PdfDict[], resolve: Resolve): string {
  const pageOf = new Map<PdfDict, number>();
  pdf.getPages().forEach((page, index) => {
    for (const annotation of page.dict.getArray('Annots', resolve) ?? []) {
      const dict = annotation instanceof PdfRef ? resolve(annotation) : annotation;
      if (dict instanceof PdfDict && !pageOf.has(dict)) pageOf.set(dict, index + 1);
    }
  });
  const described = annotations.slice(0, 10).map((annotation) => {
    const subtype = annotation.getName('Subtype', resolve)?.value ?? 'annotation';
    const label = annotation.getString('T', resolve)?.asString() ?? annotation.getString('Contents', resolve)?.asString();
    const page = pageOf.get(annotation);
    return `${subtype}${label === undefined ? '' : ` "${label.slice(0, 40)}"`}${page === undefined ? ' (on no page)' : ` on page ${page}`}`;
  });
  return described.join(', ') + (annotations.length > 10 ? ` and ${annotations.length - 10} more` : '');
}

/** Whether a group's `/Usage` may hide it in some viewer: a view, print or export state off, or a zoom range. */
function usageMayHide(group: PdfDict, resolve: Resolve): boolean {
  const usage = group.getDict('Usage', resolve);
  if (usage === undefined) return false;
  const states: [string, string][] = [['View', 'ViewState'], ['Print', 'PrintState'], ['Export', 'ExportState']];
  if (states.some(([category, state]) => usage.getDict(category, resolve)?.getName(state, resolve)?.value === 'OFF')) return true;
  return usage.has('Zoom');
}

/**
 * Whether content under a membership dictionary shows in the default configuration (ISO 32000-1
 * §8.11.2.2): its visibility expression `/VE` when present, else its policy `/P` (default `AnyOn`)
 * over its groups.
 */
function membershipVisible(membership: PdfDict, groupVisible: (ref: PdfRef) => boolean, resolve: Resolve): boolean {
  const expression = membership.get('VE', resolve);
  if (expression instanceof PdfArray) return evaluate(expression, groupVisible, resolve, 0);
  const states = refsOf(membership.get('OCGs', resolve)).map(groupVisible);
  if (states.length === 0) return true;
  switch (membership.getName('P', resolve)?.value ?? 'AnyOn') {
    case 'AllOn':
      return states.every(Boolean);
    case 'AnyOff':
      return states.some((state) => !state);
    case 'AllOff':
      return states.every((state) => !state);
    default:
      return states.some(Boolean);
  }
}

/** A visibility expression (`[/And ...]`, `[/Or ...]`, `[/Not ...]`, operands groups or expressions). */
function evaluate(expression: PdfArray, groupVisible: (ref: PdfRef) => boolean, resolve: Resolve, depth: number): boolean {
  if (depth > 32) return false;
  const operator = expression.at(0, resolve);
  const operands: boolean[] = [];
  for (let index = 1; index < expression.length; index++) {
    const operand = expression.at(index);
    if (operand instanceof PdfRef) {
      const target = resolve(operand);
      operands.push(target instanceof PdfArray ? evaluate(target, groupVisible, resolve, depth + 1) : groupVisible(operand));
    } else if (operand instanceof PdfArray) {
      operands.push(evaluate(operand, groupVisible, resolve, depth + 1));
    }
  }
  const name = operator instanceof PdfName ? operator.value : '';
  if (name === 'Not') return !(operands[0] ?? true);
  if (name === 'And') return operands.every(Boolean);
  return operands.some(Boolean);
}

function layerName(group: PdfObject | null, resolve: Resolve): string {
  const name = group instanceof PdfDict ? group.get('Name', resolve) : undefined;
  return name instanceof PdfString ? name.asString() : 'unnamed layer';
}

/** The references in an array (or a single reference), other entries ignored. */
function refsOf(value: PdfObject | undefined): PdfRef[] {
  if (value instanceof PdfRef) return [value];
  if (!(value instanceof PdfArray)) return [];
  return value.toArray().filter((item): item is PdfRef => item instanceof PdfRef);
}

function arrayItems(value: PdfObject | undefined, resolve: Resolve): PdfObject[] {
  if (!(value instanceof PdfArray)) return [];
  return value.toArray().map((item) => (item instanceof PdfRef ? (resolve(item) ?? item) : item));
}
