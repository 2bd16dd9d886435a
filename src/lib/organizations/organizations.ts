/**
 * The caller's organisation and its members (docs/api.md#organizations, docs/api.md#members):
 * reading and renaming it, listing members, changing a member's role, and handing the organisation
 * over. Every operation acts on the caller's own organisation (`Actor.organizationId`): a member of
 * another organisation is answered 404, exactly as an unknown id. Which role may call which
 * operation is declared by each route's registration (docs/api.md#roles); the rules here are those
 * a role alone does not settle (nobody changes the owner's role; only the owner makes or unmakes an
 * admin).
 */
import type { Actor } from '../envelopes/model.js';
import { isUuid, uuidv7 } from '../ids.js';
import { problem } from '../problems.js';
import type { Services } from '../services.js';
import type { MemberRecord, OrganizationEvent } from '../storage/organizationRepository.js';
import type { Locale } from '../i18n/locales.js';
import { disclosureVersion } from '../i18n/disclosure.js';
import type { Role } from './roles.js';
import type { TransferOrganizationRequest, UpdateMemberRequest, UpdateOrganizationRequest } from './schemas.js';

/** `GET /api/organization`: the organisation as its members see it. */
export interface OrganizationView {
  id: string;
  name: string;
  createdAt: string;
  memberCount: number;
  /** The caller's role. */
  role: Role;
  /** The language of the organization's invitations. */
  locale: Locale;
  /** The organization's own disclosures by locale (docs/api.md#the-organizations-disclosures); `{}` when it set none. */
  disclosure: Partial<Record<Locale, { text: string; version: string }>>;
  /** Days finished envelopes are kept before the sweeper purges them (docs/api.md#retention); `null`: for ever. */
  retentionDays: number | null;
}

/** A member as `GET /api/organization/members` shows it. */
export interface MemberView {
  userId: string;
  email: string;
  name: string | null;
  role: Role;
  joinedAt: string;
}

type Caller = Pick<Actor, 'userId' | 'organizationId' | 'role'>;
type OrganizationServices = Pick<Services, 'organizations' | 'retention'>;

/** Times a change is read and written again when a concurrent change of the same rows came first. */
const CONTENTION_RETRIES = 10;

function toMemberView(member: MemberRecord): MemberView {
  return { userId: member.userId, email: member.email, name: member.name, role: member.role, joinedAt: member.joinedAt };
}

/** Members not being removed. */
function current(members: MemberRecord[]): MemberRecord[] {
  return members.filter((member) => member.removal === null);
}

/**
 * `GET /api/organization`.
 * @throws Error when the caller's organisation row is missing (the guard makes it before any handler runs)
 */
export async function getOrganization({ services, caller }: { services: OrganizationServices; caller: Caller }): Promise<OrganizationView> {
  const [organization, members, disclosures, retention] = await Promise.all([
    services.organizations.find(caller.organizationId),
    services.organizations.members(caller.organizationId),
    services.organizations.disclosures(caller.organizationId),
    services.retention.policy(caller.organizationId),
  ]);
  if (organization === null) throw new Error(`Organization ${caller.organizationId} of user ${caller.userId} has no organization row`);
  const disclosure = Object.fromEntries(disclosures.map((own) => [own.locale, { text: own.text, version: own.version }]));
  return {
    id: organization.id,
    name: organization.name,
    createdAt: organization.createdAt,
    memberCount: current(members).length,
    role: caller.role,
    locale: organization.locale,
    disclosure,
    retentionDays: retention?.retentionDays ?? null,
  };
}

/**
 * `PATCH /api/organization`: its name, language, own disclosures and retention period (admin or owner,
 * by its route's roles). Each disclosure given replaces the organisation's text for its locale, with a
 * version derived from the text (docs/api.md#the-organizations-disclosures); `null` removes it.
 * `retentionDays` (30 to 3650, or `null`: for ever) takes effect at the next sweep (docs/api.md#retention).
 */
export async function updateOrganization({ services, caller, request, now = new Date() }: { services: OrganizationServices; caller: Caller & Pick<Actor, 'email'>; request: UpdateOrganizationRequest; now?: Date }): Promise<OrganizationView> {
  if (request.name !== undefined || request.locale !== undefined) {
    await services.organizations.update(caller.organizationId, { ...(request.name === undefined ? {} : { name: request.name }), ...(request.locale === undefined ? {} : { locale: request.locale }) });
  }
  if (request.disclosure !== undefined) {
    const entries = Object.entries(request.disclosure) as [Locale, string | null | undefined][];
    const set = entries.flatMap(([locale, text]) => (typeof text === 'string' ? [{ locale, text, version: disclosureVersion(text), changedAt: now.toISOString() }] : []));
    const removed = entries.flatMap(([locale, text]) => (text === null ? [locale] : []));
    // `organization.disclosure_changed` for each locale whose text this changes (docs/api.md#the-organizations-disclosures).
    const before = new Map((await services.organizations.disclosures(caller.organizationId)).map((own) => [own.locale, own.version]));
    const changed = [
      ...set.filter((disclosure) => before.get(disclosure.locale) !== disclosure.version).map((disclosure) => ({ locale: disclosure.locale, version: disclosure.version as string | null })),
      ...removed.filter((locale) => before.has(locale)).map((locale) => ({ locale, version: null })),
    ];
    const events = changed.map(({ locale, version }): OrganizationEvent => ({
      id: uuidv7(),
      type: 'organization.disclosure_changed',
      at: now.toISOString(),
      actorId: caller.userId,
      actorEmail: caller.email,
      locale,
      version,
      previousVersion: before.get(locale) ?? null,
    }));
    await services.organizations.setDisclosures(caller.organizationId, set, removed, events);
  }
  if (request.retentionDays !== undefined) await services.retention.setPolicy(caller.organizationId, request.retentionDays, now);
  return await getOrganization({ services, caller });
}

/** `GET /api/organization/members`: every member, in the order they joined. */
export async function listMembers({ services, caller }: { services: OrganizationServices; caller: Caller }): Promise<MemberView[]> {
  const members = current(await services.organizations.members(caller.organizationId));
  return members.sort((a, b) => a.joinedAt.localeCompare(b.joinedAt) || a.userId.localeCompare(b.userId)).map(toMemberView);
}

/**
 * `PATCH /api/organization/members/{userId}` `{role}` (docs/api.md#members): nobody changes the
 * owner's role (it changes only by transfer); only the owner makes a member an admin or changes an
 * admin's role. Takes effect at once on this instance and within 30 s on every other
 * (`MEMBERSHIP_CACHE_MS`).
 * @throws AppError 404 `member-not-found` (also another organisation's member); 409 `owner-protected`
 *   for the owner (whoever asks); 403 `forbidden-role` for an admin making or changing an admin;
 *   409 `organization-contended`
 */
export async function updateMember({ services, caller, userId, request }: { services: OrganizationServices; caller: Caller; userId: string; request: UpdateMemberRequest }): Promise<MemberView> {
  for (let round = 0; round < CONTENTION_RETRIES; round++) {
    const member = isUuid(userId) ? await services.organizations.member(caller.organizationId, userId) : null;
    if (member === null || member.removal !== null) throw problem('memberNotFound');
    if (member.role === 'owner') throw problem('ownerProtected', { detail: 'Nobody changes the owner\'s role: the owner hands the organization over with POST /api/organization/transfer.' });
    if (caller.role !== 'owner' && (member.role === 'admin' || request.role === 'admin')) {
      throw problem('forbiddenRole', { detail: 'Only the owner makes a member an admin or changes an admin\'s role; you are an admin.' });
    }
    if (member.role === request.role) return toMemberView(member);
    if (await services.organizations.updateMembers(caller.organizationId, [{ ...member, role: request.role }])) return toMemberView({ ...member, role: request.role });
  }
  throw problem('organizationContended');
}

/**
 * `POST /api/organization/transfer` `{userId}` (owner only, docs/api.md#handing-the-organization-over):
 * that member becomes the owner and the caller an admin, in one transaction of the organisation's
 * partition (the organisation row and both members, each conditional on what was read).
 * @throws AppError 404 `member-not-found`; 409 `invalid-transfer-target` (the caller itself);
 *   409 `organization-contended`
 */
export async function transferOrganization({ services, caller, request }: { services: OrganizationServices; caller: Caller; request: TransferOrganizationRequest }): Promise<OrganizationView> {
  if (request.userId === caller.userId) throw problem('invalidTransferTarget', { detail: 'You are the owner already: userId must be another member.' });
  for (let round = 0; round < CONTENTION_RETRIES; round++) {
    const [organization, owner, next] = await Promise.all([
      services.organizations.find(caller.organizationId),
      services.organizations.member(caller.organizationId, caller.userId),
      services.organizations.member(caller.organizationId, request.userId),
    ]);
    if (next === null || next.removal !== null) throw problem('memberNotFound');
    if (organization === null || owner === null || owner.role !== 'owner') throw problem('forbiddenRole', { detail: 'This needs the role owner.' });
    const written = await services.organizations.updateMembers(caller.organizationId, [{ ...owner, role: 'admin' }, { ...next, role: 'owner' }], { ...organization, ownerId: next.userId });
    if (written) return await getOrganization({ services, caller: { ...caller, role: 'admin' } });
  }
  throw problem('organizationContended');
}
