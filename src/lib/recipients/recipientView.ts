/**
 * The recipient's view of an envelope (docs/api.md#the-recipients-api `GET /api/signing`): what it is asked to do,
 * on which document, and whether it can act now.
 */
import type { Locale } from '../i18n/locales.js';
import { givenValues } from '../envelopes/fieldValues.js';
import { documentUrl, signedDocumentUrl, toDocumentViews } from '../envelopes/view.js';
import { fieldDocumentId, fieldsWithDocuments, firstDocument } from '../envelopes/documents.js';
import {
  deliveryOf,
  isEmbedded,
  recipientLocale,
  hasActed,
  mustAct,
  isAttachmentValue,
  type EnvelopeRecord,
  type EnvelopeStatus,
  type Delivery,
  type EnvelopeDocumentView,
  type Field,
  type FIELD_TYPES,
  type RecipientAction,
  type RecipientStatus,
  type Signer,
  type SignerRole,
  type SigningOrder,
} from '../envelopes/model.js';
import type { SasSigner } from '../storage/sas.js';
import { isTurn, waitingFor } from '../envelopes/routing.js';
import type { SignatureInput } from './schemas.js';

export interface RecipientView {
  envelope: {
    id: string;
    documentName: string;
    status: EnvelopeStatus;
    ownerEmail: string;
    /** The owner's display name, or `null` when the owner gave none. */
    ownerName: string | null;
    signingOrder: SigningOrder;
    expiresAt: string | null;
    pageCount: number | null;
    documentSha256: string | null;
    /** Whether signers and approvers may hand their part to someone else (docs/api.md#reassignment). */
    allowReassign: boolean;
  };
  /**
   * `delivery` (docs/api.md#embedded-signing) tells the page whether e-mails reach the recipient; `notifyOnCompletion`
   * (embedded recipients only) whether the completed e-mail does.
   */
  recipient: {
    id: string;
    name: string;
    email: string;
    role: SignerRole;
    routingOrder: number;
    status: RecipientStatus;
    actedAt: string | null;
    delivery: Delivery[];
    notifyOnCompletion?: boolean;
    /** The language of its page and e-mails: its own `locale`, else the envelope's (docs/languages.md). */
    locale: Locale;
  };
  /** This recipient's fields, each naming its document (`documentId`). */
  fields: Field[];
  /** Read-only SAS URL of the frozen document (the first), 15 minutes. */
  documentUrl: string;
  /** Every document in order, each with a read-only SAS URL of its frozen copy (docs/api.md#several-documents). */
  documents: EnvelopeDocumentView[];
  /** Read-only SAS URL of the sealed PDF once completed, else `null`. */
  signedUrl: string | null;
  /** Whether `complete` (and for signers and approvers `decline`) would be accepted now. */
  canAct: boolean;
  /** Those whose turn comes first. */
  waitingFor: { name: string; role: SignerRole }[];
  /**
   * The values other recipients already gave, each in its field's place, exactly as the seal will
   * draw them (signatures as drawn or typed, text, dates, names, e-mail addresses, ticked boxes);
   * shown read-only. `[]` until another signer has signed.
   */
  filled: FilledField[];
  /** Recipients with an access code or e-mail codes (docs/api.md#signer-authentication): verified, and attempts left; absent for the others. */
  authentication?: { method: 'accessCode' | 'emailOtp' | 'sms'; verified: true; attemptsLeft: number };
}

/** A field another recipient filled in, with its value (docs/api.md#fields value shapes). */
export interface FilledField {
  fieldId: string;
  /** The document it is on (docs/api.md#several-documents). */
  documentId: string;
  type: (typeof FIELD_TYPES)[number];
  page: number;
  /** Fractions 0 to 1 of the displayed page, origin top-left (as {@link Field}). */
  x: number;
  y: number;
  width: number;
  height: number;
  label: string | null;
  /** Who filled it in. */
  recipient: { id: string; name: string };
  /**
   * As the recipient gave it (a signature's points as pairs), or as the service fills it in; an
   * `attachment` or `image` field's file by its name, type and size only (docs/api.md#files-from-signers).
   */
  value: SignatureInput | string | boolean | SharedAttachment;
}

/** An earlier signer's file as later recipients see it (docs/api.md#files-from-signers): no URL, no content. */
export interface SharedAttachment {
  attachmentId: string;
  name: string;
  contentType: string;
  size: number;
}

/** Whether a `sent` envelope's `expiresAt` has passed (the sweeper marks it `expired` on its next run). */
export function hasExpired(record: Pick<EnvelopeRecord, 'status' | 'expiresAt'>, now: Date): boolean {
  return record.status === 'sent' && record.expiresAt !== null && Date.parse(record.expiresAt) <= now.getTime();
}

/** Whether the recipient's action would be accepted now (docs/api.md#sending-and-signing-order, docs/api.md#the-recipients-api). */
export function canAct(record: EnvelopeRecord, recipient: Signer, now: Date): boolean {
  return record.status === 'sent' && !hasExpired(record, now) && mustAct(recipient) && !hasActed(recipient) && recipient.status !== 'waiting' && isTurn(record, recipient);
}

/** Whether another signer with fields has signed: only then do other recipients' values exist to show. */
function othersFilledIn(record: EnvelopeRecord, recipient: Signer): boolean {
  const signed = new Set(record.signers.filter((signer) => signer.id !== recipient.id && signer.status === 'signed').map((signer) => signer.id));
  return signed.size > 0 && record.fields.some((field) => signed.has(field.recipientId));
}

/**
 * The view of `record` for `recipient`, with fresh read-only SAS URLs.
 * @param readActions reads the envelope's recorded actions; called only when another signer with
 *   fields has signed (one partition query), so a first signer's view costs no extra read
 */
export async function toRecipientView(
  record: EnvelopeRecord,
  recipient: Signer,
  sas: SasSigner,
  now: Date = new Date(),
  readActions: () => Promise<RecipientAction[]> = async () => [],
): Promise<RecipientView> {
  const [document, documents, signedUrl, actions] = await Promise.all([
    documentUrl(sas, record),
    toDocumentViews(record, sas),
    record.status === 'completed' ? signedDocumentUrl(sas, record) : Promise.resolve(null),
    othersFilledIn(record, recipient) ? readActions() : Promise.resolve([]),
  ]);
  const others = new Map(actions.filter((action) => action.recipientId !== recipient.id).map((action) => [action.recipientId, action]));
  const first = firstDocument(record);
  return {
    envelope: {
      id: record.id,
      documentName: record.documentName,
      status: record.status,
      ownerEmail: record.ownerEmail ?? '',
      ownerName: record.ownerName ?? null,
      signingOrder: record.signingOrder,
      expiresAt: record.expiresAt,
      pageCount: record.pageCount,
      documentSha256: record.documentSha256,
      allowReassign: record.allowReassign === true,
    },
    recipient: {
      id: recipient.id,
      name: recipient.name,
      email: recipient.email,
      role: recipient.role,
      routingOrder: recipient.routingOrder,
      status: recipient.status,
      actedAt: recipient.actedAt,
      delivery: deliveryOf(recipient),
      ...(isEmbedded(recipient) ? { notifyOnCompletion: recipient.notifyOnCompletion === true } : {}),
      locale: recipientLocale(record, recipient),
    },
    fields: fieldsWithDocuments(record).filter((field) => field.recipientId === recipient.id),
    documentUrl: document,
    documents,
    signedUrl,
    canAct: canAct(record, recipient, now),
    waitingFor: waitingFor(record, recipient),
    filled: givenValues(record, others).filter(({ field }) => field.recipientId !== recipient.id).map(({ field, signer, value }) => ({
      fieldId: field.id,
      documentId: fieldDocumentId(field, first),
      type: field.type,
      page: field.page,
      x: field.x,
      y: field.y,
      width: field.width,
      height: field.height,
      label: field.label,
      recipient: { id: signer.id, name: signer.name },
      value: isAttachmentValue(value) ? { attachmentId: value.attachmentId, name: value.name, contentType: value.contentType, size: value.size } : value,
    })),
    ...(recipient.authentication === undefined ? {} : { authentication: { method: recipient.authentication.method, verified: true as const, attemptsLeft: recipient.authentication.attemptsLeft } }),
  };
}
