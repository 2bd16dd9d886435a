/**
 * Whose envelope a member's request is about (docs/api.md#what-members-share): a `sender` reaches its
 * own envelopes only (another member's is 403 `forbidden-role`); `admin` and `owner` read and change
 * every envelope of their organisation, a `viewer` reads them. Another organisation's envelope ids
 * stay 404, exactly as unknown ones. The envelope stays in its owner's partition; the index of the
 * organisation's envelopes (`storage/organizationIndex.ts`) says which partition that is.
 */
import { isUuid } from '../ids.js';
import type { Role } from '../organizations/roles.js';
import { problem } from '../problems.js';
import type { Services } from '../services.js';
import type { StoredEnvelope } from '../storage/envelopeRepository.js';
import { envelopeNotFound } from './get.js';
import type { Actor } from './model.js';

/** What a request does with an envelope: `read` it (GET) or `change` it (anything else). */
export type EnvelopeAccess = 'read' | 'change';

/** Roles that reach the organisation's envelopes, not only their own, per access (docs/api.md#what-members-share). */
const ORGANIZATION_WIDE: Record<EnvelopeAccess, readonly Role[]> = {
  read: ['owner', 'admin', 'viewer'],
  change: ['owner', 'admin'],
};

/** Whether `role` reaches every envelope of its organisation for `access` (docs/api.md#what-members-share). */
export function reachesOrganization(role: Role, access: EnvelopeAccess): boolean {
  return ORGANIZATION_WIDE[access].includes(role);
}

/**
 * The partition (the owner's userId) in which to look for `envelopeId` on `actor`'s behalf: the owner
 * of the organisation's envelope with that id (the actor's own partition for an id of another
 * organisation, or unknown, where it is not found: 404). Costs one point read on the index the first
 * time per instance, none after (an owner remembered after the envelope moved still leads to it,
 * docs/api.md#removing-a-member); a refusal costs one more index read and one envelope read.
 * @throws AppError 403 `forbidden-role` when the envelope is another member's and the actor's role
 *   does not reach it for `access` (docs/api.md#what-members-share)
 */
export async function envelopeOwnerFor(services: Services, actor: Actor, envelopeId: string, access: EnvelopeAccess): Promise<string> {
  if (!isUuid(envelopeId)) return actor.userId;
  const owner = await indexedOwner(services, actor.organizationId, envelopeId);
  if (owner === null || owner === actor.userId) return actor.userId;
  if (reachesOrganization(actor.role, access)) return owner;
  // Remembered from before the envelope moved (perhaps to the actor): ask the index again.
  const current = await services.organizationIndex.currentOwner(actor.organizationId, envelopeId);
  if (current === null || current === actor.userId) return actor.userId;
  // A row may name an envelope never written or since deleted: that one is unknown (404), not refused.
  if ((await services.envelopes.read(current, envelopeId)) === null) return actor.userId;
  throw problem('forbiddenRole', { detail: envelopeRefusal(actor.role, access) });
}

/**
 * The envelope `envelopeId` as `actor` reaches it for `access`, read in the partition
 * {@link envelopeOwnerFor} names; the actor's own partition (the usual case) is read while the index
 * is asked whose it is.
 * @returns that partition, and the envelope there (`null`: none, or an id that is not a UUID)
 * @throws as {@link envelopeOwnerFor}
 */
export async function findMembersEnvelope(services: Services, actor: Actor, envelopeId: string, access: EnvelopeAccess): Promise<{ ownerId: string; stored: StoredEnvelope | null }> {
  const [ownerId, own] = await Promise.all([envelopeOwnerFor(services, actor, envelopeId, access), isUuid(envelopeId) ? services.envelopes.read(actor.userId, envelopeId) : null]);
  if (ownerId === actor.userId) return { ownerId, stored: own };
  return { ownerId, stored: await services.envelopes.read(ownerId, envelopeId) };
}

/**
 * {@link findMembersEnvelope}, answering 404 when there is none.
 * @throws AppError 404 `envelope-not-found` (missing, malformed, another organisation's),
 *   403 `forbidden-role` (docs/api.md#what-members-share)
 */
export async function readMembersEnvelope(services: Services, actor: Actor, envelopeId: string, access: EnvelopeAccess): Promise<StoredEnvelope> {
  const { stored } = await findMembersEnvelope(services, actor, envelopeId, access);
  if (stored === null) throw envelopeNotFound();
  return stored;
}

/** The detail of the 403 `forbidden-role` for another member's envelope, naming the roles that reach it (docs/api.md#what-members-share). */
function envelopeRefusal(role: Role, access: EnvelopeAccess): string {
  const roles = access === 'read' ? 'an admin, the owner or a viewer reads it' : 'an admin or the owner changes it';
  return `This envelope is another member's: only they, ${roles}; you are a ${role} of your organization.`;
}

/** The owner the organisation's index names for `envelopeId`, indexing the organisation's older envelopes (once) on a miss; `null` when none. */
async function indexedOwner(services: Services, organizationId: string, envelopeId: string): Promise<string | null> {
  const index = services.organizationIndex;
  const owner = await index.owner(organizationId, envelopeId);
  if (owner !== null) return owner;
  // Not indexed: perhaps made before the index existed. Index those (once), then look again.
  await ensureOrganizationIndexed(services, organizationId);
  return await index.owner(organizationId, envelopeId);
}

/**
 * Indexes the envelopes the organisation's members made before the index existed, once per
 * organisation (idempotent; `storage/organizationIndex.ts` `ensureIndexed`).
 */
export async function ensureOrganizationIndexed(services: Services, organizationId: string): Promise<void> {
  await services.organizationIndex.ensureIndexed(
    organizationId,
    async () => (await services.organizations.members(organizationId)).map((member) => member.userId),
    (ownerId) => envelopeIdsOf(services, ownerId),
  );
}

/** Every envelope id of one owner, newest first, a page of 1,000 at a time. */
async function* envelopeIdsOf(services: Services, ownerId: string): AsyncIterable<string> {
  let cursor: string | undefined;
  do {
    const page = await services.envelopes.list(ownerId, { limit: 1000, ...(cursor === undefined ? {} : { cursor }) });
    for (const record of page.records) yield record.id;
    cursor = page.nextCursor;
  } while (cursor !== undefined);
}
