/**
 * The shapes of the PDF interface (re-exported by `index.ts`), kept apart so that the seal worker
 * and the main thread share them without the main thread loading @libpdf/core.
 */

/** What the certificate of completion shows (CONTRACT §6 step 2, §10). */
export interface CompletionCertificate {
  envelopeId: string;
  documentName: string;
  ownerEmail: string;
  signers: { id: string; name: string; email: string; role: string }[];
  /** ISO 8601 UTC with milliseconds. */
  createdAt: string;
  /** ISO 8601 UTC with milliseconds. */
  completedAt: string;
  /** Lower-case hex SHA-256 of the original document. */
  originalSha256: string;
  /** The audit trail so far, oldest first. */
  events: { sequence: number; type: string; at: string; actorId: string | null }[];
}

/** Input of `sealDocument`. */
export interface SealOptions {
  /** The original PDF bytes (already checked by the caller: size limit, `%PDF-` header in the first 1024 bytes). */
  document: Uint8Array;
  /** Appended as page(s) before sealing. */
  certificate: CompletionCertificate;
  /** PKCS#12 file with the sealing key and certificate (`SEAL_P12_BASE64`, decoded). */
  sealingP12: Uint8Array;
  sealingPassphrase: string;
  /** RFC 3161 timestamp authority; when set the seal is PAdES B-T, else B-B. */
  timestampAuthorityUrl?: string;
  /** Aborts the seal: the promise rejects with `signal.reason`. */
  signal?: AbortSignal;
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

/** Input of `inspectDocument`. */
export interface InspectOptions {
  /** The PDF bytes (already checked by the caller: size limit, `%PDF-` header). */
  document: Uint8Array;
  signal?: AbortSignal;
}

/** What the worker is asked to do. */
export type WorkerJob = SealJob | InspectJob;
