/**
 * Files the seal carries inside the sealed PDF (docs/api.md#chained-audit-trail): the envelope's
 * chained audit trail as `audit.json` and the signers' files (docs/api.md#files-from-signers), each an associated file of the whole document (ISO 32000-2 §14.13,
 * `/AF` in the catalog, `/AFRelationship /Supplement`) and an embedded file (§7.11.4) listed in the
 * catalog's `/EmbeddedFiles` name tree, so that every reader lists it. It is added before the seal's
 * signature, which therefore covers it.
 *
 * The cleaning of uploads (`clean.ts`) removes embedded files from documents people upload; it never
 * runs on the sealed file.
 */
import { createHash } from 'node:crypto';
import { PdfArray, PdfDict, PdfName, PdfRef, PdfString, type PDF, type PdfObject, type PdfStream } from '@libpdf/core';

/** The name `audit.json` is embedded under (docs/api.md#chained-audit-trail). */
export const AUDIT_TRAIL_FILE = 'audit.json';

/** Deepest name tree {@link findEmbeddedFile} walks (malformed trees may loop). */
const MAX_NAME_TREE_DEPTH = 10;

/** A file embedded as an associated file of the whole document (ISO 32000-2 §14.13). */
export interface AssociatedFile {
  /** Its name in the `/EmbeddedFiles` name tree (one of that name is replaced). */
  name: string;
  bytes: Uint8Array;
  /** Its MIME type, written as the embedded file stream's `/Subtype`. */
  mimeType: string;
  description: string;
  /** Its creation and modification dates. */
  at: Date;
}

/**
 * Embeds `auditTrail` (the bytes of `audit.json`) in the document as {@link AUDIT_TRAIL_FILE}, an
 * associated file of type `application/json` ({@link attachAssociatedFile}).
 * @throws Error when the file just embedded cannot be found again (a fault of the service)
 */
export function attachAuditTrail(pdf: PDF, auditTrail: Uint8Array, at: Date): void {
  attachAssociatedFile(pdf, {
    name: AUDIT_TRAIL_FILE,
    bytes: auditTrail,
    mimeType: 'application/json',
    description: 'Audit trail of the envelope, chained: every event before its completion, as the audit API shows it',
    at,
  });
}

/**
 * Embeds `file` in the document: an embedded file stream of its MIME type whose `/Params` give its
 * size, its dates (`at`) and its MD5 `/CheckSum` (ISO 32000-2 §7.11.4, Table 45), a file
 * specification with `/AFRelationship /Supplement` added to the catalog's `/AF` array (§14.13), and
 * an entry in the `/EmbeddedFiles` name tree (replacing any of the same name). The audit trail and
 * the signers' files (docs/api.md#files-from-signers) are embedded so.
 * @throws Error when the file just embedded cannot be found again (a fault of the service)
 */
export function attachAssociatedFile(pdf: PDF, { name, bytes, mimeType, description, at }: AssociatedFile): void {
  pdf.attachments.add(name, bytes, { mimeType, description, createdAt: at, modifiedAt: at, overwrite: true });
  const resolve = (ref: PdfRef): PdfObject | null => pdf.getObject(ref);
  const catalog = pdf.getCatalog();
  const tree = catalog.getDict('Names', resolve)?.getDict('EmbeddedFiles', resolve);
  const fileSpecRef = tree === undefined ? undefined : findEmbeddedFile(tree, name, resolve, 0);
  const fileSpec = fileSpecRef === undefined ? null : pdf.getObject(fileSpecRef);
  const streamRef = fileSpec instanceof PdfDict ? fileSpec.getDict('EF', resolve)?.get('F') : undefined;
  const stream = streamRef instanceof PdfRef ? (pdf.getObject(streamRef) as PdfStream | null) : null;
  const params = stream?.getDict('Params', resolve);
  if (fileSpecRef === undefined || !(fileSpec instanceof PdfDict) || stream == null || params === undefined) {
    throw new Error(`${name} was not found among the embedded files just after it was added`);
  }
  fileSpec.set('AFRelationship', PdfName.of('Supplement'));
  // Written as /application#2Fjson, as ISO 32000-2 §7.11.4 asks for a MIME type with a slash.
  stream.set('Subtype', PdfName.of(mimeType));
  params.set('CheckSum', PdfString.fromBytes(new Uint8Array(createHash('md5').update(bytes).digest())));
  const associated = catalog.getArray('AF', resolve);
  if (associated === undefined) catalog.set('AF', new PdfArray([fileSpecRef]));
  else associated.push(fileSpecRef);
}

/** The value (a file specification's reference) the name tree under `node` gives `name`, or `undefined`. */
function findEmbeddedFile(node: PdfDict, name: string, resolve: (ref: PdfRef) => PdfObject | null, depth: number): PdfRef | undefined {
  if (depth > MAX_NAME_TREE_DEPTH) return undefined;
  const names = node.getArray('Names', resolve);
  if (names !== undefined) {
    for (let index = 0; index + 1 < names.length; index += 2) {
      const key = names.at(index, resolve);
      const value = names.at(index + 1);
      if (key instanceof PdfString && key.asString() === name && value instanceof PdfRef) return value;
    }
  }
  for (const kid of node.getArray('Kids', resolve) ?? []) {
    const child = kid instanceof PdfRef ? resolve(kid) : kid;
    const found = child instanceof PdfDict ? findEmbeddedFile(child, name, resolve, depth + 1) : undefined;
    if (found !== undefined) return found;
  }
  return undefined;
}
