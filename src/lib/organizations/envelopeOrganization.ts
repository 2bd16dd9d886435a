/**
 * The organisation an envelope belongs to (docs/api.md#what-members-share): the one recorded on it
 * when it was made, or, for an envelope made before organisations, its owner's. Webhook events, audit
 * events and the organisation's daily e-mail quota are that organisation's.
 */
import type { EnvelopeRecord } from '../envelopes/model.js';
import type { Services } from '../services.js';

/**
 * The organisation of the account `ownerId` (its address `ownerEmail`, as an envelope records it):
 * read, remembered, or made for an account made before organisations (docs/api.md#accounts-made-before-organizations).
 * @throws Error when the account is gone and never belonged to an organisation
 */
export async function organizationOfOwner(services: Pick<Services, 'organizations' | 'users'>, owner: { ownerId: string; ownerEmail: string | null; ownerName?: string | null }): Promise<string> {
  const organizationId = await services.organizations.organizationOf(owner.ownerId, async () => {
    const user = owner.ownerEmail === null ? null : await services.users.findByEmail(owner.ownerEmail);
    return user === null || user.userId !== owner.ownerId ? null : { userId: user.userId, email: user.email, name: owner.ownerName ?? null };
  });
  if (organizationId === null) throw new Error(`Account ${owner.ownerId} belongs to no organization and no longer exists`);
  return organizationId;
}

/** The envelope's organisation: recorded on it, else its owner's ({@link organizationOfOwner}). */
export async function envelopeOrganization(services: Pick<Services, 'organizations' | 'users'>, record: Pick<EnvelopeRecord, 'ownerId' | 'ownerEmail' | 'ownerName' | 'organizationId'>): Promise<string> {
  return record.organizationId ?? (await organizationOfOwner(services, record));
}
