/**
 * The recipient's view of an envelope (CONTRACT §11.4 `GET /api/signing`): what it is asked to do,
 * on which document, and whether it can act now.
 */
import { documentUrl, signedDocumentUrl } from '../envelopes/view.js';
import { hasActed, mustAct, type EnvelopeRecord, type EnvelopeStatus, type Field, type RecipientStatus, type Signer, type SignerRole, type SigningOrder } from '../envelopes/model.js';
import type { SasSigner } from '../storage/sas.js';
import { isTurn, waitingFor } from './routing.js';

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
  };
  recipient: { id: string; name: string; email: string; role: SignerRole; routingOrder: number; status: RecipientStatus; actedAt: string | null };
  /** This recipient's fields. */
  fields: Field[];
  /** Read-only SAS URL of the frozen document, 15 minutes. */
  documentUrl: string;
  /** Read-only SAS URL of the sealed PDF once completed, else `null`. */
  signedUrl: string | null;
  /** Whether `complete` (and for signers and approvers `decline`) would be accepted now. */
  canAct: boolean;
  /** Those whose turn comes first. */
  waitingFor: { name: string; role: SignerRole }[];
}

/** Whether a `sent` envelope's `expiresAt` has passed (the sweeper marks it `expired` on its next run). */
export function hasExpired(record: Pick<EnvelopeRecord, 'status' | 'expiresAt'>, now: Date): boolean {
  return record.status === 'sent' && record.expiresAt !== null && Date.parse(record.expiresAt) <= now.getTime();
}

/** Whether the recipient's action would be accepted now (CONTRACT §11.3, §11.4). */
export function canAct(record: EnvelopeRecord, recipient: Signer, now: Date): boolean {
  return record.status === 'sent' && !hasExpired(record, now) && mustAct(recipient) && !hasActed(recipient) && recipient.status !== 'waiting' && isTurn(record, recipient);
}

/** The view of `record` for `recipient`, with fresh read-only SAS URLs. */
export async function toRecipientView(record: EnvelopeRecord, recipient: Signer, sas: SasSigner, now: Date = new Date()): Promise<RecipientView> {
  const [document, signedUrl] = await Promise.all([
    documentUrl(sas, record),
    record.status === 'completed' ? signedDocumentUrl(sas, record) : Promise.resolve(null),
  ]);
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
    },
    recipient: {
      id: recipient.id,
      name: recipient.name,
      email: recipient.email,
      role: recipient.role,
      routingOrder: recipient.routingOrder,
      status: recipient.status,
      actedAt: recipient.actedAt,
    },
    fields: record.fields.filter((field) => field.recipientId === recipient.id),
    documentUrl: document,
    signedUrl,
    canAct: canAct(record, recipient, now),
    waitingFor: waitingFor(record, recipient),
  };
}
