/**
 * Invitations to an organisation (docs/api.md#invitations-to-an-organization): an admin or the owner
 * invites an address with a role (never `owner`); the invitation is valid 7 days, at most 100 are
 * pending per organisation, and its token is stored only as its SHA-256
 * (`auth/organizationInvitationTokens.ts`). Register with `organizationInvitation` uses it up.
 */
import type { Actor } from '../envelopes/model.js';
import { isUuid, resumableId, resumingRun } from '../ids.js';
import { problem } from '../problems.js';
import type { Services } from '../services.js';
import type { InvitationRecord } from '../storage/organizationRepository.js';
import { storageStatus } from '../storage/keys.js';
import { organizationInvitationSha256, organizationInvitationToken } from '../auth/organizationInvitationTokens.js';
import { DEFAULT_LOCALE } from '../i18n/locales.js';
import type { EmailMessage, OutboxBatch } from '../notifications/outbox.js';
import type { Role } from './roles.js';
import type { CreateOrganizationInvitationRequest } from './schemas.js';

/** How long an invitation is valid, days. */
export const ORGANIZATION_INVITATION_TTL_DAYS = 7;
/** Most pending invitations of an organisation. */
export const MAX_PENDING_INVITATIONS = 100;

/** An invitation as the organisation's admins see it (never its token). */
export interface OrganizationInvitationView {
  id: string;
  email: string;
  role: Exclude<Role, 'owner'>;
  expiresAt: string;
}

type Caller = Pick<Actor, 'userId' | 'organizationId'>;

function toView(invitation: InvitationRecord): OrganizationInvitationView {
  return { id: invitation.id, email: invitation.email, role: invitation.role, expiresAt: invitation.expiresAt };
}

/**
 * `POST /api/organization/invitations`: records the invitation and e-mails its link
 * (`<PUBLIC_BASE_URL>/api/console#join=<token>`) in the organisation's language, through the outbox
 * (a batch of its own in the inviter's partition, dispatched at once; the sweeper re-dispatches it if
 * this process dies first). The outbox carries the invitation's id, never its token.
 *
 * With an `Idempotency-Key` (docs/api.md#idempotency) the invitation's and its outbox batch's ids come
 * from the key's claim (`resumableId`), and a run under the claim of a request whose process died
 * finishes that request's work: an invitation it recorded is not recorded again, and its batch, if
 * written, is not written again (a second dispatch of it sends nothing twice), so the address gets one
 * e-mail.
 * @throws AppError 409 `account-exists` (the address has an account: one organisation per account),
 *   409 `invitation-limit`, 409 `invitations-contended`
 */
export async function createOrganizationInvitation({ services, caller, request, now = new Date(), log = console.warn }: {
  services: Services;
  caller: Pick<Actor, 'userId' | 'organizationId' | 'email' | 'name'>;
  log?: (message: string) => void;
  request: CreateOrganizationInvitationRequest;
  now?: Date;
}): Promise<{ invitation: OrganizationInvitationView; token: string }> {
  const id = resumableId('invitation');
  const left = resumingRun() ? (await services.organizations.listInvitations(caller.organizationId)).find((invitation) => invitation.id === id) : undefined;
  if (left === undefined && (await services.users.findByEmail(request.email)) !== null) throw problem('accountExists');
  const token = organizationInvitationToken(services.config.jwt.secret, id);
  const record: InvitationRecord = left ?? {
    id,
    organizationId: caller.organizationId,
    email: request.email,
    role: request.role,
    tokenSha256: organizationInvitationSha256(token),
    invitedBy: caller.userId,
    createdAt: now.toISOString(),
    expiresAt: new Date(now.getTime() + ORGANIZATION_INVITATION_TTL_DAYS * 86_400_000).toISOString(),
  };
  if (left === undefined && !(await services.organizations.createInvitation(record, MAX_PENDING_INVITATIONS))) {
    throw problem('invitationLimit', { detail: `Your organization already has ${MAX_PENDING_INVITATIONS} pending invitations, the most allowed; delete one first.` });
  }
  const organization = await services.organizations.find(caller.organizationId);
  const message: EmailMessage = {
    kind: 'email',
    type: 'organizationInvitation',
    envelopeId: '',
    recipientId: null,
    to: { email: record.email, name: null },
    documentName: '',
    ownerEmail: caller.email,
    ownerName: caller.name ?? null,
    expiresAt: record.expiresAt,
    reason: null,
    declinedBy: null,
    linkSalt: null,
    locale: organization?.locale ?? DEFAULT_LOCALE,
    organizationInvitation: { id, organizationName: organization?.name ?? caller.email },
  };
  const batch: OutboxBatch = { id: resumableId('invitation-email'), ownerId: caller.userId, envelopeId: '', createdAt: record.createdAt, messages: [message] };
  const [, entity] = (await services.outbox.prepare(batch)) as ['create', Parameters<typeof services.storage.tables.envelopes.createEntity>[0]];
  let written = true;
  try {
    await services.storage.tables.envelopes.createEntity(entity);
  } catch (error) {
    // Written by the run this one resumes: dispatched again below, which skips what was sent.
    if (!resumingRun() || storageStatus(error) !== 409) throw error;
    written = false;
  }
  await services.outbox.dispatch(batch, log, { justCommitted: written });
  return { invitation: toView(record), token };
}

/** `GET /api/organization/invitations`: the pending (unexpired) invitations, oldest first. */
export async function listOrganizationInvitations({ services, caller, now = new Date() }: { services: Pick<Services, 'organizations'>; caller: Caller; now?: Date }): Promise<OrganizationInvitationView[]> {
  const all = await services.organizations.listInvitations(caller.organizationId);
  return all.filter((invitation) => Date.parse(invitation.expiresAt) > now.getTime()).map(toView);
}

/**
 * `DELETE /api/organization/invitations/{id}`: its link stops working at once.
 * @throws AppError 404 `invitation-not-found` (also another organisation's)
 */
export async function deleteOrganizationInvitation({ services, caller, invitationId }: { services: Pick<Services, 'organizations'>; caller: Caller; invitationId: string }): Promise<void> {
  const found = isUuid(invitationId) ? (await services.organizations.listInvitations(caller.organizationId)).find((invitation) => invitation.id === invitationId) : undefined;
  if (found === undefined || !(await services.organizations.deleteInvitation(found))) throw problem('invitationNotFound');
}
