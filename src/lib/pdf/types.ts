/**
 * The shapes of the PDF interface (re-exported by `index.ts`), kept apart so that the seal worker
 * and the main thread share them without the main thread loading @libpdf/core.
 */
import type { SealLevel } from '../sealLevel.js';

/** A signature as the recipient adopted it (docs/api.md#fields): typed text, or ink strokes. */
export type SignatureValue =
  | { typed: string }
  /** 1 to 50 strokes of 2 to 1000 points; x and y are fractions 0 to 1 of the field's rectangle, origin top-left. */
  | { strokes: [number, number][][] };

/** One recipient's block on the certificate of completion (docs/api.md#evidence). */
export interface CertificateRecipient {
  id: string;
  name: string;
  email: string;
  /** `signer`, `approver`, `viewer` or `cc`. */
  role: string;
  routingOrder: number;
  /** Final status (docs/api.md#recipients): `signed`, `approved`, `viewed`, `sent`, ... */
  status: string;
  /** ISO 8601 UTC with milliseconds, or `null` when the recipient did not act. */
  actedAt: string | null;
  /** Client address of the recipient's action, `null` when unknown. */
  ip: string | null;
  /** The user agent the browser reported for the action, at most 200 characters; `null` when unknown. */
  userAgent: string | null;
  /** The consent given with the action: when, and the disclosure's version; `null` when none was recorded. */
  consent: { at: string; version: string } | null;
  /**
   * How the recipient was identified, in words: every proof it gave, joined by `; ` ("Signing link
   * e-mailed to ada@example.com; Access code"); `null` when not asked to act.
   */
  identification: string | null;
  /** The language the recipient was shown, in words ("German (de)"); `null` when not asked to act. Absent: not printed. */
  language?: string | null;
  /** A signer's adopted signature (the first signature value it gave), drawn on its block; else `null`. */
  signature: SignatureValue | null;
}

/** What the certificate of completion shows (docs/api.md#what-completion-does step 3, §10). */
export interface CompletionCertificate {
  /** The language of its headings, labels and times (docs/languages.md): the envelope's `locale`; absent: `en`. */
  locale?: string;
  envelopeId: string;
  documentName: string;
  ownerEmail: string;
  /** The owner's display name (shown as `Name <address>`), or `null`/absent when none. */
  ownerName?: string | null;
  /** Lower-case hex SHA-256 of the frozen original document. */
  documentSha256: string;
  /**
   * Lower-case hex SHA-256 of the document as uploaded, before cleaning (docs/api.md#evidence);
   * `null` or absent when not known (envelopes sent before it was recorded): only `documentSha256` is printed then.
   */
  uploadSha256?: string | null;
  /** The kinds of active content removed from the upload when it was frozen (`[]` when none); printed with `uploadSha256`. */
  removed?: readonly string[];
  /** Pages of the frozen original document. */
  pageCount: number;
  /** ISO 8601 UTC with milliseconds. */
  createdAt: string;
  /** ISO 8601 UTC with milliseconds; `null` for an envelope completed from `draft`. */
  sentAt: string | null;
  /** ISO 8601 UTC with milliseconds. */
  completedAt: string;
  recipients: CertificateRecipient[];
  /**
   * Each distinct disclosure the recipients agreed to, in the order first agreed to, printed once
   * each (docs/api.md#consent-to-electronic-signatures): its text (line breaks kept), its version,
   * and its language in words ("Japanese (ja)"). Empty when nobody gave consent.
   */
  disclosures: { text: string; version: string; language: string }[];
  /**
   * The audit trail so far, oldest first: each event as a sentence a person reads (who did what to
   * whom), its raw type, time and client address.
   */
  events: { sequence: number; type: string; at: string; sentence: string; ip: string | null }[];
  /**
   * The `hash` of the last of {@link events} (docs/api.md#chained-audit-trail), printed as the audit
   * trail head; absent: not printed.
   */
  auditHead?: string;
  /**
   * An envelope of several documents (docs/api.md#several-documents): every document in order, each
   * printed with its name, pages, SHA-256 as uploaded and as frozen, and what was removed. Absent (or
   * one entry): the single document of the fields above.
   */
  documents?: CertificateDocument[];
  /**
   * The signers' files (docs/api.md#files-from-signers), in the order of their fields, each printed
   * with its field, name, type, size in bytes (grouped for the locale), SHA-256, who uploaded it and
   * when. Absent or empty: the section is not printed.
   */
  attachments?: CertificateAttachment[];
}

/** A signer's file as the certificate of completion lists it (docs/api.md#files-from-signers). */
export interface CertificateAttachment {
  /** The field: its label, else its type and id. */
  field: string;
  name: string;
  contentType: string;
  /** Bytes as stored. */
  size: number;
  /** Lower-case hex SHA-256 of the bytes as stored. */
  sha256: string;
  /** Who uploaded it: `Name <address>`. */
  uploadedBy: string;
  /** ISO 8601 UTC with milliseconds. */
  uploadedAt: string;
}

/** One document of an envelope as the certificate of completion lists it (docs/api.md#several-documents). */
export interface CertificateDocument {
  name: string;
  pageCount: number;
  /** Lower-case hex SHA-256 of the frozen copy. */
  documentSha256: string;
  /** Of the upload before cleaning; `null` when not known (then only `documentSha256` is printed). */
  uploadSha256: string | null;
  /** The kinds of active content removed when it was frozen (`[]` when none). */
  removed: readonly string[];
}

/** Field types (docs/api.md#fields). */
export type FieldType = 'signature' | 'initials' | 'date_signed' | 'name' | 'email' | 'text' | 'checkbox' | 'number' | 'date' | 'dropdown' | 'attachment' | 'image';

/**
 * A recipient's field value to draw into the page content (docs/api.md#what-completion-does step 2). The rectangle is in
 * fractions 0 to 1 of the page as a viewer displays it (the crop box, after the page's `/Rotate`),
 * origin top-left. Nothing outside the rectangle changes.
 */
export interface FieldDrawing {
  /** 1-based page number of the original document (of the documents together, in order, when several are sealed as one). */
  page: number;
  x: number;
  y: number;
  width: number;
  height: number;
  type: FieldType;
  /**
   * `signature`/`initials`: a {@link SignatureValue}; `text`, `date_signed` (`YYYY-MM-DD`), `name`,
   * `email`, `number` (`"12.50"`), `date` (`YYYY-MM-DD`), `dropdown` (the chosen option): the text;
   * `checkbox`: `true` draws a tick, `false` nothing; `image`: `{image}`, a JPEG's or PNG's bytes,
   * drawn as large as the rectangle allows, its aspect ratio kept, centred
   * (docs/api.md#files-from-signers); `null`: no value (only the background is painted, when
   * `background` asks for one).
   */
  value: SignatureValue | string | boolean | { image: Uint8Array } | null;
  /**
   * `white`: the rectangle is first painted opaque white (the field was made from a text tag,
   * docs/api.md#fields-from-the-document, so the tag's text never shows), also when `value` is `null`. Absent: nothing is
   * painted but the value.
   */
  background?: 'white';
}

/** Input of `sealDocument`. */
export interface SealOptions {
  /** The original PDF bytes (already checked by the caller: size limit, `%PDF-` header in the first 1024 bytes). */
  document: Uint8Array;
  /** Recipients' field values, drawn into the original pages before the certificate is appended. */
  fieldDrawings?: FieldDrawing[];
  /**
   * `true` when `document` is known to have passed the decompression-bomb check before: the
   * envelope's frozen copy, whose SHA-256 the caller has just matched against the one recorded when
   * those very bytes passed `inspectDocument` at sending (docs/api.md#create-an-envelope-and-upload-its-document). The seal then does not inflate
   * every stream again; every other check still runs, and the worker's memory bound still holds.
   * Default `false`.
   */
  inflateChecked?: boolean;
  /**
   * Fully qualified names of form fields that became envelope fields (docs/api.md#fields-from-the-document): each is
   * removed from the form, its widget annotations with it, before the form is flattened; the
   * recipient's value is drawn in its place through `fieldDrawings`. Names the form lacks are ignored.
   */
  removeFormFields?: string[];
  /**
   * Further documents whose pages follow `document`'s, in order, before the certificate (`combined`
   * output, docs/api.md#several-documents); checked as `document` is. Absent: none.
   */
  appendDocuments?: Uint8Array[];
  /** Appended as page(s) before sealing. */
  certificate: CompletionCertificate;
  /**
   * `audit.json`, the envelope's chained audit trail (docs/api.md#chained-audit-trail), embedded under
   * the seal as a PDF 2.0 associated file of the document (`/AFRelationship /Supplement`,
   * `application/json`) and listed among its embedded files. Absent: none.
   */
  auditTrail?: Uint8Array;
  /**
   * The signers' files (docs/api.md#files-from-signers), each embedded under the seal as an associated
   * file of the document (`/AFRelationship /Supplement`, its MIME type and MD5 checksum), under its
   * name, which must differ from the others' and from `audit.json`. Absent: none.
   */
  attachments?: SealAttachment[];
  /** PKCS#12 file with the sealing key and certificate (`SEAL_P12_BASE64`, decoded). */
  sealingP12: Uint8Array;
  sealingPassphrase: string;
  /** RFC 3161 timestamp authority; needed by every level above B-B. */
  timestampAuthorityUrl?: string;
  /**
   * PAdES baseline level (`sealLevel.ts`); default B-T with `timestampAuthorityUrl`, else B-B.
   * B-LT and B-LTA fetch revocation data from the URLs the certificates name (`revocation.ts`).
   */
  level?: SealLevel;
  /** `OUTBOUND_ALLOW_PRIVATE_NETWORKS`: revocation sources and issuer certificates may be on loopback or private addresses. Default `false`. */
  allowPrivateNetworks?: boolean;
  /** Aborts the seal: the promise rejects with `signal.reason`. */
  signal?: AbortSignal;
}

/** A signer's file as the seal embeds it (docs/api.md#files-from-signers). */
export interface SealAttachment {
  name: string;
  bytes: Uint8Array;
  /** `application/pdf`, `image/jpeg` or `image/png`. */
  mimeType: string;
  /** Its field, uploader, time and SHA-256, in words: the file specification's `/Desc`. */
  description: string;
}

/** Output of `sealDocument`. */
export interface SealResult {
  /** The sealed PDF. */
  sealed: Uint8Array;
  /** Pages of the original document. */
  originalPageCount: number;
  /** Certificate-of-completion pages appended after them. */
  certificatePageCount: number;
}

/** A seal request as the worker receives it (everything but the signal, which stays in the main thread). */
export type SealJob = Omit<SealOptions, 'signal'>;

/** An inspection request: only the checks that decide whether the document can be sealed. */
export interface InspectJob {
  inspectOnly: true;
  document: Uint8Array;
}

/** The pages of `document` from the 0-based page `from` on, as a PDF of their own (`extractPages.ts`); answered as a {@link SealResult} whose `sealed` holds it. */
export interface ExtractPagesJob {
  extractPages: true;
  document: Uint8Array;
  from: number;
}

/**
 * The kinds of active content cleaning removes from a frozen document (docs/api.md#what-the-service-removes-from-documents-and-why), as the
 * `envelope.sent` audit event names them: the actions by their `/S` type (`javascript` for
 * `/JavaScript`, `goToR` for `/GoToR`, ...), `additionalActions` for `/AA` dictionaries (actions a
 * viewer runs on its own, on opening a page or focusing a field), `embeddedFile` for embedded file
 * streams (`/EF`, the `/EmbeddedFiles` name tree), `fileAttachment`, `richMedia` and `3d` for those
 * annotations (and `3d` for `/GoTo3DView` actions), `xfa` for an XFA form.
 */
export const REMOVED_KINDS = [
  'javascript',
  'launch',
  'importData',
  'submitForm',
  'resetForm',
  'goToR',
  'goToE',
  'rendition',
  'additionalActions',
  'embeddedFile',
  'fileAttachment',
  'richMedia',
  'xfa',
  '3d',
] as const;

export type RemovedKind = (typeof REMOVED_KINDS)[number];

/** A freezing request: the checks of an inspection, then cleaning. */
export interface CleanJob {
  clean: true;
  document: Uint8Array;
}

/** Output of `cleanDocument`. */
export interface CleanResult {
  /**
   * The cleaned document, or `null` when there was nothing to remove (the document is frozen as
   * uploaded, byte for byte).
   */
  cleaned: Uint8Array | null;
  /** Pages of the document. */
  pageCount: number;
  /** The kinds of content found and removed, each once, in the order of {@link REMOVED_KINDS}; `[]` when none. */
  removed: RemovedKind[];
}

/** Input of `cleanDocument`. */
export interface CleanOptions {
  /** The PDF bytes (already checked by the caller: size limit, `%PDF-` header). */
  document: Uint8Array;
  signal?: AbortSignal;
}

/** What a seal worker answers: a seal's or an inspection's {@link SealResult}, a {@link CleanResult} or a {@link DetectResult}. */
export type WorkerResult = SealResult | CleanResult | DetectResult | CoverTagsResult;

/** Input of `inspectDocument`. */
export interface InspectOptions {
  /** The PDF bytes (already checked by the caller: size limit, `%PDF-` header). */
  document: Uint8Array;
  signal?: AbortSignal;
}

/** What the worker is asked to do. */
export type WorkerJob = SealJob | InspectJob | CleanJob | DetectJob | CoverTagsJob | ExtractPagesJob;

/** A rectangle in fractions 0 to 1 of the page as a viewer displays it (crop box, after /Rotate), origin top-left. */
export interface Rectangle {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** A text tag found in a page's text (docs/api.md#fields-from-the-document), not yet interpreted. */
export interface FoundTextTag {
  /** 1-based page. */
  page: number;
  /** What stands between `{{` and `}}`, as extracted (`signature;r=2`). */
  text: string;
  /** The tag's box, font ascent to descent, grown downward to at least 0.02 of the page's height. */
  rect: Rectangle;
  /** The box of the tag's text itself (font ascent to descent, with a small margin), not grown: what is covered in the frozen copy. */
  bounds: Rectangle;
  /** The tag's font size, points (the largest of its text's parts). */
  fontSize: number;
  /** The page's displayed width and height, points (crop box after /Rotate). */
  pageWidth: number;
  pageHeight: number;
}

/** A form field of the document's AcroForm that can become a field (docs/api.md#fields-from-the-document), one per visible widget. */
export interface FoundFormField {
  /** 1-based page of the widget. */
  page: number;
  /** The field's fully qualified name (ISO 32000-1 §12.7.3.2). */
  name: string;
  /** `signature` (unsigned only), `text`, `checkbox`, or `choice` (combo or list box). */
  kind: 'signature' | 'text' | 'checkbox' | 'choice';
  /** A choice field's options as displayed, in order. */
  options?: string[];
  /** The field's Required flag (ISO 32000-1 Table 221, bit 2). */
  required: boolean;
  /** The widget's rectangle. */
  rect: Rectangle;
}

/** The bounds of one detection, inside the worker's (docs/api.md#create-an-envelope-and-upload-its-document: 30 s, 512 MiB). */
export const DETECT_BOUNDS = {
  /** Most pages read; a longer document is refused (422 `document-too-complex`). */
  maxPages: 2_000,
  /** Time budget, milliseconds, checked after each page; the worker's 30 s stay the hard stop. */
  timeoutMs: 25_000,
  /** Longest text tag, characters between `{{` and `}}`. */
  maxTagLength: 2_000,
  /** Most tags and form fields reported in all. */
  maxFound: 5_000,
} as const;

/** A detection request: find the text tags and form fields of a document. */
export interface DetectJob {
  detect: true;
  document: Uint8Array;
  /** Time budget, milliseconds (default 25 s; for tests of the bound). */
  timeoutMs?: number;
}

/** Output of `detectDocumentFields`. */
export interface DetectResult {
  pageCount: number;
  /** In page order, then in the order of the pages' text. */
  textTags: FoundTextTag[];
  /** In page order, then top to bottom, left to right. */
  formFields: FoundFormField[];
}

/** Input of `detectDocumentFields`. */
export interface DetectOptions {
  /** The PDF bytes (already checked by the caller: size limit, `%PDF-` header). */
  document: Uint8Array;
  /** Time budget, milliseconds (default 25 s, within the worker's 30 s). */
  timeoutMs?: number;
  signal?: AbortSignal;
}

/** A request to cover a document's text tags: paint each tag's text box opaque white. */
export interface CoverTagsJob {
  coverTags: true;
  document: Uint8Array;
  /** The field types a tag may name: only tags whose type (before the first `;`) is one of them are covered. */
  types: readonly string[];
}

/** Output of `coverTextTags`. */
export interface CoverTagsResult {
  /** The document with its tags covered, or `null` when it holds no tag (or its text could not be read). */
  covered: Uint8Array | null;
  /** How many tags were covered. */
  tags: number;
}

/** Input of `coverTextTags`. */
export interface CoverTagsOptions {
  /** The PDF bytes (already checked and cleaned by the caller). */
  document: Uint8Array;
  /** See {@link CoverTagsJob.types}. */
  types: readonly string[];
  signal?: AbortSignal;
}
