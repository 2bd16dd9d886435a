/**
 * Everything PDF, behind one small interface: sealing a completed envelope's document (docs/api.md#what-completion-does)
 * and creating a development sealing certificate. Nothing outside `src/lib/pdf` imports
 * @libpdf/core; the PDF work itself runs in a worker thread (`workerPool.ts`), and node-forge loads
 * only when a development certificate is made, so this module is cheap to import.
 */
import { AppError } from '../errors.js';
import { sealWorkers } from './workerPool.js';
import type { CleanOptions, CleanResult, CoverTagsOptions, CoverTagsResult, DetectOptions, DetectResult, InspectOptions, SealOptions, SealResult } from './types.js';
import { problemType } from '../problems.js';

export { DETECT_BOUNDS, REMOVED_KINDS } from './types.js';
export type { CleanOptions, CleanResult, CoverTagsOptions, CoverTagsResult, DetectOptions, DetectResult, FoundFormField, FoundTextTag, Rectangle, RemovedKind } from './types.js';
export type { CertificateAttachment, CertificateDocument, CertificateRecipient, CompletionCertificate, FieldDrawing, FieldType, InspectOptions, SealAttachment, SealOptions, SealResult, SignatureValue } from './types.js';

/**
 * A self-signed sealing certificate for local development (see `developmentCertificate.ts`).
 * node-forge, which builds it, loads on this first call, not when the functions are imported.
 */
export async function createDevelopmentSealingCertificate(options: { commonName: string }): Promise<{ p12Base64: string; passphrase: string }> {
  const { createDevelopmentSealingCertificate: create } = await import('./developmentCertificate.js');
  return await create(options);
}

/**
 * Flattens the document's form fields (each first given an appearance that shows its value, so that
 * no value a viewer shows is lost), appends the certificate-of-completion page(s) and seals the
 * result with a PAdES baseline signature (`ETSI.CAdES.detached`, SHA-256, signing-certificate-v2,
 * no signing-time attribute) at `options.level` (`sealLevel.ts`: B-B; B-T with an RFC 3161
 * timestamp; B-LT with a DSS of certificates and revocation data; B-LTA with a document timestamp
 * last) made with the sealing P12 (docs/api.md#what-completion-does steps 1 to 4). Signatures the document already
 * carries stay valid: the changes are incremental updates, and a signed document that cannot be
 * updated that way is refused. A document that opens with the empty password (owner restrictions
 * only, whatever they deny) is sealed without its protection (docs/api.md#create-an-envelope-and-upload-its-document).
 *
 * Bounds (docs/api.md#create-an-envelope-and-upload-its-document): at most 30 s and 512 MiB of memory per seal, run in a reused worker thread,
 * one seal at a time per process, in order of arrival; exceeding a bound never takes the process down.
 *
 * @returns the sealed bytes and the page counts (original, certificate)
 * @throws AppError `unprocessable` (422) with type `document-encrypted` (needs a password, is
 *   encrypted with a method the service cannot open, or is encrypted and signed), `document-damaged` (cannot be parsed, or the sealed file would not be
 *   valid), `document-certified` (a certification signature forbids adding pages),
 *   `document-signed-not-extensible` (signed, but linearized or damaged, so the seal could not be
 *   an incremental update) or `document-too-complex` (over 30 s or 512 MiB, or a decompression bomb)
 * @throws AppError `service_unavailable` (503, Retry-After 30 s) with type
 *   `timestamp-authority-unavailable` when the TSA fails, answers an error or garbage, or takes over
 *   10 s; with type `revocation-unavailable` (B-LT, B-LTA) when an OCSP responder or CRL server of the
 *   seal's or timestamp's chains fails likewise, or its answer does not check
 * @throws `options.signal.reason` when aborted
 * @throws Error for faults of the service itself, e.g. a sealing P12 that does not open with its passphrase
 */
export async function sealDocument(options: SealOptions): Promise<SealResult> {
  const { signal, ...job } = options;
  try {
    const result = (await sealWorkers.run(job, signal)) as SealResult;
    lastSealFailure = null;
    return result;
  } catch (error) {
    // Only the last attempt counts: one that failed for another cause (the document) says nothing of the sources.
    lastSealFailure = (error instanceof AppError ? SEAL_SOURCE_FAILURES[error.type] : undefined) ?? null;
    throw error;
  }
}

/**
 * An RFC 3161 timestamp token over a SHA-256 `digest` from the timestamp authority at `url`, with the
 * seal's own client (`seal.ts` `BoundedTimestampAuthority`: 10 s at most, the answer checked to be a
 * token over this digest), in this thread: for what is timestamped outside a PDF, the public log's
 * signed tree heads (docs/api.md#signed-tree-heads). @libpdf/core loads on the first call.
 * @returns the DER TimeStampToken (RFC 3161 §2.4.2)
 * @throws AppError 503 `timestamp-authority-unavailable` when the authority fails, answers an error or
 *   garbage, or takes over 10 s
 */
export async function timestampDigest(url: string, digest: Uint8Array): Promise<Uint8Array> {
  const { BoundedTimestampAuthority } = await import('./seal.js');
  return await new BoundedTimestampAuthority(url).timestamp(digest, 'SHA-256');
}

/** Problem types of a seal that failed for its network sources, and what health says for each. */
const SEAL_SOURCE_FAILURES: Record<string, string> = {
  [problemType('timestampAuthorityUnavailable')]: 'The last seal failed: the timestamp authority (TSA_URL) did not answer with a timestamp.',
  [problemType('revocationUnavailable')]: 'The last seal failed: revocation data (OCSP or CRL) of the sealing or timestamp certificates could not be fetched.',
};

let lastSealFailure: string | null = null;

/**
 * Why this process's last seal attempt failed, when it failed for a source outside the service (the
 * timestamp authority, a revocation source), for `GET /api/health` (`degraded`); `[]` once a seal
 * has succeeded since, or none has failed so.
 */
export function sealHealthReasons(): string[] {
  return lastSealFailure === null ? [] : [lastSealFailure];
}

/**
 * Stops the seal worker thread, if one is started, and frees its memory; the next seal or inspection
 * starts a new one (about 0.2 s). A seal running or queued is refused with a plain Error. For a
 * process that is shutting down, or that seals nothing more for a long time.
 */
export async function stopSealWorker(): Promise<void> {
  await sealWorkers.stop();
}

/**
 * Checks, without changing anything, that a document can be sealed: it parses (or is repairable into a
 * complete document), opens without a password, and carries no signature that sealing would break
 * (docs/api.md#create-an-envelope-and-upload-its-document: the document is checked whenever it is used, sending included). Same worker and bounds
 * as {@link sealDocument}.
 * @returns the document's page count
 * @throws AppError `unprocessable` (422) with the types of {@link sealDocument}
 */
export async function inspectDocument(options: InspectOptions): Promise<{ pageCount: number }> {
  const { originalPageCount } = (await sealWorkers.run({ inspectOnly: true, document: options.document }, options.signal)) as SealResult;
  return { pageCount: originalPageCount };
}

/**
 * Checks a document as {@link inspectDocument} does, then cleans it for freezing (docs/api.md#what-the-service-removes-from-documents-and-why,
 * `clean.ts`): removes JavaScript, launch, import, submit, reset, remote go-to, embedded go-to and
 * rendition actions, additional actions, embedded files, file attachment, rich media and 3D
 * annotations and XFA, keeping URI links, wherever they sit in the file (unreferenced objects and
 * earlier revisions included). The cleaned document is written whole (nothing removed
 * survives in an older revision), or, when it already carries signatures, as an incremental update
 * so that they stay valid. Same worker and bounds as {@link sealDocument}.
 * @returns the cleaned bytes (`null`: nothing was removed, freeze the document as it is), its page
 *   count and the kinds removed
 * @throws AppError `unprocessable` (422) with the types of {@link sealDocument}, and
 *   `document-hidden-content` when content some viewer would hide (a layer off by default, or whose
 *   visibility depends on its usage, on `/AS`, on a script or on a `SetOCGState` action; an
 *   annotation printed but not shown on screen), naming the layers and annotations, and
 *   `document-too-complex` for a document with too many objects or revisions to sweep
 */
export async function cleanDocument(options: CleanOptions): Promise<CleanResult> {
  return (await sealWorkers.run({ clean: true, document: options.document }, options.signal)) as CleanResult;
}

/**
 * Finds the text tags (`{{type;...}}`) in the pages' text and the fillable fields of the document's
 * form, with their rectangles in fractions of the displayed pages (docs/api.md#fields-from-the-document; `detectFields.ts`),
 * without changing the document. Runs in the seal worker, within its bounds (docs/api.md#create-an-envelope-and-upload-its-document: 30 s and
 * 512 MiB), and within its own: at most 2,000 pages and a 25 s time budget.
 * @returns the page count, the tags (their text not yet interpreted) and the form fields
 * @throws AppError `unprocessable` (422) with type `document-damaged`, `document-encrypted` or
 *   `document-too-complex` (over a bound)
 */
export async function detectDocumentFields(options: DetectOptions): Promise<DetectResult> {
  const { signal, ...job } = options;
  return (await sealWorkers.run({ detect: true, ...job }, signal)) as DetectResult;
}

/**
 * The certificate of completion of a sealed PDF as a PDF of its own (docs/api.md#download-a-completed-envelope):
 * its pages from `from` (0-based: the sealed documents' page count) on, copied without their
 * annotations (the seal's widget names a signature that would not cover the new file). Same worker
 * and bounds as {@link sealDocument}.
 * @returns the new PDF's bytes
 * @throws AppError `unprocessable` (422) when the sealed PDF cannot be read
 */
export async function certificatePdf(options: { document: Uint8Array; from: number; signal?: AbortSignal }): Promise<Uint8Array> {
  const { signal, ...job } = options;
  return ((await sealWorkers.run({ extractPages: true, ...job }, signal)) as SealResult).sealed;
}

/**
 * Covers the document's text tags whose type is one of `options.types` for its frozen copy
 * (`coverTags.ts`, docs/api.md#fields-from-the-document): each tag's text box is painted opaque
 * white, so that no signer sees it, on the signing page or in the seal. Same worker and bounds as
 * {@link sealDocument}; a document whose text cannot be read is left as it is.
 * @returns the covered bytes (`null`: no tag, keep the document as it is) and how many tags were covered
 * @throws AppError `unprocessable` (422) with the types of {@link sealDocument}
 */
export async function coverTextTags(options: CoverTagsOptions): Promise<CoverTagsResult> {
  const { signal, ...job } = options;
  return (await sealWorkers.run({ coverTags: true, ...job }, signal)) as CoverTagsResult;
}
