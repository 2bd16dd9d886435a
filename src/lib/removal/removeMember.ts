/**
 * Removing a member from its organisation (docs/api.md#removing-a-member):
 * `DELETE /api/organization/members/{userId}` `{transferTo}`. The removed account's envelopes (every
 * status) and templates move to `transferTo`, its API keys are deleted, its credentials are refused
 * everywhere within a minute, and the account is deleted (its address can register again).
 *
 * A removal is many writes in many partitions, so it is a resumable job rather than a transaction:
 *
 * 1. a due entry (kind `removal`, due {@link REMOVAL_SETTLE_MS} after the start) is written, then the
 *    removal marker on the member's row (`transferTo`, start, who removed it), conditional on the row
 *    as read. From the marker on, the guard refuses the account's access tokens and API keys (at once
 *    on this instance, within `MEMBERSHIP_CACHE_MS` on the others) and the members' list leaves it out;
 * 2. each envelope moves, one at a time, each move idempotent and crash-safe
 *    (`envelopes/ownerChange.ts`); then the templates (`TemplateRepository.moveAll`);
 * 3. the organisation's webhooks take in any the account made before organisations (they would be
 *    forgotten with the member otherwise); its API keys are deleted, then its account;
 * 4. once {@link REMOVAL_SETTLE_MS} have passed since the start (when no instance can still accept the
 *    account's credentials and so no envelope of it can appear any more), a last pass of 2 and 3, and
 *    the member is retired (`OrganizationRepository.retireMember`) and the due entry removed.
 *
 * A process that dies anywhere leaves the marker and the due entry: a repeated DELETE runs the job
 * again at once, the sweeper at the due time ({@link finishDueRemovals}), and every step done before
 * is found done.
 */
import { forEachConcurrently } from '../concurrency.js';
import type { Actor, EventActor } from '../envelopes/model.js';
import { moveEnvelope, type EnvelopeOwner } from '../envelopes/ownerChange.js';
import { isUuid } from '../ids.js';
import { organizationWebhookPartition } from '../notifications/webhooks/organizationWebhooks.js';
import { problem } from '../problems.js';
import type { Services } from '../services.js';
import type { DueEntry, DueKind } from '../storage/dueIndex.js';
import { MEMBERSHIP_CACHE_MS, type MemberRecord, type MemberRemoval } from '../storage/organizationRepository.js';
import type { RemoveMemberRequest } from '../organizations/schemas.js';
import { API_KEY_CACHE_MS } from '../storage/apiKeyRepository.js';

/** The due-index kind of a removal's last pass (`storage/dueIndex.ts`). */
export const REMOVAL_DUE_KIND = 'removal' satisfies DueKind;

/**
 * Milliseconds after a removal began when its last pass runs: twice the longest any instance answers
 * an account's membership (`MEMBERSHIP_CACHE_MS`) or API key (`API_KEY_CACHE_MS`) from memory, so
 * that no instance still accepts the account's credentials, and no envelope of it can still appear.
 */
export const REMOVAL_SETTLE_MS = 2 * Math.max(MEMBERSHIP_CACHE_MS, API_KEY_CACHE_MS);

/** Envelopes moved at once. */
const MOVES_IN_FLIGHT = 4;
/** Envelopes read per page of the removed member's list. */
const PAGE = 100;
/** Times the marker is written again when a concurrent change of the member's row came first. */
const CONTENTION_RETRIES = 10;

export interface RemoveMemberOptions {
  services: Services;
  caller: Actor;
  userId: string;
  request: RemoveMemberRequest;
  now?: () => Date;
}

/**
 * `DELETE /api/organization/members/{userId}` `{transferTo}` (admin or owner, by its route's roles;
 * docs/api.md#removing-a-member). A member whose removal has begun is removed to the member named
 * then (a repeated DELETE finishes it, whatever its `transferTo`).
 * @throws AppError 404 `member-not-found` (also another organisation's member); 409 `owner-protected`;
 *   409 `self-removal`; 403 `forbidden-role` (an admin removing an admin); 400 `validation-failed`
 *   naming `transferTo` (the member itself, a non-member, a member being removed, or a viewer);
 *   409 `organization-contended`
 */
export async function removeMember({ services, caller, userId, request, now = () => new Date() }: RemoveMemberOptions): Promise<void> {
  const organizationId = caller.organizationId;
  for (let round = 0; round < CONTENTION_RETRIES; round++) {
    const member = isUuid(userId) ? await services.organizations.member(organizationId, userId) : null;
    if (member === null) throw problem('memberNotFound');
    if (member.removal !== null) {
      await runRemoval(services, organizationId, member, now);
      return;
    }
    if (member.role === 'owner') throw problem('ownerProtected');
    if (member.userId === caller.userId) throw problem('selfRemoval');
    if (caller.role !== 'owner' && member.role === 'admin') throw problem('forbiddenRole', { detail: 'Only the owner removes an admin; you are an admin.' });
    await assertTransferTarget(services, organizationId, userId, request.transferTo);
    const startedAt = now();
    const removal: MemberRemoval = { transferTo: request.transferTo, startedAt: startedAt.toISOString(), by: { userId: caller.userId, email: caller.email } };
    // The due entry first: a marker never exists without what resumes it.
    await services.dueIndex.put(dueEntryOf(organizationId, member.userId, removal));
    if (await services.organizations.updateMembers(organizationId, [{ ...member, removal }])) {
      await runRemoval(services, organizationId, { ...member, removal }, now, { id: caller.userId, email: caller.email, ip: caller.ip, userAgent: caller.userAgent, apiKeyId: caller.apiKeyId, member: true });
      return;
    }
  }
  throw problem('organizationContended');
}

/**
 * Refuses a `transferTo` that cannot receive the removed member's envelopes: the member itself, anyone
 * not a member of the organisation (or being removed), or a viewer.
 * @throws AppError 400 `validation-failed` naming `transferTo`
 */
async function assertTransferTarget(services: Services, organizationId: string, userId: string, transferTo: string): Promise<void> {
  const refuse = (message: string) => problem('validationFailed', { detail: `The request body is invalid: transferTo ${message}.`, errors: [{ path: 'transferTo', message }] });
  if (transferTo === userId) throw refuse('must be another member than the one removed');
  const target = isUuid(transferTo) ? await services.organizations.member(organizationId, transferTo) : null;
  if (target === null || target.removal !== null) throw refuse('is not a member of your organization');
  if (target.role === 'viewer') throw refuse('is a viewer, who cannot own envelopes; choose a sender, an admin or the owner');
}

function dueEntryOf(organizationId: string, userId: string, removal: MemberRemoval): DueEntry {
  return { kind: REMOVAL_DUE_KIND, dueAt: new Date(Date.parse(removal.startedAt) + REMOVAL_SETTLE_MS).toISOString(), ownerId: userId, id: organizationId };
}

/**
 * Runs (or resumes) the removal job of `member`, which carries its removal marker (see the module
 * comment); every step is idempotent. The member is retired only once {@link REMOVAL_SETTLE_MS} have
 * passed since the start.
 * @param actor who the `envelope.owner_changed` events name; default: the admin or owner the marker names
 * @returns whether the removal is finished (the member retired)
 */
export async function runRemoval(services: Services, organizationId: string, member: MemberRecord, now: () => Date = () => new Date(), actor?: EventActor): Promise<boolean> {
  const removal = member.removal;
  if (removal === null) return true;
  const from: EnvelopeOwner = { userId: member.userId, email: member.email, name: member.name };
  const to = await receiverOf(services, organizationId, removal);
  const by: EventActor = actor ?? { id: removal.by.userId, email: removal.by.email, ip: null, userAgent: null, apiKeyId: null, member: true };
  const settled = now().getTime() >= Date.parse(removal.startedAt) + REMOVAL_SETTLE_MS;
  await moveEnvelopes(services, organizationId, from, to, by, now);
  await services.templates.moveAll(from.userId, to.userId, (templateId) => services.templateIndex.add(organizationId, templateId, to.userId));
  await organizationWebhookPartition(services, organizationId);
  for (const key of await services.apiKeys.list(from.userId)) await services.apiKeys.delete(from.userId, key.id);
  const account = await services.users.findByEmail(member.email);
  if (account !== null && account.userId === member.userId) await services.users.delete(member.email);
  if (!settled) return false;
  await services.organizations.retireMember(organizationId, member.userId);
  await services.dueIndex.remove(dueEntryOf(organizationId, member.userId, removal));
  return true;
}

/**
 * Who receives the envelopes: the member the removal names, or, should that member have been removed
 * meanwhile too, the organisation's owner.
 * @throws Error when neither is a member (the organisation row or its owner is missing)
 */
async function receiverOf(services: Services, organizationId: string, removal: MemberRemoval): Promise<EnvelopeOwner> {
  const named = await services.organizations.member(organizationId, removal.transferTo);
  if (named !== null && named.removal === null) return { userId: named.userId, email: named.email, name: named.name };
  const organization = await services.organizations.find(organizationId);
  const owner = organization === null ? null : await services.organizations.member(organizationId, organization.ownerId);
  if (owner === null) throw new Error(`Organization ${organizationId} has no owner to receive a removed member's envelopes`);
  return { userId: owner.userId, email: owner.email, name: owner.name };
}

/**
 * Moves every envelope of `from` (every status), a page at a time, {@link MOVES_IN_FLIGHT} at once;
 * first the moves an earlier run began and did not finish (which `from`'s list no longer shows).
 */
async function moveEnvelopes(services: Services, organizationId: string, from: EnvelopeOwner, to: EnvelopeOwner, actor: EventActor, now: () => Date): Promise<void> {
  const move = async (envelopeId: string) => {
    await moveEnvelope({ services, organizationId, envelopeId, from, to, actor, now });
  };
  await forEachConcurrently(await services.envelopes.unfinishedMoves(from.userId), MOVES_IN_FLIGHT, move);
  let cursor: string | undefined;
  do {
    const page = await services.envelopes.list(from.userId, { limit: PAGE, ...(cursor === undefined ? {} : { cursor }) });
    await forEachConcurrently(page.records.map((record) => record.id), MOVES_IN_FLIGHT, move);
    cursor = page.nextCursor;
  } while (cursor !== undefined);
}

/**
 * The sweeper's step (docs/api.md#the-sweeper): finishes each removal whose due entry fell due (its
 * request died half-way, or its last pass is due): runs the job again and retires the member. An
 * entry whose member has no marker (the marker was never written, or the member is gone) is dropped.
 * @returns how many entries it handled
 */
export async function finishDueRemovals(services: Services, now: Date, limit: number, log: (message: string) => void): Promise<number> {
  const due = await services.dueIndex.due(REMOVAL_DUE_KIND, now.toISOString(), limit);
  for (const entry of due) {
    try {
      const member = await services.organizations.member(entry.id, entry.ownerId);
      if (member === null || member.removal === null) {
        await services.dueIndex.remove(entry);
        continue;
      }
      const finished = await runRemoval(services, entry.id, member, () => now);
      if (finished) log(`Sweep: member ${entry.ownerId} removed from organization ${entry.id}.`);
      // An entry of an attempt whose marker lost to another: the marker's own entry stands for it.
      if (finished || entry.dueAt !== dueEntryOf(entry.id, entry.ownerId, member.removal).dueAt) await services.dueIndex.remove(entry);
    } catch (error) {
      log(`Sweep: the removal of member ${entry.ownerId} from organization ${entry.id} stopped half-way (resumed next sweep): ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  return due.length;
}
