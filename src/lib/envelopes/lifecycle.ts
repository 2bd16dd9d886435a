/**
 * The envelope lifecycle (CONTRACT §5) as pure functions: what an update changes, which events it
 * records, and which transitions are refused.
 */
import { AppError } from '../errors.js';
import { uuidv7 } from '../ids.js';
import type { Actor, AuditEvent, EnvelopeRecord, EnvelopeStatus, Signer } from './model.js';
import type { SignerInput, UpdateEnvelopeRequest } from './schemas.js';

/** Status changes a `PUT`/`PATCH` may make, by current status (CONTRACT §5). `completed` is reached only by complete. */
const updateTransitions: Record<EnvelopeStatus, EnvelopeStatus[]> = {
  draft: ['sent', 'voided'],
  sent: ['voided'],
  completed: [],
  voided: [],
};

/** Statuses from which `POST .../complete` seals the envelope. */
export const COMPLETABLE: readonly EnvelopeStatus[] = ['draft', 'sent'];

export interface PlannedUpdate {
  next: EnvelopeRecord;
  events: AuditEvent[];
  /** The update moves the envelope to `sent`, so its document must be checked first. */
  sends: boolean;
}

/**
 * What `request` does to `current`: `null` when it changes nothing (no write, no event).
 * @throws AppError 409 for an envelope that is completed or voided, a transition the lifecycle does not
 *   allow (the allowed ones named in `detail`), or sending without a signer of role `signer`
 */
export function planUpdate(current: EnvelopeRecord, request: UpdateEnvelopeRequest, actor: Actor, now: Date): PlannedUpdate | null {
  assertChangeable(current);
  const at = now.toISOString();
  const events: Omit<AuditEvent, 'sequence'>[] = [];
  const base = { at, actorId: actor.userId, ip: actor.ip, userAgent: actor.userAgent };
  let signers = current.signers;
  let status = current.status;

  if (request.signers !== undefined) {
    const replaced = replaceSigners(current.signers, request.signers);
    if (JSON.stringify(replaced) !== JSON.stringify(current.signers)) {
      const oldIds = new Set(current.signers.map((signer) => signer.id));
      const newIds = new Set(replaced.map((signer) => signer.id));
      events.push({
        ...base,
        type: 'envelope.signers_replaced',
        details: {
          added: replaced.filter((signer) => !oldIds.has(signer.id)).map(({ id, email }) => ({ id, email })),
          removed: current.signers.filter((signer) => !newIds.has(signer.id)).map(({ id, email }) => ({ id, email })),
        },
      });
      signers = replaced;
    }
  }

  if (request.status !== undefined && request.status !== current.status) {
    const allowed = updateTransitions[current.status];
    if (!allowed.includes(request.status)) {
      const hint = request.status === 'completed' ? ' Use POST /api/envelopes/{id}/complete to complete it.' : '';
      throw new AppError(
        'conflict',
        `The envelope is ${current.status}; its status can change to ${allowed.join(' or ')} only, not ${request.status}.${hint}`,
        { type: 'invalid-transition' },
      );
    }
    if (request.status === 'sent') assertHasSigner(signers);
    events.push({ ...base, type: request.status === 'sent' ? 'envelope.sent' : 'envelope.voided', details: { from: current.status, to: request.status } });
    status = request.status;
  }

  if (events.length === 0) return null;
  const numbered = events.map((event, index) => ({ ...event, sequence: current.auditSequence + index + 1 }));
  return {
    next: { ...current, signers, status, updatedAt: at, version: current.version + 1, auditSequence: current.auditSequence + events.length },
    events: numbered,
    sends: status === 'sent' && current.status !== 'sent',
  };
}

/**
 * @throws AppError 409 naming the current status when the envelope is completed or voided
 */
export function assertChangeable(record: EnvelopeRecord): void {
  if (record.status === 'completed' || record.status === 'voided') {
    throw new AppError('conflict', `The envelope is ${record.status}; it can no longer be changed.`, { type: 'envelope-closed' });
  }
}

/**
 * @throws AppError 409 when no signer has the role `signer` (CONTRACT §5: needed to send or complete)
 */
export function assertHasSigner(signers: Signer[]): void {
  if (!signers.some((signer) => signer.role === 'signer')) {
    throw new AppError('conflict', 'The envelope needs at least one signer with role "signer" first.', { type: 'no-signer' });
  }
}

/**
 * The new signer list: an entry whose `id` (or `recipientId`) names a current signer keeps that
 * identity; any other entry gets a new UUIDv7 (CONTRACT §3).
 */
export function replaceSigners(current: Signer[], inputs: SignerInput[]): Signer[] {
  const existing = new Set(current.map((signer) => signer.id));
  return inputs.map((input) => {
    const requested = input.id ?? input.recipientId;
    return {
      id: requested !== undefined && existing.has(requested) ? requested : uuidv7(),
      email: input.email,
      name: input.name,
      role: input.role,
    };
  });
}

/**
 * Whether an `If-Match` header (RFC 9110 §13.1.1) is satisfied by the envelope's current ETag.
 * Absent: satisfied. `*`: satisfied (the envelope exists). Weak tags never match (strong comparison).
 */
export function ifMatchSatisfied(header: string | null, currentETag: string): boolean {
  if (header === null) return true;
  const value = header.trim();
  if (value === '*') return true;
  return value.split(',').some((tag) => tag.trim() === currentETag);
}
