/**
 * Whose envelope a member's request is about (docs/api.md#what-members-share): a `sender` reaches its
 * own envelopes only; `admin` and `owner` read and change every envelope of their organisation, a
 * `viewer` reads them. The envelope stays in its owner's partition; the index of the organisation's
 * envelopes (`storage/organizationIndex.ts`) says which partition that is.
 */
import { isUuid } from '../ids.js';
import type { Role } from '../organizations/roles.js';
import type { Services } from '../services.js';
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
 * of the organisation's envelope with that id when the actor's role reaches it, else the actor's own.
 * Costs one point read on the index the first time per instance, none after (an owner remembered
 * after the envelope moved still leads to it, docs/api.md#removing-a-member). An id of another
 * organisation, or unknown, gives the actor's own partition, where it is not found (404).
 */
export async function envelopeOwnerFor(services: Services, actor: Actor, envelopeId: string, access: EnvelopeAccess): Promise<string> {
  if (!reachesOrganization(actor.role, access) || !isUuid(envelopeId)) return actor.userId;
  const index = services.organizationIndex;
  const owner = await index.owner(actor.organizationId, envelopeId);
  if (owner !== null) return owner;
  // Not indexed: perhaps made before the index existed. Index those (once), then look again.
  await ensureOrganizationIndexed(services, actor.organizationId);
  return (await index.owner(actor.organizationId, envelopeId)) ?? actor.userId;
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
