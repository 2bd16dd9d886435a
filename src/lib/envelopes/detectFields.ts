/**
 * Detect Fields of an envelope (docs/api.md#fields-from-the-document): `POST /api/envelopes/{id}/fields/detect` replaces a
 * draft's fields with those its uploaded document places itself (text tags and form fields,
 * `textTags.ts`), recording the same audit event as a `fields` update (`envelope.fields_replaced`).
 */
import type { Services } from '../services.js';
import { detectAndReplaceFields, type DetectionResult } from './detectAndReplace.js';
import { readDocument } from './document.js';
import { documentsOf } from './documents.js';
import { assertChangeable, ifMatchSatisfied } from './lifecycle.js';
import { envelopeETag, type Actor, type EnvelopeRecord, type Signer } from './model.js';
import type { FieldInput } from './schemas.js';
import type { AssigneeLookup, DetectedField } from './textTags.js';
import { contended, preconditionFailed } from './mutate.js';
import { updateEnvelope } from './update.js';
import { problem } from '../problems.js';
import { readMembersEnvelope } from './access.js';

export interface DetectEnvelopeFieldsOptions {
  services: Services;
  envelopeId: string;
  actor: Actor;
  /** The request's `If-Match` header, or `null`. */
  ifMatch: string | null;
  log?: (message: string) => void;
}

/**
 * Reads the draft's uploaded document (docs/api.md#create-an-envelope-and-upload-its-document checks), finds its text tags and form fields, and
 * replaces the envelope's fields with them, in page order (`detectAndReplace.ts`). A tag's `r=` is the
 * recipient's 1-based position in `signers`; it must name a signer whose role is `signer`; without
 * `r`, and for form fields, the first such signer. A document with neither gives zero fields (not an error).
 * @throws AppError 404 (missing or another owner's), 409 `envelope-locked` (sent), `envelope-closed`
 *   (final), `document-not-uploaded`, `no-signer` (form fields but no signer), `envelope-contended`;
 *   412 `etag-mismatch`; 413/415/422 as the upload checks; 422 `text-tag-invalid`,
 *   `too-many-fields`, `document-damaged`, `document-encrypted`, `document-too-complex`
 */
export async function detectEnvelopeFields({ services, envelopeId, actor, ifMatch, log }: DetectEnvelopeFieldsOptions): Promise<DetectionResult<EnvelopeRecord>> {
  return detectAndReplaceFields<EnvelopeRecord, Signer>(
    {
      read: async () => {
        const record = (await readMembersEnvelope(services, actor, envelopeId, 'change')).record;
        if (!ifMatchSatisfied(ifMatch, envelopeETag(record))) throw preconditionFailed();
        assertChangeable(record);
        if (record.status !== 'draft') {
          throw problem('envelopeLocked', { detail: 'The envelope is sent: its fields can no longer change (what was sent is what gets signed). Void it and start again.' });
        }
        return record;
      },
      etag: envelopeETag,
      document: (record) => readDocument({ services, record }),
      documents: (record) => {
        const documents = documentsOf(record);
        return documents.length === 1 ? null : documents.map((document) => ({ ...document, read: async () => await readDocument({ services, record: document }) }));
      },
      assignee: (record, who) => signerAt(record.signers, who),
      replaceFields: (fields, version) =>
        updateEnvelope({ services, envelopeId, request: { fields: fields.map(toFieldInput) }, actor, ifMatch: version, ...(log === undefined ? {} : { log }) }),
      contended,
    },
    ifMatch,
  );
}

/**
 * The signer a tag's `r=` names (docs/api.md#fields-from-the-document): a 1-based position counting every entry of
 * `signers`, which must have the role `signer`; none given, the first signer whose role is `signer`.
 */
export function signerAt(signers: readonly Signer[], who: string | undefined): AssigneeLookup<Signer> {
  if (who === undefined) {
    const first = signers.find((signer) => signer.role === 'signer');
    return first === undefined ? { error: 'names no signer: the envelope has no signer with role signer' } : { assignee: first };
  }
  if (!/^[1-9]\d{0,2}$/.test(who)) return { error: 'must be a signer\'s 1-based position in signers (1, 2, ...)' };
  const signer = signers[Number(who) - 1];
  // `signers` lists every recipient, whatever its role: count recipients, not signers.
  if (signer === undefined) return { error: `names no signer: the envelope lists ${signers.length} recipient${signers.length === 1 ? '' : 's'}` };
  if (signer.role !== 'signer') return { error: `names ${signer.email}, whose role is ${signer.role}; only a signer with role signer fills fields` };
  return { assignee: signer };
}

/** A detected field as the fields update takes it. */
function toFieldInput(field: DetectedField<Signer>): FieldInput {
  const { assignee, options, ...rest } = field;
  return {
    ...rest,
    // The tag types of docs/api.md#field-types-and-their-values (`number`, `date`, `dropdown`) are accepted by the tag parser
    // whether or not the field model lists them yet; the model's list decides what is stored.
    type: rest.type as FieldInput['type'],
    recipientId: assignee.id,
    ...(options === undefined ? {} : { options }),
  };
}
