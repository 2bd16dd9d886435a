/**
 * Envelope records built in memory, for the unit tests of the pure rules (`tests/unit/<domain>/`):
 * an owner, a fixed clock, the settings the rules read, and records, recipients and fields with
 * everything else at its default.
 */
import type { Config } from '../../src/lib/config.js';
import { newSigner, type Actor, type EnvelopeRecord, type EnvelopeStatus, type EventActor, type Field, type Signer } from '../../src/lib/envelopes/model.js';

export const OWNER: Actor = { userId: 'owner', email: 'owner@example.com', emailVerified: true, ip: '203.0.113.7', userAgent: 'jest', apiKeyId: null, organizationId: 'owner', role: 'owner' as const };
export const NOW = new Date('2026-11-22T10:15:30.123Z');
export const RULES_CONFIG: Pick<Config, 'jwt' | 'reminderDaySeconds' | 'envelopeTtlDays'> = {
  jwt: { secret: new TextEncoder().encode('x'.repeat(32)), issuer: 'i', audience: 'a', ttlSeconds: 3600 },
  reminderDaySeconds: 86_400,
  envelopeTtlDays: 30,
};
/** What a send records of the frozen document. */
export const FROZEN = { documentSha256: 'a'.repeat(64), uploadSha256: 'b'.repeat(64), pageCount: 3, removed: [] };

/** Recipient `n` (1 to 9): id `…00n`, e-mail `s<n>@example.com`, name `S<n>`. */
export function recipient(n: number, routingOrder = 1, role: Signer['role'] = 'signer'): Signer {
  return newSigner({ id: `0196f3a0-0000-7000-8000-00000000000${n}`, email: `s${n}@example.com`, name: `S${n}`, role, routingOrder });
}

/** The recipient as the actor of the events of its action. */
export function recipientActor(signer: Signer): EventActor {
  return { id: signer.id, email: signer.email, ip: null, userAgent: null, apiKeyId: null };
}

export function envelope(status: EnvelopeStatus, signers: Signer[], extra: Partial<EnvelopeRecord> = {}): EnvelopeRecord {
  return {
    id: '0196f3a0-0000-7000-8000-00000000abcd', ownerId: 'owner', ownerEmail: 'owner@example.com', status, documentName: 'a.pdf', blobName: 'x/a.pdf', signers,
    fields: [], signingOrder: 'parallel', expiresAt: null, remindEveryDays: null, documentSha256: null, pageCount: null,
    createdAt: NOW.toISOString(), updatedAt: NOW.toISOString(), sentAt: null, completedAt: null, closedAt: null, completionDueAt: null,
    hash: null, originalSha256: null, purgedAt: null, templateId: null, version: 3, auditSequence: 4, ...extra,
  };
}

/** A required signature field of `recipientId` on page 1 (id `…0f1` unless `extra` names another). */
export function field(recipientId: string, extra: Partial<Field> = {}): Field {
  return { id: '0196f3a0-0000-7000-8000-0000000000f1', recipientId, type: 'signature', page: 1, x: 0.1, y: 0.1, width: 0.2, height: 0.05, required: true, label: null, ...extra };
}
