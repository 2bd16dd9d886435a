/**
 * The envelope as the domain sees it (spec §2, CONTRACT §3) and as responses show it.
 */

export const ENVELOPE_STATUSES = ['draft', 'sent', 'completed', 'voided'] as const;
export type EnvelopeStatus = (typeof ENVELOPE_STATUSES)[number];

export const SIGNER_ROLES = ['signer', 'approver', 'viewer', 'cc'] as const;
export type SignerRole = (typeof SIGNER_ROLES)[number];

/** The newest e-mail to a recipient (CONTRACT §11.1 `lastEmail`). */
export interface LastEmail {
  type: 'invitation' | 'reminder' | 'completed' | 'voided';
  /** `queued` when written to the outbox, `sent` once the mail server accepted it, `failed` after the last retry. */
  status: 'queued' | 'sent' | 'failed';
  /** ISO 8601 UTC with milliseconds: when it reached this status. */
  at: string;
  /** The outbox batch that carries it (internal: never shown). */
  batchId: string;
}

/** A recipient of the envelope. `recipientId` always equals `id` in responses (CONTRACT §3). */
export interface Signer {
  id: string;
  email: string;
  name: string;
  role: SignerRole;
  lastEmail?: LastEmail | null;
}

/** Everything stored about an envelope. */
export interface EnvelopeRecord {
  id: string;
  ownerId: string;
  status: EnvelopeStatus;
  documentName: string;
  /** `<envelopeId>/<documentName>` in container `documents` (and, once sealed, in `sealed`). */
  blobName: string;
  signers: Signer[];
  createdAt: string;
  updatedAt: string;
  completedAt: string | null;
  /** Lower-case hex SHA-256 of the sealed PDF. */
  hash: string | null;
  /** Lower-case hex SHA-256 of the original document as sealed. */
  originalSha256: string | null;
  /** Counts every change, from 1; the ETag is derived from it. */
  version: number;
  /** Sequence number of the last audit event (CONTRACT §10). */
  auditSequence: number;
}

/** The envelope in every response (CONTRACT §3 table). */
export interface EnvelopeView {
  id: string;
  status: EnvelopeStatus;
  ownerId: string;
  documentName: string;
  documentUrl: string;
  signers: SignerView[];
  createdAt: string;
  updatedAt: string;
  completedAt: string | null;
  signedUrl: string | null;
  hash: string | null;
}

/** Audit event types (CONTRACT §10): no others. */
export type AuditEventType =
  | 'envelope.created'
  | 'envelope.signers_replaced'
  | 'envelope.sent'
  | 'envelope.voided'
  | 'envelope.completed';

/** One entry of an envelope's append-only audit trail (CONTRACT §10). */
export interface AuditEvent {
  /** 1, 2, 3, ... per envelope, without gaps. */
  sequence: number;
  type: AuditEventType;
  at: string;
  actorId: string | null;
  ip: string | null;
  userAgent: string | null;
  details: Record<string, unknown>;
}

/** Who made a change, as the request told (CONTRACT §10). */
export interface Actor {
  userId: string;
  email: string;
  ip: string | null;
  userAgent: string | null;
}

/** The strong ETag of an envelope version (RFC 9110 §8.8.3). */
export function envelopeETag(record: Pick<EnvelopeRecord, 'version'>): string {
  return `"${record.version}"`;
}

/** A signer as responses show it. */
export type SignerView = Pick<Signer, 'id' | 'email' | 'name' | 'role'> & { recipientId: string };

/** Shows a signer as responses do, with `recipientId` equal to `id`. */
export function viewSigner(signer: Signer): SignerView {
  return { id: signer.id, recipientId: signer.id, email: signer.email, name: signer.name, role: signer.role };
}
