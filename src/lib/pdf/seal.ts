/**
 * The seal pipeline (docs/api.md#what-completion-does), run inside a seal worker: check, load, flatten, append the
 * certificate of completion, embed the audit trail (`associatedFiles.ts`), sign with PAdES. Nothing here bounds time or memory; `workerPool.ts`
 * does, from the outside.
 *
 * Form fields are flattened after each gets an appearance that shows its value (`appearances.ts`);
 * the seal is a PAdES baseline signature without the CMS signing-time attribute (`pades.ts`);
 * a document protected by an owner password only is sealed without its protection.
 *
 * Documents that already carry signatures: everything this service adds (flattened form fields,
 * certificate pages, the seal) is written as incremental updates after the original bytes, so the
 * earlier signatures still cover exactly the bytes they signed and stay valid. Signature fields are
 * never flattened. Such a document is refused (422) when an incremental update is impossible:
 * when it is encrypted (removing the protection rewrites the file), when it needs repair, or when it
 * carries a certification signature (DocMDP, ISO 32000-1 §12.8.2.2), which forbids adding pages,
 * or when @libpdf/core cannot append to it (a linearized file: it would rewrite it in full).
 * Unsigned documents are also updated incrementally when they can be (the original bytes stay a
 * prefix of the sealed file), and rewritten in full when they are encrypted or were repaired.
 */
import { createHash } from 'node:crypto';
import { HttpTimestampAuthority, P12Signer, PDF, PdfArray, PdfDict, PdfRef, PermissionDeniedError, PlaceholderError, SecurityError, SignerError } from '@libpdf/core';
import type { DigestAlgorithm, PdfObject, TimestampAuthority } from '@libpdf/core';
import { AppError, isAppError } from '../errors.js';
import { generateValueAppearances } from './appearances.js';
import { attachAssociatedFile, attachAuditTrail } from './associatedFiles.js';
import { appendCertificatePages } from './certificatePage.js';
import { drawFieldValues, drawWidgetTexts } from './fieldDrawing.js';
import { checkInflateBudget, tooComplex } from './inflateBudget.js';
import { addLongTermValidation, checkTimestampToken, prefetchValidationData, withCheckedFetch } from './longTermValidation.js';
import { CheckedRevocationProvider, type FetchPolicy } from './revocation.js';
import { waitingOnNetwork } from './networkWait.js';
import { PadesBaselineSigner, removeSigningTime } from './pades.js';
import { needsTimestamp, needsValidationData } from '../sealLevel.js';
import type { SealJob, SealResult } from './types.js';
import { problem } from '../problems.js';

/** How long the timestamp authority may take to answer, in milliseconds. */
export const TIMESTAMP_TIMEOUT_MS = 10_000;
/** Bytes reserved for the CMS signature: the signature, the sealing certificate and, with a TSA, its token and certificates. */
const SIGNATURE_RESERVE = { plain: 16 * 1024, withTimestamp: 32 * 1024 };

function damaged(cause: unknown): AppError {
  return problem('documentDamaged', { cause });
}

function encrypted(detail: string): AppError {
  return problem('documentEncrypted', { detail });
}

const NEEDS_PASSWORD =
  'The document is protected with a password. Upload a copy without a password to open it.';

const UNSUPPORTED_ENCRYPTION =
  'The document is encrypted with a method the service cannot open (for example certificate-based encryption). Upload a copy without encryption.';

/**
 * Errors of the document's own making become 422, named for what they are: the engine's security
 * errors as "encrypted", errors from allocation as "too complex", anything else as "damaged".
 */
function classify(error: unknown): AppError {
  if (isAppError(error)) return error;
  if (error instanceof RangeError && /allocat|array length|buffer/i.test(error.message)) return tooComplex(error);
  if (error instanceof SecurityError) return unsupportedEncryption(error);
  return damaged(error);
}

/**
 * The engine's security errors other than a wrong password (an unsupported or malformed encryption
 * dictionary, a security handler other than the standard one, a denied permission) all mean the
 * same to the user: the encryption is what stops the seal, not damage.
 */
function unsupportedEncryption(cause: SecurityError): AppError {
  return problem('documentEncrypted', { detail: UNSUPPORTED_ENCRYPTION, cause });
}

/**
 * Removes the protection of a document opened with the empty user password, whatever permissions
 * its owner password denies (docs/api.md#create-an-envelope-and-upload-its-document: such a document "is sealed without its protection",
 * changes included). @libpdf/core's `removeProtection()` refuses when the document was opened
 * without the owner password and denies changes (PermissionDeniedError; LibPDF-js/core#64), although
 * the empty user password already decrypted every object: the permission bits are a request to
 * viewers, not part of the encryption (ISO 32000-1 §7.6.3.2). So, for this one call, the document's
 * permission flags, which `getPermissions()` hands out, are made to allow changes: the library then
 * removes the encryption itself. The document is rewritten unencrypted by the next save; the caller
 * checks that. Only for a document the empty password opened (`load` refuses the others).
 * @throws Error if the library still refuses (it changed how it hands out permissions): a fault of
 *   the service, not of the document
 */
export function removeOwnerRestrictions(pdf: PDF): void {
  try {
    pdf.removeProtection();
  } catch (error) {
    if (!(error instanceof PermissionDeniedError)) throw error;
    pdf.getPermissions().modify = true;
    try {
      pdf.removeProtection();
    } catch (cause) {
      throw new Error('@libpdf/core refused to remove the owner restrictions of a document opened with the empty password.', { cause });
    }
  }
}

let cachedSigner: { key: string; signer: P12Signer } | undefined;

/** The signer for this P12 and passphrase, created once per worker (P12Signer.create is slow). */
async function signerFor(p12: Uint8Array, passphrase: string): Promise<P12Signer> {
  const key = createHash('sha256').update(p12).update('\0').update(passphrase).digest('hex');
  if (cachedSigner?.key === key) return cachedSigner.signer;
  try {
    const signer = await P12Signer.create(p12, passphrase);
    cachedSigner = { key, signer };
    return signer;
  } catch (cause) {
    // A configuration fault, not the document's: a 500 for the operator, never a 4xx.
    throw new Error('The sealing certificate (SEAL_P12_BASE64 / SEAL_P12_PASSPHRASE) could not be opened.', { cause });
  }
}

/** The fetch of the process, kept before the seal's checked one replaces it (`longTermValidation.ts`). */
const platformFetch = globalThis.fetch;

/**
 * An RFC 3161 client that answers every failure (error status, refusal, timeout, no listener, an
 * answer that is not a timestamp token over the digest asked for) with one 503, and keeps the tokens
 * it obtained (their certificates are the timestamp chain that B-LT covers). The timestamp authority
 * is the operator's own setting, so it is reached without the address checks of certificate URLs.
 */
export class BoundedTimestampAuthority implements TimestampAuthority {
  private readonly inner: HttpTimestampAuthority;
  /** DER TimeStampTokens obtained, in order. */
  readonly tokens: Uint8Array[] = [];

  constructor(readonly url: string) {
    this.inner = new HttpTimestampAuthority(url, { timeout: TIMESTAMP_TIMEOUT_MS, fetch: platformFetch });
  }

  async timestamp(digest: Uint8Array, algorithm: DigestAlgorithm): Promise<Uint8Array> {
    try {
      const token = await waitingOnNetwork(() => this.inner.timestamp(digest, algorithm));
      checkTimestampToken(token, digest);
      this.tokens.push(token);
      return token;
    } catch (cause) {
      throw problem('timestampAuthorityUnavailable', { retryAfterSeconds: 30, cause });
    }
  }
}

/** True when the bytes declare encryption (/Encrypt in a trailer or cross-reference stream dictionary). */
function declaresEncryption(document: Uint8Array): boolean {
  return /\/Encrypt\s*(?:\d+\s+\d+\s+R|<<)/.test(Buffer.from(document.buffer, document.byteOffset, document.byteLength).toString('latin1'));
}

async function load(document: Uint8Array): Promise<PDF> {
  let pdf: PDF;
  try {
    pdf = await PDF.load(document);
  } catch (cause) {
    if (cause instanceof SecurityError) throw unsupportedEncryption(cause);
    // Opening an encrypted document with the wrong (empty) password can fail anywhere in parsing.
    if (declaresEncryption(document)) throw encrypted(NEEDS_PASSWORD);
    throw classify(cause);
  }
  // PDF.load does not throw when the empty password does not open the document, nor when it cannot
  // use the encryption dictionary (a security handler other than the standard one, such as
  // certificate encryption, or an unsupported revision): then it has no security handler, which
  // getSecurity() shows as "not encrypted" although the trailer says otherwise.
  if (pdf.isEncrypted && !pdf.isAuthenticated) {
    if (!pdf.getSecurity().isEncrypted) throw problem('documentEncrypted', { detail: UNSUPPORTED_ENCRYPTION });
    throw encrypted(NEEDS_PASSWORD);
  }
  return pdf;
}

/** Most objects a repaired document may have reachable from its catalog before the check gives up. */
const REACHABLE_OBJECT_LIMIT = 250_000;

/**
 * Whether every object reachable from the catalog (pages, their content streams, resources,
 * annotations, ...) exists. A document the engine had to rebuild from its objects (no usable
 * cross-reference table) may be a truncated upload whose pages point at objects that were cut off:
 * sealing it would seal pages with missing content, so it is refused instead.
 */
function isComplete(pdf: PDF): boolean {
  const seen = new Set<string>();
  const stack: PdfObject[] = [pdf.getCatalog()];
  while (stack.length > 0) {
    const value = stack.pop();
    if (value instanceof PdfRef) {
      const key = `${value.objectNumber} ${value.generation}`;
      if (seen.has(key)) continue;
      if (seen.size >= REACHABLE_OBJECT_LIMIT) return true;
      seen.add(key);
      const target = pdf.getObject(value);
      if (target === null) return false;
      stack.push(target);
    } else if (value instanceof PdfDict) {
      for (const [name, entry] of value) if (name.value !== 'Parent' && name.value !== 'P') stack.push(entry);
    } else if (value instanceof PdfArray) {
      for (const entry of value) stack.push(entry);
    }
  }
  return true;
}

/** A field name not used in the document, for the seal's signature field. */
function sealFieldName(pdf: PDF): string {
  const names = new Set(pdf.getForm()?.getFields().map((field) => field.name) ?? []);
  let name = 'EnvelopeSeal';
  for (let index = 2; names.has(name); index++) name = `EnvelopeSeal${index}`;
  return name;
}

/**
 * Creates the seal's signature field `name` and lists it in the first page's `/Annots`, where
 * `pdf.sign` then places it: @libpdf/core makes the field its own widget annotation (`/P` the first
 * page) without listing it in that page's `/Annots`, and ISO 32000-2 §12.5.2 has a page list every
 * annotation on it, so readers that look for fields through the pages (qpdf, many viewers) would not
 * see the seal (docs/api.md#what-completion-does step 5). `sign` reuses the field, found by name,
 * unsigned, so the object listed here is the widget it writes. An indirect `/Annots` array is
 * changed in place (written again by the incremental save), a direct one or none on the page itself.
 */
function listSealWidget(pdf: PDF, name: string): void {
  const page = pdf.getPage(0);
  if (page === null) return; // `sign` refuses a document without pages
  const ref = pdf.getOrCreateForm().createSignatureField(name).getRef();
  if (ref === null) throw new Error('The seal\'s signature field was not registered.');
  const resolve = (entry: PdfRef): PdfObject | null => pdf.getObject(entry);
  const annots = page.dict.getArray('Annots', resolve);
  if (annots === undefined) page.dict.set('Annots', new PdfArray([ref]));
  else annots.push(ref);
}

/**
 * Flattens every form field except signature fields into page content, after giving every field an
 * appearance that shows its value (`appearances.ts`), and drops XFA so that viewers that render XFA
 * show the same flattened content. Values the form's font cannot show are drawn into the pages with
 * the shaped fonts after flattening, over their fields' backgrounds. Signature fields stay (docs/api.md#what-completion-does step 1), so earlier
 * signatures keep their fields and stay valid.
 */
function flattenForm(pdf: PDF): void {
  const form = pdf.getForm();
  if (form === null) return;
  const { texts } = generateValueAppearances(pdf);
  form.flatten({ skipSignatures: true });
  drawWidgetTexts(pdf, texts);
  const resolve = (ref: PdfRef): PdfObject | null => pdf.getObject(ref);
  const catalog = pdf.getCatalog();
  const acroForm = catalog.getDict('AcroForm', resolve);
  if (acroForm?.has('XFA') === true) acroForm.delete('XFA');
  if (catalog.has('NeedsRendering')) catalog.delete('NeedsRendering');
}

/**
 * Removes the named form fields, and their widget annotations from the pages (docs/api.md#fields-from-the-document: a form
 * field that became an envelope field is replaced by the value drawn in its place). Names the form
 * does not have are ignored; a signed signature field is never removed (detection skips those).
 */
function removeFormFields(pdf: PDF, names: readonly string[]): void {
  const form = pdf.getForm();
  if (form === null || names.length === 0) return;
  for (const name of new Set(names)) {
    const field = form.getField(name);
    if (field === undefined || (field.type === 'signature' && form.getSignatureField(name)?.isSigned() === true)) continue;
    form.removeField(field);
  }
}

/**
 * Loads a document and applies every check that decides whether it can be sealed, without changing
 * it (docs/api.md#create-an-envelope-and-upload-its-document: "the document is checked whenever it is used"). Used on its own when an envelope is
 * sent, and as the first step of {@link seal}.
 * @throws AppError 422 document-encrypted / document-damaged / document-certified /
 *   document-signed-not-extensible / document-too-complex
 */
export async function openForSealing(document: Uint8Array, { inflateChecked = false }: { inflateChecked?: boolean } = {}): Promise<{ pdf: PDF; originalPageCount: number }> {
  if (!inflateChecked) await checkInflateBudget(document);
  const pdf = await load(document);
  try {
    const originalPageCount = pdf.getPageCount();
    if (originalPageCount === 0) throw damaged(new Error('The document has no pages.'));
    if (pdf.recoveredViaBruteForce && !isComplete(pdf)) {
      throw problem('documentDamaged', { detail: 'The document is incomplete (it may have been cut off during upload): some of its content is missing. Upload the complete file.' });
    }
    const resolve = (ref: PdfRef): PdfObject | null => pdf.getObject(ref);
    const signed = pdf.getForm()?.getSignatureFields().some((field) => field.isSigned()) ?? false;
    if (pdf.getCatalog().getDict('Perms', resolve)?.has('DocMDP') === true) {
      throw problem('documentCertified');
    }
    if (signed && pdf.isEncrypted) {
      throw encrypted(
        'The document is encrypted and already signed: removing its protection to seal it would break the existing signature. Upload an unencrypted copy.',
      );
    }
    const blocker = pdf.canSaveIncrementally();
    if (signed && blocker !== null) {
      throw problem('documentSignedNotExtensible', { cause: new Error(`Incremental update blocked: ${blocker}`) });
    }
    return { pdf, originalPageCount };
  } catch (error) {
    throw classify(error);
  }
}

/** How long the document {@link inspect} opened is kept for a seal of the same bytes, milliseconds. */
const INSPECTED_KEPT_MS = 5_000;

/**
 * The document the last {@link inspect} opened and checked, unchanged, kept for a {@link seal} of
 * the same bytes that follows it (completing a draft checks its upload when freezing it, then seals
 * it): that seal then neither inflates nor parses the document again. Dropped when taken, when the
 * next inspection replaces it, and {@link INSPECTED_KEPT_MS} after the inspection, so an idle worker
 * holds no document.
 */
let inspected: { document: Uint8Array; opened: { pdf: PDF; originalPageCount: number }; timer: NodeJS.Timeout } | undefined;

function dropInspected(): void {
  if (inspected !== undefined) clearTimeout(inspected.timer);
  inspected = undefined;
}

/** The checked document {@link inspect} kept when `document` has the very same bytes, else a fresh {@link openForSealing}. */
async function openChecked(document: Uint8Array, inflateChecked: boolean): Promise<{ pdf: PDF; originalPageCount: number }> {
  const kept = inspected;
  dropInspected();
  const same = (a: Uint8Array, b: Uint8Array): boolean =>
    a.byteLength === b.byteLength && Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(Buffer.from(b.buffer, b.byteOffset, b.byteLength));
  if (kept !== undefined && same(kept.document, document)) return kept.opened;
  return await openForSealing(document, { inflateChecked });
}

/**
 * Checks that a document can be sealed (see {@link openForSealing}).
 * @returns its page count
 */
export async function inspect(document: Uint8Array): Promise<{ pageCount: number }> {
  dropInspected();
  const opened = await openForSealing(document);
  keepOpened(document, opened);
  return { pageCount: opened.originalPageCount };
}

/**
 * Keeps a document opened and checked by {@link openForSealing}, unchanged, for a seal of the very
 * same bytes that may follow (see {@link inspected}).
 */
export function keepOpened(document: Uint8Array, opened: { pdf: PDF; originalPageCount: number }): void {
  dropInspected();
  const timer = setTimeout(dropInspected, INSPECTED_KEPT_MS);
  timer.unref();
  inspected = { document, opened, timer };
}

/**
 * Seals one document (docs/api.md#what-completion-does steps 1 to 4). See the module comment for signed documents.
 * @throws AppError 422 document-encrypted / document-damaged / document-certified /
 *   document-signed-not-extensible / document-too-complex,
 *   503 timestamp-authority-unavailable; a plain Error for faults of the service (bad sealing certificate)
 */
export async function seal(job: SealJob): Promise<SealResult> {
  const signer = await signerFor(job.sealingP12, job.sealingPassphrase);
  const level = job.level ?? (job.timestampAuthorityUrl === undefined ? 'B-B' : 'B-T');
  if (needsTimestamp(level) && job.timestampAuthorityUrl === undefined) throw new Error(`A ${level} seal needs a timestamp authority.`);
  const timestampAuthority = needsTimestamp(level) && job.timestampAuthorityUrl !== undefined ? new BoundedTimestampAuthority(job.timestampAuthorityUrl) : undefined;
  const sealingChain = [signer.certificate, ...(signer.certificateChain ?? [])];
  // Mutable: the long-term validation adds the URLs of the operator's chains, which may name any port.
  const policy: FetchPolicy = { allowPrivate: job.allowPrivateNetworks ?? false };
  // B-LT and B-LTA: revocation data first (it must predate the signature timestamp; a failing
  // source fails the seal before any work on the document).
  const provider = needsValidationData(level) ? new CheckedRevocationProvider(policy) : undefined;
  if (provider !== undefined && timestampAuthority !== undefined) {
    await withCheckedFetch(policy, () => prefetchValidationData({ sealingChain, timestampAuthority, provider }));
  }
  const opened = await openChecked(job.document, job.inflateChecked === true);
  const { pdf } = opened;
  let { originalPageCount } = opened;

  // Owner-password-only protection: the seal must cover the whole file, so the protection goes
  // (docs/api.md#create-an-envelope-and-upload-its-document). Outside the try below: a failure here is the service's, not the document's.
  if (pdf.isEncrypted) removeOwnerRestrictions(pdf);
  let certificatePageCount: number;
  try {
    // Several documents sealed as one (docs/api.md#several-documents): the others' pages follow, in order.
    for (const other of job.appendDocuments ?? []) {
      const source = await openForSealing(other, { inflateChecked: job.inflateChecked === true });
      await pdf.copyPagesFrom(source.pdf, [...Array(source.originalPageCount).keys()]);
      originalPageCount += source.originalPageCount;
    }
    removeFormFields(pdf, job.removeFormFields ?? []);
    flattenForm(pdf);
    if (job.fieldDrawings !== undefined && job.fieldDrawings.length > 0) drawFieldValues(pdf, job.fieldDrawings);
    certificatePageCount = appendCertificatePages(pdf, job.certificate, originalPageCount);
    // Under the seal: the signature below covers the embedded audit trail (docs/api.md#chained-audit-trail).
    if (job.auditTrail !== undefined) attachAuditTrail(pdf, job.auditTrail, new Date(job.certificate.completedAt));
    // The signers' files, under the seal too (docs/api.md#files-from-signers).
    for (const file of job.attachments ?? []) attachAssociatedFile(pdf, { ...file, at: new Date(job.certificate.completedAt) });
    // Fonts the library itself embedded (none today: the certificate's are `fontEmbedding.ts`'s) are
    // subsetted, as a save with `subsetFonts` would; the signature's own save then leaves them be.
    pdf.fonts.finalize(true);
  } catch (error) {
    throw classify(error);
  }

  // The changes above and the seal are written in one save: `sign` adds the signature field to the
  // document as changed in memory and writes it, incrementally after the original bytes when it can
  // (else in full: encrypted, repaired or linearized documents, as `openForSealing` allowed), then
  // reloads `pdf` from the signed bytes.
  // PAdES baseline: no signing-time attribute in the CMS; the time is the dictionary's /M (pades.ts).
  const baselineSigner = new PadesBaselineSigner(signer);
  let sealed: Uint8Array;
  try {
    const fieldName = sealFieldName(pdf);
    listSealWidget(pdf, fieldName);
    const result = await pdf.sign({
      signer: baselineSigner,
      fieldName,
      reason: `Sealed on completion of envelope ${job.certificate.envelopeId}`,
      subFilter: 'ETSI.CAdES.detached',
      digestAlgorithm: 'SHA-256',
      estimatedSize: timestampAuthority === undefined ? SIGNATURE_RESERVE.plain : SIGNATURE_RESERVE.withTimestamp,
      ...(timestampAuthority === undefined ? {} : { timestampAuthority }),
    });
    sealed = result.bytes;
  } catch (error) {
    if (isAppError(error) || error instanceof SignerError || error instanceof PlaceholderError) throw error;
    throw classify(error);
  }
  // A fault of the service (the library changed how it removes protection), never of the document.
  if (pdf.isEncrypted) throw new Error('The protection of the document was not removed before sealing.');

  // The sealed file must read back cleanly with every page (docs/api.md#create-an-envelope-and-upload-its-document: a repaired document is
  // sealed only if the sealed file is valid). `sign` has just parsed the signed bytes afresh into
  // `pdf` (`PDF.reload`: the same parser as `PDF.load`, from the bytes alone); removing the
  // signing-time below rewrites only hex digits inside the /Contents string, at the same length, so
  // the file that parse read is, object for object and offset for offset, the sealed file.
  try {
    if (pdf.recoveredViaBruteForce || pdf.getPageCount() !== originalPageCount + certificatePageCount) {
      throw new Error('The sealed document does not read back with all its pages.');
    }
  } catch (error) {
    throw damaged(error);
  }
  // Throws a plain Error (a fault of the service) if the CMS is not the one that was signed.
  removeSigningTime(sealed, baselineSigner);
  if (provider !== undefined && timestampAuthority !== undefined) {
    const signedBytes = sealed;
    sealed = await withCheckedFetch(policy, () => addLongTermValidation(pdf, signedBytes, { archival: level === 'B-LTA', timestampAuthority, sealingChain, provider }));
  }
  return { sealed, originalPageCount, certificatePageCount };
}
