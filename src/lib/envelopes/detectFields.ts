/**
 * Detect Fields of an envelope (CONTRACT §15.2): `POST /api/envelopes/{id}/fields/detect` replaces a
 * draft's fields with those its uploaded document places itself (text tags and form fields,
 * `textTags.ts`), recording the same audit event as a `fields` update (`envelope.fields_replaced`).
 */
import { AppError } from '../errors.js';
import type { Services } from '../services.js';
import { readDocument } from './document.js';
import { readOwnedEnvelope } from './get.js';
import { assertChangeable, ifMatchSatisfied } from './lifecycle.js';
import { envelopeETag, type Actor, type EnvelopeRecord, type Signer } from './model.js';
import type { FieldInput } from './schemas.js';
import { detectFields, type AssigneeLookup, type DetectedField } from './textTags.js';
import { contended, preconditionFailed, updateEnvelope } from './update.js';

/** Detections tried again when the envelope changed while its document was read. */
const DETECT_ATTEMPTS = 3;

export interface DetectEnvelopeFieldsOptions {
  services: Services;
  envelopeId: string;
  actor: Actor;
  /** The request's `If-Match` header, or `null`. */
  ifMatch: string | null;
  log?: (message: string) => void;
}

export interface DetectEnvelopeFieldsResult {
  /** The envelope as stored afterwards; its `fields` are the detected ones. */
  record: EnvelopeRecord;
  /** Text tags found. */
  textTags: number;
  /** Form fields (widgets) found. */
  formFields: number;
}

/**
 * Reads the draft's uploaded document (CONTRACT §4 checks), finds its text tags and form fields, and
 * replaces the envelope's fields with them, in page order. A tag's `r=` is the recipient's 1-based
 * position in `signers`; it must name a signer whose role is `signer`; without `r`, and for form
 * fields, the first such signer. A document with neither gives zero fields (not an error).
 * @throws AppError 404 (missing or another owner's), 409 `envelope-locked` (sent), `envelope-closed`
 *   (final), `document-not-uploaded`, `no-signer` (form fields but no signer), `envelope-contended`;
 *   412 `etag-mismatch`; 413/415/422 as the upload checks; 422 `text-tag-invalid`,
 *   `too-many-fields`, `document-damaged`, `document-encrypted`, `document-too-complex`
 */
export async function detectEnvelopeFields({ services, envelopeId, actor, ifMatch, log }: DetectEnvelopeFieldsOptions): Promise<DetectEnvelopeFieldsResult> {
  for (let attempt = 0; attempt < DETECT_ATTEMPTS; attempt++) {
    const stored = await readOwnedEnvelope(services.envelopes, actor.userId, envelopeId);
    const record = stored.record;
    if (!ifMatchSatisfied(ifMatch, envelopeETag(record))) throw preconditionFailed();
    assertChangeable(record);
    if (record.status !== 'draft') {
      throw new AppError('conflict', 'The envelope is sent: its fields can no longer change (what was sent is what gets signed). Void it and start again.', { type: 'envelope-locked' });
    }
    const document = await readDocument({ services, record });
    const found = await detectFields({ document, assignee: (who) => signerAt(record.signers, who) });
    try {
      const updated = await updateEnvelope({
        services,
        envelopeId,
        request: { fields: found.fields.map(toFieldInput) },
        actor,
        // The fields name the signers as read: the update applies only to that very envelope.
        ifMatch: ifMatch ?? envelopeETag(record),
        ...(log === undefined ? {} : { log }),
      });
      return { record: updated, textTags: found.textTags, formFields: found.formFields };
    } catch (error) {
      if (ifMatch !== null || !(error instanceof AppError) || error.code !== 'precondition_failed') throw error;
    }
  }
  throw contended();
}

/**
 * The signer a tag's `r=` names (CONTRACT §15.2): a 1-based position counting every entry of
 * `signers`, which must have the role `signer`; none given, the first signer whose role is `signer`.
 */
export function signerAt(signers: readonly Signer[], who: string | undefined): AssigneeLookup<Signer> {
  if (who === undefined) {
    const first = signers.find((signer) => signer.role === 'signer');
    return first === undefined ? { error: 'names no signer: the envelope has no signer with role signer' } : { assignee: first };
  }
  if (!/^[1-9]\d{0,2}$/.test(who)) return { error: 'must be a signer\'s 1-based position in signers (1, 2, ...)' };
  const signer = signers[Number(who) - 1];
  if (signer === undefined) return { error: `names no signer: the envelope has ${signers.length} signer${signers.length === 1 ? '' : 's'}` };
  if (signer.role !== 'signer') return { error: `names ${signer.email}, whose role is ${signer.role}; only a signer with role signer fills fields` };
  return { assignee: signer };
}

/** A detected field as the fields update takes it. */
function toFieldInput(field: DetectedField<Signer>): FieldInput {
  const { assignee, options, ...rest } = field;
  return {
    ...rest,
    // The tag types of CONTRACT §15.3 (`number`, `date`, `dropdown`) are accepted by the tag parser
    // whether or not the field model lists them yet; the model's list decides what is stored.
    type: rest.type as FieldInput['type'],
    recipientId: assignee.id,
    ...(options === undefined ? {} : { options }),
  };
}
