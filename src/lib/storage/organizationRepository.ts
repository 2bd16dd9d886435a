/**
 * Organisations and their members, table `organizations` (docs/architecture.md#tables,
 * docs/api.md#organizations):
 *
 * - PartitionKey `org_<organizationId>`, RowKey `organization`: the organisation (name, owner, when made);
 * - PartitionKey `org_<organizationId>`, RowKey `member_<userId>`: one member, with its role: the one
 *   place a role is kept, so one partition holds an organisation and everything a role change or an
 *   ownership transfer writes (one entity-group transaction);
 * - PartitionKey `user_<userId>`, RowKey `membership`: which organisation an account belongs to, and
 *   the role it joined with; its insert (which fails when the row exists) is what makes an account
 *   belong to exactly one organisation, however many requests or instances race to create it;
 * - PartitionKey `invitations_<organizationId>`, RowKeys `invitation_<id>` and `count`: the pending
 *   invitations, counted ({@link CountedRows}); PartitionKey `token_<SHA-256 of the token>`, RowKey
 *   `invitation`: what Register looks an invitation's token up by.
 *
 * An account made before organisations existed has no `membership` row: {@link ensureMembership}
 * makes it the owner of an organisation of its own on its first authenticated request, idempotently.
 */
import type { TableClient, TableEntity, TransactionAction } from '@azure/data-tables';
import { uuidv7 } from '../ids.js';
import { DEFAULT_LOCALE, isSupportedLocale, type Locale } from '../i18n/locales.js';
import type { Role } from '../organizations/roles.js';
import { problem } from '../problems.js';
import { RecentLookups } from '../recentLookups.js';
import { CountedRows } from './countedRows.js';
import { storageStatus } from './keys.js';

/**
 * How long the guard answers an account's organisation and role from memory, milliseconds: the
 * longest a role change made on another instance takes to be seen (docs/api.md#roles: at most 60 s).
 */
export const MEMBERSHIP_CACHE_MS = 30_000;
/** Most memberships remembered at once (the oldest go first). */
export const MEMBERSHIP_CACHE_ENTRIES = 10_000;
/** Longest organisation name, characters (docs/api.md#organizations). */
export const MAX_ORGANIZATION_NAME = 100;

export interface OrganizationRecord {
  id: string;
  name: string;
  ownerId: string;
  createdAt: string;
  /** The language of its invitations (docs/api.md#the-organization); `en` until changed. */
  locale: Locale;
}

export interface MemberRecord {
  userId: string;
  email: string;
  name: string | null;
  role: Role;
  joinedAt: string;
  /**
   * The marker of a removal in progress (docs/api.md#removing-a-member): who receives the member's
   * envelopes and templates, since when, and who removed it. A member carrying it is refused by the
   * guard and left out of the members' list, so that a removal made of several writes can be resumed
   * from it.
   */
  removal: MemberRemoval | null;
}

/** A removal in progress (docs/api.md#removing-a-member). */
export interface MemberRemoval {
  /** The member who receives the removed member's envelopes and templates. */
  transferTo: string;
  /** ISO 8601: when the removal began. */
  startedAt: string;
  /** The admin or owner who removed the member. */
  by: { userId: string; email: string };
}

/**
 * An organisation's own disclosure for one locale (docs/api.md#the-organizations-disclosures): what
 * its recipients in that locale are shown and agree to instead of the service's.
 */
/**
 * Something that changed the organisation, recorded in its partition (docs/api.md#the-organizations-disclosures):
 * today `organization.disclosure_changed`, one per locale whose text a `PATCH /api/organization` changed.
 */
export interface OrganizationEvent {
  /** UUIDv7. */
  id: string;
  type: 'organization.disclosure_changed';
  /** ISO 8601 UTC. */
  at: string;
  /** The admin or owner who changed it. */
  actorId: string;
  actorEmail: string;
  locale: Locale;
  /** The organisation's new text's version; `null` when the text was removed (the service's own applies again). */
  version: string | null;
  /** The version of the organisation's text it replaced; `null` when it had none for the locale. */
  previousVersion: string | null;
}

export interface OrganizationDisclosure {
  locale: Locale;
  /** Plain text, 50 to 10,000 code points, line breaks as `\n`. */
  text: string;
  /** The text's version (`esd-` and 12 hex digits of its SHA-256). */
  version: string;
  /** When it was set, ISO 8601 UTC. */
  changedAt: string;
}

/** What the guard gives every owner request: the caller's organisation and role. */
export interface Membership {
  organizationId: string;
  role: Role;
  /** A removal is in progress: the account's credentials are refused. */
  removing: boolean;
}

/** A pending invitation (docs/api.md#invitations-to-an-organization). */
export interface InvitationRecord {
  id: string;
  organizationId: string;
  email: string;
  role: Exclude<Role, 'owner'>;
  /** Lower-case hex SHA-256 of the token; the token itself is never stored. */
  tokenSha256: string;
  invitedBy: string;
  createdAt: string;
  expiresAt: string;
}

/** Who an account is, as much as an organisation needs. */
export interface AccountOfMember {
  userId: string;
  email: string;
  name: string | null;
}

const orgKey = (organizationId: string): string => `org_${organizationId}`;
const userKey = (userId: string): string => `user_${userId}`;
const memberRow = (userId: string): string => `member_${userId}`;
const invitationsKey = (organizationId: string): string => `invitations_${organizationId}`;
const invitationRow = (id: string): string => `invitation_${id}`;
const tokenKey = (sha256: string): string => `token_${sha256}`;
const ORGANIZATION_ROW = 'organization';
const disclosureRow = (locale: Locale): string => `disclosure_${locale}`;
/** An event's row: its UUIDv7 id, so rows sort oldest first. */
const eventRow = (id: string): string => `event_${id}`;
const MEMBERSHIP_ROW = 'membership';

interface MemberEntity {
  userId: string;
  email: string;
  name?: string;
  role: string;
  joinedAt: string;
  removalTransferTo?: string;
  removalStartedAt?: string;
  removalBy?: string;
  removalByEmail?: string;
}

function toMember(entity: MemberEntity): MemberRecord {
  return {
    userId: entity.userId,
    email: entity.email,
    name: typeof entity.name === 'string' ? entity.name : null,
    role: entity.role as Role,
    joinedAt: entity.joinedAt,
    removal:
      typeof entity.removalTransferTo === 'string'
        ? { transferTo: entity.removalTransferTo, startedAt: entity.removalStartedAt ?? '', by: { userId: entity.removalBy ?? '', email: entity.removalByEmail ?? '' } }
        : null,
  };
}

function memberEntity(organizationId: string, member: MemberRecord): TableEntity<MemberEntity & Record<string, unknown>> {
  return {
    partitionKey: orgKey(organizationId),
    rowKey: memberRow(member.userId),
    userId: member.userId,
    email: member.email,
    ...(member.name === null ? {} : { name: member.name }),
    role: member.role,
    joinedAt: member.joinedAt,
    ...(member.removal === null
      ? {}
      : { removalTransferTo: member.removal.transferTo, removalStartedAt: member.removal.startedAt, removalBy: member.removal.by.userId, removalByEmail: member.removal.by.email }),
  };
}

/** Runs `write`; a row that already exists (409) is what another writer of the same row did first. */
async function insertOnce(write: () => Promise<unknown>): Promise<void> {
  try {
    await write();
  } catch (error) {
    if (storageStatus(error) !== 409) throw error;
  }
}

async function readOrNull<T extends object>(table: TableClient, partitionKey: string, rowKey: string): Promise<(T & { etag: string }) | null> {
  try {
    return (await table.getEntity<T>(partitionKey, rowKey)) as T & { etag: string };
  } catch (error) {
    if (storageStatus(error) === 404) return null;
    throw error;
  }
}

/** The organisation a name is made from for an account that gets one of its own: its address, cut to the longest name. */
export function organizationNameFor(email: string): string {
  return Array.from(email).slice(0, MAX_ORGANIZATION_NAME).join('');
}

export class OrganizationRepository {
  private readonly memberships: RecentLookups<Membership>;
  private readonly invitations: CountedRows;

  constructor(
    private readonly table: TableClient,
    now: () => number = Date.now,
  ) {
    this.memberships = new RecentLookups<Membership>(MEMBERSHIP_CACHE_MS, MEMBERSHIP_CACHE_ENTRIES, now);
    this.invitations = new CountedRows(table, () => problem('invitationsContended'));
  }

  /**
   * The organisation and role of an account, for the guard of every owner request: answered from
   * memory for {@link MEMBERSHIP_CACHE_MS} after a read (so a role change or removal made on another
   * instance is seen there within that time). An account with no organisation yet (made before
   * organisations existed, or whose Register died before making it) gets one here
   * ({@link ensureMembership}).
   */
  async membershipForRequest(account: AccountOfMember, now: Date = new Date()): Promise<Membership> {
    const found = await this.memberships.get(account.userId, async () => await this.ensureMembership(account, 'owner', null, now));
    // ensureMembership never answers null; the lookup's type allows it.
    return found!;
  }

  /**
   * The organisation an account belongs to, for work done on its behalf where it made no request (a
   * recipient's action, the sweeper, a webhook fan-out): the membership remembered or read, or, for an
   * account made before organisations that has not made a request since, the organisation of its own
   * that {@link ensureMembership} makes for it. An account's organisation never changes, so the answer
   * is as good as any role the cache holds.
   * @param account reads the account (only when it has no membership row yet); `null`: no such account
   * @returns `null` for an account that no longer exists and belongs to no organisation
   */
  async organizationOf(userId: string, account: () => Promise<AccountOfMember | null>): Promise<string | null> {
    let orphan: string | null = null;
    const found = await this.memberships.get(userId, async () => {
      const pointer = await readOrNull<{ organizationId: string }>(this.table, userKey(userId), MEMBERSHIP_ROW);
      if (pointer !== null) {
        const member = await readOrNull<MemberEntity>(this.table, orgKey(pointer.organizationId), memberRow(userId));
        if (member !== null) return { organizationId: pointer.organizationId, role: toMember(member).role, removing: toMember(member).removal !== null };
      }
      const known = await account();
      if (known !== null) return await this.ensureMembership(known, 'owner', null);
      // Nothing remembered for an account that is gone: its organisation, if it had one, is still answered.
      orphan = pointer?.organizationId ?? null;
      return null;
    });
    return found?.organizationId ?? orphan;
  }

  /** Forgets what this instance remembers of an account's membership (after a change made here). */
  forgetMembership(userId: string): void {
    this.memberships.forget(userId);
  }

  /**
   * Makes sure the account belongs to an organisation and returns its membership. Idempotent and safe
   * under concurrency (docs/api.md#accounts-made-before-organizations): the `membership` row is
   * inserted only if absent, so of two racing requests (on any instances, old code or new) one
   * decides the organisation and the other reads it; the organisation and member rows are then
   * inserted if absent, so a process that died between two writes is completed by the next call.
   * @param joinedAs the role of an account that has no organisation yet: `owner` of a new one (named
   *   after its address), or, with `organizationId`, the invited role in that organisation
   * @param organizationId the organisation an invited account joins; `null`: a new one
   */
  async ensureMembership(account: AccountOfMember, joinedAs: Role, organizationId: string | null, now: Date = new Date()): Promise<Membership> {
    let pointer = await readOrNull<{ organizationId: string; joinedAs: string; createdAt: string; removedAt?: string }>(this.table, userKey(account.userId), MEMBERSHIP_ROW);
    // A removed member (docs/api.md#removing-a-member) whose credentials another instance still knows: never made a member again.
    if (pointer?.removedAt !== undefined) return { organizationId: pointer.organizationId, role: pointer.joinedAs as Role, removing: true };
    if (pointer === null) {
      const created = { partitionKey: userKey(account.userId), rowKey: MEMBERSHIP_ROW, organizationId: organizationId ?? uuidv7(), joinedAs, createdAt: now.toISOString() };
      await insertOnce(() => this.table.createEntity(created));
      pointer = await readOrNull(this.table, userKey(account.userId), MEMBERSHIP_ROW);
      if (pointer === null) throw new Error(`The membership of account ${account.userId} vanished as it was made`);
    }
    const orgId = pointer.organizationId;
    let member = await readOrNull<MemberEntity>(this.table, orgKey(orgId), memberRow(account.userId));
    if (member === null) {
      const role = pointer.joinedAs as Role;
      if (role === 'owner') {
        await insertOnce(() =>
          this.table.createEntity({ partitionKey: orgKey(orgId), rowKey: ORGANIZATION_ROW, organizationId: orgId, name: organizationNameFor(account.email), ownerId: account.userId, createdAt: pointer.createdAt }),
        );
      }
      await insertOnce(() => this.table.createEntity(memberEntity(orgId, { userId: account.userId, email: account.email, name: account.name, role, joinedAt: pointer.createdAt, removal: null })));
      member = await readOrNull<MemberEntity>(this.table, orgKey(orgId), memberRow(account.userId));
      if (member === null) throw new Error(`The member row of account ${account.userId} vanished as it was made`);
    }
    const record = toMember(member);
    return { organizationId: orgId, role: record.role, removing: record.removal !== null };
  }

  /** The organisation, or `null`. */
  async find(organizationId: string): Promise<(OrganizationRecord & { etag: string }) | null> {
    const entity = await readOrNull<{ organizationId: string; name: string; ownerId: string; createdAt: string; locale?: string }>(this.table, orgKey(organizationId), ORGANIZATION_ROW);
    if (entity === null) return null;
    return { id: entity.organizationId, name: entity.name, ownerId: entity.ownerId, createdAt: entity.createdAt, locale: isSupportedLocale(entity.locale) ? entity.locale : DEFAULT_LOCALE, etag: entity.etag };
  }

  /** Changes the organisation's name and language (last writer wins: neither has a history). */
  async update(organizationId: string, change: { name?: string; locale?: Locale }): Promise<void> {
    await this.table.updateEntity({ partitionKey: orgKey(organizationId), rowKey: ORGANIZATION_ROW, ...change }, 'Merge');
  }

  /** The organisation's own disclosures, one per locale it set, in the order of their locale tags. */
  async disclosures(organizationId: string): Promise<OrganizationDisclosure[]> {
    const found: OrganizationDisclosure[] = [];
    const rows = this.table.listEntities<{ locale: string; text: string; version: string; changedAt: string }>({
      queryOptions: { filter: `PartitionKey eq '${orgKey(organizationId)}' and RowKey ge 'disclosure_' and RowKey lt 'disclosure~'` },
    });
    for await (const entity of rows) {
      if (isSupportedLocale(entity.locale)) found.push({ locale: entity.locale, text: entity.text, version: entity.version, changedAt: entity.changedAt });
    }
    return found;
  }

  /** The organisation's own disclosure for `locale`, or `null` when it set none. */
  async disclosure(organizationId: string, locale: Locale): Promise<OrganizationDisclosure | null> {
    const entity = await readOrNull<{ locale: string; text: string; version: string; changedAt: string }>(this.table, orgKey(organizationId), disclosureRow(locale));
    return entity === null ? null : { locale, text: entity.text, version: entity.version, changedAt: entity.changedAt };
  }

  /**
   * Sets the organisation's own disclosures (last writer wins per locale; each locale is one row of
   * at most 10,000 code points, within a Table property's 64 KiB) and removes those given as `null`.
   */
  async setDisclosures(organizationId: string, set: readonly OrganizationDisclosure[], removed: readonly Locale[], events: readonly OrganizationEvent[] = []): Promise<void> {
    const partitionKey = orgKey(organizationId);
    // One entity-group transaction (all rows are in the organisation's partition, at most 27 texts and
    // 27 events): a text never changes without its event, nor an event stands without its text.
    const actions: TransactionAction[] = [
      ...set.map((disclosure): TransactionAction => ['upsert', { partitionKey, rowKey: disclosureRow(disclosure.locale), ...disclosure }, 'Replace']),
      ...events.map((event): TransactionAction => ['create', { partitionKey, rowKey: eventRow(event.id), ...event }]),
    ];
    if (actions.length > 0) await this.table.submitTransaction(actions);
    await Promise.all(
      removed.map(async (locale) => {
        try {
          await this.table.deleteEntity(partitionKey, disclosureRow(locale));
        } catch (error) {
          if (storageStatus(error) !== 404) throw error;
        }
      }),
    );
  }

  /** The organisation's events ({@link OrganizationEvent}), oldest first. */
  async events(organizationId: string): Promise<OrganizationEvent[]> {
    const found: OrganizationEvent[] = [];
    const rows = this.table.listEntities<OrganizationEvent>({ queryOptions: { filter: `PartitionKey eq '${orgKey(organizationId)}' and RowKey ge 'event_' and RowKey lt 'event~'` } });
    for await (const { id, type, at, actorId, actorEmail, locale, version, previousVersion } of rows) found.push({ id, type, at, actorId, actorEmail, locale, version: version ?? null, previousVersion: previousVersion ?? null });
    return found;
  }

  /** The organisation's members, in the order of their user ids (oldest accounts first). */
  async members(organizationId: string): Promise<MemberRecord[]> {
    const members: MemberRecord[] = [];
    const rows = this.table.listEntities<MemberEntity>({ queryOptions: { filter: `PartitionKey eq '${orgKey(organizationId)}' and RowKey ge 'member_' and RowKey lt 'member~'` } });
    for await (const entity of rows) members.push(toMember(entity));
    return members;
  }

  /** One member of the organisation with its row's ETag, or `null`. */
  async member(organizationId: string, userId: string): Promise<(MemberRecord & { etag: string }) | null> {
    const entity = await readOrNull<MemberEntity>(this.table, orgKey(organizationId), memberRow(userId));
    return entity === null ? null : { ...toMember(entity), etag: entity.etag };
  }

  /**
   * Writes members' rows (and the organisation's, when given) in one entity-group transaction, each
   * conditional on the ETag it was read with, and forgets them here.
   * @returns `false` when one of them changed since it was read (nothing written)
   */
  async updateMembers(organizationId: string, members: (MemberRecord & { etag: string })[], organization?: OrganizationRecord & { etag: string }): Promise<boolean> {
    const actions: TransactionAction[] = members.map((member) => ['update', memberEntity(organizationId, member), 'Replace', { etag: member.etag }]);
    if (organization !== undefined) {
      actions.push(['update', { partitionKey: orgKey(organizationId), rowKey: ORGANIZATION_ROW, organizationId, name: organization.name, ownerId: organization.ownerId, createdAt: organization.createdAt, locale: organization.locale }, 'Replace', { etag: organization.etag }]);
    }
    try {
      await this.table.submitTransaction(actions);
      return true;
    } catch (error) {
      const status = storageStatus(error);
      if (status === 412 || status === 404) return false;
      throw error;
    } finally {
      for (const member of members) this.memberships.forget(member.userId);
    }
  }

  /**
   * The last step of a removal (docs/api.md#removing-a-member): deletes the member's row and marks its
   * `membership` row removed (kept, so that the account is never made a member again by a request
   * with credentials another instance still remembers, and so that work queued for it still finds its
   * organisation). Idempotent.
   */
  async retireMember(organizationId: string, userId: string, at: Date = new Date()): Promise<void> {
    await this.table.upsertEntity({ partitionKey: userKey(userId), rowKey: MEMBERSHIP_ROW, removedAt: at.toISOString() }, 'Merge');
    try {
      await this.table.deleteEntity(orgKey(organizationId), memberRow(userId));
    } catch (error) {
      if (storageStatus(error) !== 404) throw error;
    }
    this.memberships.forget(userId);
  }

  /** Deletes a member's rows (member and membership); no error when they are gone already. */
  async deleteMember(organizationId: string, userId: string): Promise<void> {
    for (const [partitionKey, rowKey] of [[orgKey(organizationId), memberRow(userId)], [userKey(userId), MEMBERSHIP_ROW]] as const) {
      try {
        await this.table.deleteEntity(partitionKey, rowKey);
      } catch (error) {
        if (storageStatus(error) !== 404) throw error;
      }
    }
    this.memberships.forget(userId);
  }

  /**
   * Records a pending invitation, if the organisation has fewer than `limit`.
   * @returns `false` (nothing written) when it already has `limit`
   */
  async createInvitation(invitation: InvitationRecord, limit: number): Promise<boolean> {
    // The token's row first: an invitation row is never listed before its token can be used; a token
    // row whose invitation was never written points at nothing and is refused.
    try {
      await this.table.createEntity({ partitionKey: tokenKey(invitation.tokenSha256), rowKey: 'invitation', organizationId: invitation.organizationId, invitationId: invitation.id });
    } catch (error) {
      // The same invitation's token row, left by a request that died before its invitation row
      // (its id, and so its token, come from the request's idempotency key: docs/api.md#idempotency).
      if (storageStatus(error) !== 409) throw error;
      const pointer = await readOrNull<{ organizationId: string; invitationId: string }>(this.table, tokenKey(invitation.tokenSha256), 'invitation');
      if (pointer?.organizationId !== invitation.organizationId || pointer.invitationId !== invitation.id) throw error;
    }
    const inserted = await this.invitations.insert({ partitionKey: invitationsKey(invitation.organizationId), rowKey: invitationRow(invitation.id), ...invitation }, limit);
    if (!inserted) await this.deleteTokenRow(invitation.tokenSha256);
    return inserted;
  }

  /** The organisation's pending invitations (expired ones included; the caller filters), oldest first. */
  async listInvitations(organizationId: string): Promise<InvitationRecord[]> {
    const found: InvitationRecord[] = [];
    const rows = this.table.listEntities<InvitationRecord>({ queryOptions: { filter: `PartitionKey eq '${invitationsKey(organizationId)}' and RowKey ge 'invitation_' and RowKey lt 'invitation~'` } });
    for await (const entity of rows) {
      found.push({ id: entity.id, organizationId: entity.organizationId, email: entity.email, role: entity.role, tokenSha256: entity.tokenSha256, invitedBy: entity.invitedBy, createdAt: entity.createdAt, expiresAt: entity.expiresAt });
    }
    return found;
  }

  /** The invitation a token names, or `null` (unknown token, or its invitation deleted or used). */
  async findInvitationByToken(tokenSha256: string): Promise<InvitationRecord | null> {
    const pointer = await readOrNull<{ organizationId: string; invitationId: string }>(this.table, tokenKey(tokenSha256), 'invitation');
    if (pointer === null) return null;
    const entity = await readOrNull<InvitationRecord>(this.table, invitationsKey(pointer.organizationId), invitationRow(pointer.invitationId));
    if (entity === null || entity.tokenSha256 !== tokenSha256) return null;
    return { id: entity.id, organizationId: entity.organizationId, email: entity.email, role: entity.role, tokenSha256: entity.tokenSha256, invitedBy: entity.invitedBy, createdAt: entity.createdAt, expiresAt: entity.expiresAt };
  }

  /**
   * Deletes a pending invitation (deleted, or used up by Register): of two racing deletions only one
   * gets `true`, which is what makes an invitation single-use.
   * @returns `false` when there was no such invitation
   */
  async deleteInvitation(invitation: Pick<InvitationRecord, 'organizationId' | 'id' | 'tokenSha256'>): Promise<boolean> {
    const deleted = await this.invitations.delete(invitationsKey(invitation.organizationId), invitationRow(invitation.id));
    if (deleted) await this.deleteTokenRow(invitation.tokenSha256);
    return deleted;
  }

  /** Puts back an invitation used up by a Register that then failed. */
  async restoreInvitation(invitation: InvitationRecord, limit: number): Promise<void> {
    await this.createInvitation(invitation, limit).catch(() => undefined);
  }

  private async deleteTokenRow(tokenSha256: string): Promise<void> {
    try {
      await this.table.deleteEntity(tokenKey(tokenSha256), 'invitation');
    } catch (error) {
      if (storageStatus(error) !== 404) throw error;
    }
  }
}
