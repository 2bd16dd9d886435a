/**
 * The step Detect Fields shares between envelopes and templates (docs/api.md#fields-from-the-document): read the owner's
 * draft, find the text tags and form fields of its uploaded document (`textTags.ts`), and replace its
 * fields with them under the ETag that was read, trying again when another request changed the draft
 * in between (only when the caller sent no `If-Match`: with one, its 412 stands).
 */
import { AppError } from '../errors.js';
import { retryOnConflict } from '../retryOnConflict.js';
import { namingDocument } from './documents.js';
import { detectFields, type AssigneeLookup, type DetectedField, type DetectedFields } from './textTags.js';

/** Detections tried when the draft changed while its document was read: fewer than other changes', since each reads the document. */
const DETECT_ATTEMPTS = 3;

/** What detection needs of one kind of draft (an envelope, a template). */
export interface DetectionTarget<Stored, Assignee> {
  /**
   * The owner's draft as stored, checked against the request's `If-Match` and its status.
   * @throws AppError 404, 412 `etag-mismatch`, 409 (not a draft), as the kind answers them
   */
  read(): Promise<Stored>;
  /** The strong ETag of a stored version. */
  etag(record: Stored): string;
  /** The uploaded document's bytes, after the upload checks (docs/api.md#create-an-envelope-and-upload-its-document). */
  document(record: Stored): Promise<Uint8Array>;
  /**
   * Several documents (docs/api.md#several-documents): each, in order, read only when its turn
   * comes; its fields are given its `documentId`. Absent, or `null` for a record of one document: {@link document}.
   */
  documents?(record: Stored): DetectionDocument[] | null;
  /** Who a tag's `r=` names (`undefined`: none given, and for form fields). */
  assignee(record: Stored, who: string | undefined): AssigneeLookup<Assignee>;
  /** Replaces the draft's fields with the detected ones, if its ETag is still `ifMatch`. @throws AppError 412 when it is not */
  replaceFields(fields: DetectedField<Assignee>[], ifMatch: string): Promise<Stored>;
  /** The 409 answered when the draft kept changing during every attempt. */
  contended(): AppError;
}

/** One of several documents to detect fields in. */
export interface DetectionDocument {
  id: string;
  name: string;
  order: number;
  /** Its bytes, after the upload checks. */
  read(): Promise<Uint8Array>;
}

/** The draft as stored afterwards (its fields are the detected ones) and how many came from tags and from the form. */
export interface DetectionResult<Stored> {
  record: Stored;
  textTags: number;
  formFields: number;
}

/**
 * Detects the fields of a draft's document and makes them its fields, in page order; a document with
 * neither tags nor form fields gives zero fields (not an error).
 * @param ifMatch the request's `If-Match` header, or `null`
 * @throws AppError what `target` throws; 409 `no-signer`, 422 `text-tag-invalid`, `too-many-fields`,
 *   `document-too-complex` from detection; `target.contended()` after {@link DETECT_ATTEMPTS} changes
 */
export async function detectAndReplaceFields<Stored, Assignee>(target: DetectionTarget<Stored, Assignee>, ifMatch: string | null): Promise<DetectionResult<Stored>> {
  return await retryOnConflict(
    async () => {
      const record = await target.read();
      const assignee = (who: string | undefined): AssigneeLookup<Assignee> => target.assignee(record, who);
      const documents = target.documents?.(record) ?? null;
      const found = documents === null ? await detectFields({ document: await target.document(record), assignee }) : await detectInEvery(documents, assignee);
      // The fields name the signers or roles as read: the update applies only to that very version.
      const updated = await target.replaceFields(found.fields, ifMatch ?? target.etag(record));
      return { record: updated, textTags: found.textTags, formFields: found.formFields };
    },
    {
      // With the request's own If-Match, its 412 stands.
      isConflict: (error) => ifMatch === null && error instanceof AppError && error.code === 'precondition_failed',
      exhausted: () => {
        throw target.contended();
      },
      attempts: DETECT_ATTEMPTS,
    },
  );
}

/**
 * The fields of every document, one document after the other, each field given its document's id;
 * a refusal names the document it came from (`detail`, and `documentId`, `documentName` members).
 */
async function detectInEvery<Assignee>(documents: readonly DetectionDocument[], assignee: (who: string | undefined) => AssigneeLookup<Assignee>): Promise<DetectedFields<Assignee>> {
  const all: DetectedFields<Assignee> = { fields: [], textTags: 0, formFields: 0 };
  for (const document of documents) {
    try {
      const found = await detectFields({ document: await document.read(), assignee });
      all.fields.push(...found.fields.map((field) => ({ ...field, documentId: document.id })));
      all.textTags += found.textTags;
      all.formFields += found.formFields;
    } catch (error) {
      throw namingDocument(error, document);
    }
  }
  return all;
}
