/**
 * Clean documents (CONTRACT §17.2), run inside a seal worker when a document is frozen: what the
 * service seals must be what every viewer shows, and its seal must not vouch for content that acts
 * on the reader's machine. So the frozen copy loses, through @libpdf/core's object model:
 * - every action that runs code, opens or sends files, or plays media: `/S` of `/JavaScript`,
 *   `/Launch`, `/ImportData`, `/SubmitForm`, `/ResetForm`, `/GoToR`, `/GoToE`, `/Rendition` and
 *   `/GoTo3DView`, wherever it hangs (`/OpenAction`, a link's or outline item's `/A`, a `/Next`
 *   chain), and the document-level JavaScript name tree;
 * - every additional-actions dictionary (`/AA`, on the catalog, pages, annotations and fields):
 *   actions a viewer runs on its own (on opening, closing, printing, focusing a field, formatting,
 *   validating or calculating its value);
 * - embedded files (`/EF` of every file specification, the `/EmbeddedFiles` name tree), file
 *   attachment, rich media and 3D annotations, and the XFA form (`/XFA`, with `/NeedsRendering`).
 * URI links, go-to links within the document and named actions stay.
 *
 * A removed annotation or action is also emptied in place, so that a reference this walk does not
 * follow (the structure tree's `/OBJR`, for one) keeps nothing alive. The cleaned document is written
 * whole, so nothing removed survives in an older revision; a document that carries signatures is
 * written as an incremental update instead, so that they stay valid (their revision keeps what they
 * signed, unreferenced from the cleaned one). A document protected by an owner password only loses
 * that protection with its active content, as it would at sealing.
 *
 * Optional content (ISO 32000-1 §8.11) that some viewer would hide is refused, not cleaned: a layer
 * off in the default configuration, a layer whose visibility depends on its usage (`/Usage` states
 * off, or a zoom range), a layer named by an automatic-state array (`/AS`), a membership dictionary
 * that hides content with every layer on, and every layer of a document whose scripts use optional
 * content (the JavaScript API's `getOCGs` and `OCG` objects). Such content would be sealed although
 * the signer may never have seen it. Scripts that do not touch layers (the formatting and
 * calculation scripts of most forms) are removed without refusing the document.
 */
import { createHash } from 'node:crypto';
import { PDF, PdfArray, PdfDict, PdfName, PdfRef, PdfStream, PdfString } from '@libpdf/core';
import type { PdfObject } from '@libpdf/core';
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

/** Script text that reaches optional content through the JavaScript API (`getOCGs()`, `OCG` objects, `ocgs`). */
const LAYER_SCRIPT = /ocg/i;

/** Most characters of script text kept for {@link LAYER_SCRIPT} (per document). */
const SCRIPT_TEXT_LIMIT = 4 * 1024 * 1024;

/** Most dictionaries a walk visits before it stops (a document this large is refused elsewhere by its bounds). */
const OBJECT_LIMIT = 500_000;

/**
 * Checks a document (as `inspect` does), refuses hidden optional content and removes active content.
 * Keeps the cleaned document opened for a seal of the same bytes that may follow.
 * @returns the cleaned bytes, or `null` when nothing was removed; the page count; the kinds removed
 * @throws AppError 422 as `openForSealing`, and `document-hidden-content` naming the layers
 */
export async function clean(document: Uint8Array): Promise<CleanResult> {
  const opened = await openForSealing(document);
  const { pdf, originalPageCount: pageCount } = opened;
  const { found, scripts } = removeActiveContent(pdf);
  assertNothingHidden(pdf, scripts.some((script) => LAYER_SCRIPT.test(script)));
  const removed = REMOVED_KINDS.filter((kind) => found.has(kind));
  if (removed.length === 0) {
    keepOpened(document, opened);
    return { cleaned: null, pageCount, removed };
  }
  const signed = pdf.getForm()?.getSignatureFields().some((field) => field.isSigned()) ?? false;
  // An owner-password-only protection goes now rather than at sealing (CONTRACT §4): re-encrypting
  // would draw new random initialization vectors, and the same upload must clean to the same bytes.
  // (`openForSealing` refuses documents that are both signed and encrypted.)
  if (pdf.isEncrypted) removeOwnerRestrictions(pdf);
  if (!signed) giveStableIdentifier(pdf, document);
  const cleaned = await pdf.save({ incremental: signed });
  const reopened = await openForSealing(cleaned, { inflateChecked: true });
  if (reopened.originalPageCount !== pageCount) throw new Error('The cleaned document does not read back with all its pages.');
  keepOpened(cleaned, reopened);
  // The kept document reads `cleaned`; the copy is what the worker hands over (and detaches).
  return { cleaned: cleaned.slice(), pageCount, removed };
}

/** What {@link removeActiveContent} removed. */
export interface RemovedContent {
  /** The kinds found (and removed). */
  found: Set<RemovedKind>;
  /** The text of the removed scripts (up to 4 MiB in all), to tell whether they used layers. */
  scripts: string[];
}

/**
 * Removes the active content listed in the module comment from the in-memory document.
 * @returns the kinds found and the removed scripts' text
 */
export function removeActiveContent(pdf: PDF): RemovedContent {
  const resolve: Resolve = (ref) => pdf.getObject(ref);
  const found = new Set<RemovedKind>();
  const scripts = new ScriptTexts();
  const catalog = pdf.getCatalog();

  const names = catalog.getDict('Names', resolve);
  if (names?.has('JavaScript') === true) {
    const tree = names.get('JavaScript', resolve);
    if (tree !== undefined) collectNameTreeScripts(tree, scripts, resolve);
    names.delete('JavaScript');
    found.add('javascript');
  }
  if (names?.has('EmbeddedFiles') === true) {
    names.delete('EmbeddedFiles');
    found.add('embeddedFile');
  }
  const acroForm = catalog.getDict('AcroForm', resolve);
  if (acroForm?.has('XFA') === true) {
    acroForm.delete('XFA');
    found.add('xfa');
  }
  if (catalog.has('NeedsRendering')) catalog.delete('NeedsRendering');

  // Where actions, additional actions, annotations and file specifications hang: the catalog, the
  // outline items, the pages and their annotations, the form's fields; and the actions themselves
  // (a /Next chain). Content streams, fonts and images hold none, and are not read.
  const visited = new Set<PdfDict>();
  const clean = (value: PdfObject | undefined): PdfDict | undefined => {
    const dict = value instanceof PdfRef ? resolve(value) : value;
    if (!(dict instanceof PdfDict) || visited.has(dict) || visited.size >= OBJECT_LIMIT) return undefined;
    visited.add(dict);
    cleanDictionary(dict, found, scripts, resolve);
    for (const key of ['A', 'OpenAction', 'Next']) {
      const action = dict.get(key, resolve);
      if (action instanceof PdfDict && action.has('S')) clean(action);
      else if (action instanceof PdfArray && key === 'Next') for (const item of action) clean(item);
    }
    // Associated files (ISO 32000-2 §14.13): file specifications, whose embedded files go.
    for (const spec of dict.getArray('AF', resolve) ?? []) clean(spec);
    return dict;
  };
  clean(catalog);
  const outlines: PdfObject[] = [];
  const root = catalog.getDict('Outlines', resolve)?.get('First');
  if (root !== undefined) outlines.push(root);
  while (outlines.length > 0) {
    const item = clean(outlines.pop());
    for (const key of ['Next', 'First']) {
      const next = item?.get(key);
      if (next !== undefined) outlines.push(next);
    }
  }
  for (const page of pdf.getPages()) {
    clean(page.dict);
    for (const annotation of page.dict.getArray('Annots', resolve) ?? []) clean(annotation);
  }
  const fields: PdfObject[] = [...(acroForm?.getArray('Fields', resolve) ?? [])];
  while (fields.length > 0) {
    const field = clean(fields.pop());
    fields.push(...(field?.getArray('Kids', resolve) ?? []));
  }
  return { found, scripts: scripts.texts };
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

/** Keeps the scripts of a JavaScript name tree (ISO 32000-1 §7.9.6: `/Names` pairs, `/Kids`), at most 64 levels deep. */
function collectNameTreeScripts(node: PdfObject, scripts: ScriptTexts, resolve: Resolve, depth = 0): void {
  const dict = node instanceof PdfRef ? resolve(node) : node;
  if (!(dict instanceof PdfDict) || depth > 64) return;
  const pairs = dict.getArray('Names', resolve);
  for (let index = 1; pairs !== undefined && index < pairs.length; index += 2) {
    const action = pairs.at(index, resolve);
    if (action instanceof PdfDict) scripts.add(action, resolve);
  }
  for (const kid of dict.getArray('Kids', resolve) ?? []) collectNameTreeScripts(kid, scripts, resolve, depth + 1);
}

/** Removes from one dictionary the entries the module comment lists (its children are walked by the caller). */
function cleanDictionary(dict: PdfDict, found: Set<RemovedKind>, scripts: ScriptTexts, resolve: Resolve): void {
  const additional = dict.get('AA', resolve);
  if (additional !== undefined) {
    if (additional instanceof PdfDict) {
      for (const [, action] of additional) emptyActions(action, found, scripts, resolve);
    }
    dict.delete('AA');
    found.add('additionalActions');
  }
  for (const key of ['A', 'OpenAction', 'Next']) {
    const entry = dict.get(key);
    if (entry === undefined) continue;
    const action = entry instanceof PdfRef ? resolve(entry) : entry;
    if (action instanceof PdfArray && key === 'Next') {
      // A /Next array: keep the actions that stay, in order.
      for (let index = action.length - 1; index >= 0; index--) {
        const item = action.at(index);
        const resolved = item instanceof PdfRef ? resolve(item) : item;
        if (resolved instanceof PdfDict && removedAction(resolved) !== null) {
          emptyActions(resolved, found, scripts, resolve);
          action.remove(index);
        }
      }
    } else if (action instanceof PdfDict && removedAction(action) !== null) {
      emptyActions(action, found, scripts, resolve);
      dict.delete(key);
    }
  }
  // A file specification's embedded files (ISO 32000-1 §7.11.4): /EF is a dictionary of streams
  // (in usage-rights transform parameters /EF is an array of permissions, left alone).
  const embedded = dict.get('EF', resolve);
  if (embedded instanceof PdfDict && !(embedded instanceof PdfStream)) {
    // The embedded file streams themselves may be referenced from elsewhere: emptied too.
    for (const [, stream] of embedded) {
      const resolved = stream instanceof PdfRef ? resolve(stream) : stream;
      if (resolved instanceof PdfStream) emptyStream(resolved);
    }
    dict.delete('EF');
    dict.delete('RF');
    found.add('embeddedFile');
  }
  const annotations = dict.get('Annots', resolve);
  if (annotations instanceof PdfArray) {
    for (let index = annotations.length - 1; index >= 0; index--) {
      const annotation = annotations.at(index, resolve);
      const subtype = annotation instanceof PdfDict ? annotation.getName('Subtype', resolve)?.value : undefined;
      const kind = subtype === undefined ? undefined : REMOVED_ANNOTATIONS[subtype];
      if (kind === undefined || !(annotation instanceof PdfDict)) continue;
      if (annotation.has('FS')) found.add('embeddedFile');
      emptyDictionary(annotation);
      annotations.remove(index);
      found.add(kind);
    }
  }
}

/** The kind of a removed action, or `null` for an action that stays (URI, GoTo, Named, ...). */
function removedAction(action: PdfDict): RemovedKind | null {
  const type = action.get('S');
  return type instanceof PdfName ? (REMOVED_ACTIONS[type.value] ?? null) : null;
}

/**
 * Records the kinds of an action and of its `/Next` chain and empties those removed (a kept action
 * in the chain loses its removed successors when the walk reaches it).
 */
function emptyActions(value: PdfObject, found: Set<RemovedKind>, scripts: ScriptTexts, resolve: Resolve, depth = 0): void {
  if (depth > 64) return;
  const action = value instanceof PdfRef ? resolve(value) : value;
  if (action instanceof PdfArray) {
    for (const item of action) emptyActions(item, found, scripts, resolve, depth + 1);
    return;
  }
  if (!(action instanceof PdfDict)) return;
  const next = action.get('Next');
  const kind = removedAction(action);
  if (next !== undefined) emptyActions(next, found, scripts, resolve, depth + 1);
  if (kind === null) return;
  if (kind === 'javascript') scripts.add(action, resolve);
  found.add(kind);
  emptyDictionary(action);
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
 * Refuses optional content some viewer would hide (see the module comment).
 * @param hasScripts whether the document carried scripts (now removed) that used layers
 * @throws AppError 422 `document-hidden-content` naming the layers
 */
export function assertNothingHidden(pdf: PDF, hasScripts: boolean): void {
  const resolve: Resolve = (ref) => pdf.getObject(ref);
  const properties = pdf.getCatalog().getDict('OCProperties', resolve);
  if (properties === undefined) return;
  const groups = refsOf(properties.get('OCGs', resolve));
  if (groups.length === 0) return;
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
  const hidden = new Set<string>();
  const visible = (key: string): boolean => !off.has(key) && (!baseOff || on.has(key));
  for (const ref of groups) {
    const key = keyOf(ref);
    const group = resolve(ref);
    if (!visible(key) || automatic.has(key) || hasScripts || (group instanceof PdfDict && usageMayHide(group, resolve))) hidden.add(key);
  }
  for (const membership of membershipDictionaries(pdf, resolve)) {
    if (!membershipVisible(membership, (ref) => visible(keyOf(ref)), resolve)) for (const ref of refsOf(membership.get('OCGs', resolve))) hidden.add(keyOf(ref));
  }
  if (hidden.size === 0) return;
  const layers = groups.filter((ref) => hidden.has(keyOf(ref))).map((ref) => layerName(resolve(ref), resolve));
  const named = [...new Set(layers)].map((name) => `"${name}"`).join(', ');
  throw problem('documentHiddenContent', { detail: `The document has optional content (layers) that some viewers would hide, so a signer might not see what gets sealed: ${named}. Make every layer visible and flatten the layers (for example by printing to PDF), then upload it again.` });
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
 * The optional content membership dictionaries (`/Type /OCMD`) that the pages use: in their
 * resources' `/Properties` (marked content), on their XObjects (`/OC`, form XObjects' own resources
 * followed, at most 16 deep) and on their annotations.
 */
function membershipDictionaries(pdf: PDF, resolve: Resolve): PdfDict[] {
  const found: PdfDict[] = [];
  const visited = new Set<PdfDict>();
  const consider = (value: PdfObject | undefined): void => {
    const dict = value instanceof PdfRef ? resolve(value) : value;
    if (dict instanceof PdfDict && dict.getName('Type', resolve)?.value === 'OCMD' && !found.includes(dict)) found.push(dict);
  };
  const fromResources = (resources: PdfDict | undefined, depth: number): void => {
    if (resources === undefined || visited.has(resources) || depth > 16 || visited.size >= OBJECT_LIMIT) return;
    visited.add(resources);
    for (const [, value] of resources.getDict('Properties', resolve) ?? []) consider(value);
    for (const [, value] of resources.getDict('XObject', resolve) ?? []) {
      const xobject = value instanceof PdfRef ? resolve(value) : value;
      if (!(xobject instanceof PdfDict)) continue;
      consider(xobject.get('OC', resolve));
      fromResources(xobject.getDict('Resources', resolve), depth + 1);
    }
  };
  for (const page of pdf.getPages()) {
    fromResources(page.dict.getDict('Resources', resolve), 0);
    for (const annotation of page.dict.getArray('Annots', resolve) ?? []) {
      const dict = annotation instanceof PdfRef ? resolve(annotation) : annotation;
      if (dict instanceof PdfDict) consider(dict.get('OC', resolve));
    }
  }
  return found;
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
