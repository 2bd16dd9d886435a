/**
 * Organisations in the OpenAPI document (docs/api.md#organizations): {@link registerOrganizationOperations}
 * adds the organisation, its invitations, members and transfer under `paths`;
 * {@link describeRoles} adds to every owner operation (those secured by the bearer scheme, whichever
 * module registers them) the 403 `forbidden-role` its registration's roles give (docs/api.md#roles).
 * Response schemas are strict objects tied at compile time to the types the service answers with
 * (bottom of this file), like `./responses.ts`.
 */
import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import { MAX_PENDING_INVITATIONS, ORGANIZATION_INVITATION_TTL_DAYS, type OrganizationInvitationView } from '../organizations/invitations.js';
import type { MemberView, OrganizationView } from '../organizations/organizations.js';
import { ROLES } from '../organizations/roles.js';
import { localeSchema } from '../i18n/schema.js';
import { DEFAULT_LIST_PAGE, listPurgesQuery } from '../envelopes/schemas.js';
import type { PurgeView } from '../envelopes/purges.js';
import { assignableRole, createOrganizationInvitationRequest, MAX_RETENTION_DAYS, MIN_RETENTION_DAYS, removeMemberRequest, transferOrganizationRequest, updateMemberRequest, updateOrganizationRequest } from '../organizations/schemas.js';
import { MEMBERSHIP_CACHE_MS } from '../storage/organizationRepository.js';
import { cacheControlNoStore, internalError, jsonBodyTooLarge, listQueryRefused, notJson, ownerProblems, storageUnavailable, unauthorized, type Operation } from './common.js';
import { problemExampleValue, problemResponses, type ProblemExample } from './responses.js';
import { matches, type Matches } from './ties.js';

type JsonObject = Record<string, unknown>;

const timestamp = z.iso.datetime({ precision: 3 }).meta({ description: 'ISO 8601 UTC with milliseconds.', examples: ['2026-11-22T10:15:30.123Z'] });
const role = z.enum(ROLES).meta({ id: 'Role', description: '`owner` (exactly one), `admin`, `sender` or `viewer` (docs: Roles).' });

export const organizationResponse = z
  .strictObject({
    id: z.uuid({ version: 'v7' }),
    name: z.string().min(1).max(100),
    createdAt: timestamp,
    memberCount: z.int().min(1).meta({ description: 'Members, the owner included.' }),
    role: role.meta({ description: 'The caller\'s role.' }),
    locale: localeSchema.meta({ description: 'The language of the organization\'s invitation e-mails; `en` until changed.' }),
    disclosure: z
      .partialRecord(localeSchema, z.strictObject({ text: z.string(), version: z.string().regex(/^esd-[0-9a-f]{12}$/) }))
      .meta({ description: 'The organization\'s own disclosures about electronic records and signatures, by locale, each with its version (`esd-` and 12 hex digits of its SHA-256); `{}` when it set none. A locale not listed shows the service\'s text.' }),
    retentionDays: z
      .int()
      .min(MIN_RETENTION_DAYS)
      .max(MAX_RETENTION_DAYS)
      .nullable()
      .meta({ description: 'Days a finished envelope is kept before the sweeper purges its documents (recorded in the purge log); `null`: kept for ever.' }),
  })
  .meta({ id: 'Organization', description: 'The caller\'s organization.' });

export const purgeResponse = z
  .strictObject({
    envelopeId: z.uuid(),
    purgedAt: timestamp.meta({ description: 'The envelope\'s `purgedAt`.' }),
    sealedSha256: z.string().regex(/^[0-9a-f]{64}$/).nullable().meta({ description: 'SHA-256 of the sealed PDF (still verifiable with `GET /api/verify/{sha256}`); `null` for an envelope never sealed.' }),
    reason: z.enum(['retention', 'delete']).meta({ description: '`delete`: `DELETE /api/envelopes/{id}`; `retention`: the sweeper, once `retentionDays` had passed.' }),
    sealedImmutableUntil: timestamp.nullable().meta({ description: 'When storage refused to delete the sealed PDF because of its immutability period: the date the period ends (the PDF stays until then); else `null`.' }),
  })
  .meta({ id: 'Purge', description: 'One purge of a finished envelope\'s documents: ids and hashes only.' });

export const memberResponse = z
  .strictObject({
    userId: z.uuid(),
    email: z.email(),
    name: z.string().min(1).max(200).nullable().meta({ description: 'The display name given at registration, or `null`.' }),
    role,
    joinedAt: timestamp,
  })
  .meta({ id: 'Member', description: 'A member of the caller\'s organization.' });

export const invitationResponse = z
  .strictObject({
    id: z.uuid({ version: 'v7' }),
    email: z.email(),
    role: assignableRole,
    expiresAt: timestamp.meta({ description: `${ORGANIZATION_INVITATION_TTL_DAYS} days after the invitation was made.` }),
  })
  .meta({ id: 'OrganizationInvitation', description: 'A pending invitation (never its token).' });

const ids = { organization: '0193a5b0-1c2d-7e3f-8a4b-5c6d7e8f9a0b', member: '0193a5b2-7c1d-7e2f-8a3b-4c5d6e7f8a9b', invitation: '0193a5e0-2b3c-7d4e-9f5a-6b7c8d9e0f1a' };
const exampleOrganization = { id: ids.organization, name: 'Lovelace & Partners', createdAt: '2026-11-22T10:15:30.123Z', memberCount: 3, role: 'admin', locale: 'en', disclosure: {}, retentionDays: 365 };
const examplePurge = { envelopeId: '0193a5c1-4d2e-7f3a-8b4c-5d6e7f8a9b0c', purgedAt: '2026-11-29T02:00:00.000Z', sealedSha256: '3d5c7f0a9b8e6d4c2b1a0f9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b3a2f1e0d9c', reason: 'retention', sealedImmutableUntil: null };
const exampleMember = { userId: ids.member, email: 'grace@example.com', name: 'Grace Hopper', role: 'sender', joinedAt: '2026-11-23T09:00:00.000Z' };
const exampleInvitation = { id: ids.invitation, email: 'grace@example.com', role: 'sender', expiresAt: '2026-11-30T10:15:30.123Z' };

const json = 'application/json';
const bearer = [{ bearerAuth: [] }];
const noStore = cacheControlNoStore();

const problems = {
  ...ownerProblems,
  'validation-failed': { detail: 'The request body is invalid: role must be one of admin, sender, viewer.', errors: [{ path: 'role', message: 'must be one of admin, sender, viewer' }] },
  'forbidden-role': { detail: 'This needs the role owner or admin; you are a sender of your organization.' },
  'account-exists': {},
  'invitation-limit': { detail: `Your organization already has ${MAX_PENDING_INVITATIONS} pending invitations, the most allowed; delete one first.` },
  'invitation-not-found': {},
  'invitations-contended': {},
  'member-not-found': {},
  'organization-contended': {},
  'invalid-transfer-target': { detail: 'You are the owner already: userId must be another member.' },
  'owner-protected': {},
  'self-removal': {},
} satisfies Record<string, ProblemExample>;

const problem = problemResponses(problems);
const bodyRefused = problem(400, 'The body is not JSON (`malformed-json`) or is refused (`validation-failed`, the fields named).', ['validation-failed', 'malformed-json']);
const contended = problem(409, 'Concurrent requests kept changing the same members (`organization-contended`); retry.', ['organization-contended']);
const seenWithin = `Takes effect at once on the instance that answers and within ${MEMBERSHIP_CACHE_MS / 1000} s on every other.`;

function jsonBody(schema: z.ZodType, example: unknown): { body: { required: true; content: Record<string, { schema: z.ZodType; example: unknown }> } } {
  return { body: { required: true, content: { [json]: { schema, example } } } };
}

const operations: Operation[] = [
  {
    operationId: 'GetOrganization',
    method: 'get',
    path: '/organization',
    tags: ['Organizations'],
    security: bearer,
    summary: 'Read the caller\'s organization',
    description: 'Every account belongs to exactly one organization; `role` is the caller\'s. Any role.',
    responses: {
      200: { description: 'The organization.', headers: { 'Cache-Control': noStore }, content: { [json]: { schema: organizationResponse, example: exampleOrganization } } },
      401: unauthorized,
      503: storageUnavailable,
      500: internalError,
    },
  },
  {
    operationId: 'UpdateOrganization',
    method: 'patch',
    path: '/organization',
    tags: ['Organizations'],
    security: bearer,
    summary: 'Change the caller\'s organization: its name, language, own disclosures or retention period',
    description:
      'Admin or owner. `name`, `locale` (the language of invitation e-mails), `disclosure` (the organization\'s own disclosure per locale, shown to its recipients instead of the service\'s and recorded with their consent) and `retentionDays` (finished envelopes kept that many days, then purged by the sweeper; `null`: for ever), each optional.',
    request: jsonBody(updateOrganizationRequest.meta({ id: 'UpdateOrganizationRequest' }), { name: 'Lovelace & Partners' }),
    responses: {
      200: { description: 'The organization as changed.', headers: { 'Cache-Control': noStore }, content: { [json]: { schema: organizationResponse, example: exampleOrganization } } },
      400: bodyRefused,
      401: unauthorized,
      413: jsonBodyTooLarge,
      415: notJson,
      503: storageUnavailable,
      500: internalError,
    },
  },
  {
    operationId: 'ListPurges',
    method: 'get',
    path: '/organization/purges',
    tags: ['Organizations'],
    security: bearer,
    summary: 'The purge log: every purge of the organization\'s envelopes, newest first',
    description: `Admin or owner. Each purge of a finished envelope's documents, by \`DELETE /api/envelopes/{id}\` (\`delete\`) or by the sweeper once \`retentionDays\` had passed (\`retention\`): ids and hashes only. At most \`limit\` (default ${DEFAULT_LIST_PAGE}) entries; when more exist, the \`Link\` header names the next page.`,
    request: { query: listPurgesQuery },
    responses: {
      200: {
        description: 'The purges of this page, newest first.',
        headers: { 'Cache-Control': noStore, Link: { description: '`<...&cursor=...>; rel="next"` when more purges exist.', required: false, schema: { type: 'string' } } },
        content: { [json]: { schema: z.array(purgeResponse), example: [examplePurge] } },
      },
      400: listQueryRefused,
      401: unauthorized,
      503: storageUnavailable,
      500: internalError,
    },
  },
  {
    operationId: 'CreateOrganizationInvitation',
    method: 'post',
    path: '/organization/invitations',
    tags: ['Organizations'],
    security: bearer,
    summary: 'Invite an address to the organization',
    description: `Admin or owner. The invitation is valid ${ORGANIZATION_INVITATION_TTL_DAYS} days; Register with its token (\`organizationInvitation\`) makes an account in the organization with \`role\`. The token is never answered nor stored (only its SHA-256). At most ${MAX_PENDING_INVITATIONS} pending per organization.`,
    request: jsonBody(createOrganizationInvitationRequest.meta({ id: 'CreateOrganizationInvitationRequest' }), { email: 'grace@example.com', role: 'sender' }),
    responses: {
      201: { description: 'The invitation.', headers: { 'Cache-Control': noStore }, content: { [json]: { schema: invitationResponse, example: exampleInvitation } } },
      400: bodyRefused,
      401: unauthorized,
      409: problem(
        409,
        `The address already has an account (\`account-exists\`: an account belongs to one organization only), the organization has ${MAX_PENDING_INVITATIONS} pending invitations (\`invitation-limit\`), or concurrent requests kept changing them (\`invitations-contended\`; retry).`,
        ['account-exists', 'invitation-limit', 'invitations-contended'],
      ),
      413: jsonBodyTooLarge,
      415: notJson,
      503: storageUnavailable,
      500: internalError,
    },
  },
  {
    operationId: 'ListOrganizationInvitations',
    method: 'get',
    path: '/organization/invitations',
    tags: ['Organizations'],
    security: bearer,
    summary: 'List the pending invitations',
    description: 'Admin or owner. Unexpired, unused invitations, oldest first.',
    responses: {
      200: { description: 'The pending invitations.', headers: { 'Cache-Control': noStore }, content: { [json]: { schema: z.array(invitationResponse).max(MAX_PENDING_INVITATIONS), example: [exampleInvitation] } } },
      401: unauthorized,
      503: storageUnavailable,
      500: internalError,
    },
  },
  {
    operationId: 'DeleteOrganizationInvitation',
    method: 'delete',
    path: '/organization/invitations/{id}',
    tags: ['Organizations'],
    security: bearer,
    summary: 'Delete a pending invitation',
    description: 'Admin or owner. Its token stops working at once.',
    request: { params: z.object({ id: z.string().meta({ description: 'The invitation\'s id. Another organization\'s is answered 404, exactly as a missing one.', examples: [ids.invitation] }) }) },
    responses: {
      204: { description: 'Deleted.' },
      401: unauthorized,
      404: problem(404, 'No pending invitation with this id in the caller\'s organization.', ['invitation-not-found']),
      409: problem(409, 'Concurrent requests kept changing the invitations (`invitations-contended`); retry.', ['invitations-contended']),
      503: storageUnavailable,
      500: internalError,
    },
  },
  {
    operationId: 'ListMembers',
    method: 'get',
    path: '/organization/members',
    tags: ['Organizations'],
    security: bearer,
    summary: 'List the organization\'s members',
    description: 'Any role. In the order they joined.',
    responses: {
      200: { description: 'The members.', headers: { 'Cache-Control': noStore }, content: { [json]: { schema: z.array(memberResponse), example: [{ ...exampleMember, role: 'owner', userId: ids.organization, email: 'ada@example.com', name: 'Ada Lovelace' }, exampleMember] } } },
      401: unauthorized,
      503: storageUnavailable,
      500: internalError,
    },
  },
  {
    operationId: 'UpdateMember',
    method: 'patch',
    path: '/organization/members/{userId}',
    tags: ['Organizations'],
    security: bearer,
    summary: 'Change a member\'s role',
    description: `Admin or owner. Nobody changes the owner's role, not even the owner (409 \`owner-protected\`: it changes hands only by transfer), and only the owner makes a member an admin or changes an admin's role (403 \`forbidden-role\`). ${seenWithin}`,
    request: {
      params: z.object({ userId: z.string().meta({ description: 'The member\'s user id. Another organization\'s member is answered 404, exactly as a missing one.', examples: [ids.member] }) }),
      ...jsonBody(updateMemberRequest.meta({ id: 'UpdateMemberRequest' }), { role: 'viewer' }),
    },
    responses: {
      200: { description: 'The member as changed.', headers: { 'Cache-Control': noStore }, content: { [json]: { schema: memberResponse, example: { ...exampleMember, role: 'viewer' } } } },
      400: bodyRefused,
      401: unauthorized,
      404: problem(404, 'No member with this id in the caller\'s organization.', ['member-not-found']),
      409: problem(409, 'The member is the owner (`owner-protected`: its role changes only by handing the organization over), or concurrent requests kept changing the members (`organization-contended`; retry).', ['owner-protected', 'organization-contended']),
      413: jsonBodyTooLarge,
      415: notJson,
      503: storageUnavailable,
      500: internalError,
    },
  },
  {
    operationId: 'RemoveMember',
    method: 'delete',
    path: '/organization/members/{userId}',
    tags: ['Organizations'],
    security: bearer,
    summary: 'Remove a member, handing its envelopes and templates to another',
    description: [
      'Admin or owner; only the owner removes an admin (403 `forbidden-role`).',
      'The removed account\'s envelopes (every status, each recording `envelope.owner_changed` in its trail) and templates move to `transferTo`; recipients\' signing links keep working.',
      `Its API keys are deleted, its access tokens and keys are refused by every instance within ${(2 * MEMBERSHIP_CACHE_MS) / 1000} s, and the account is deleted (its address can register again).`,
      'A removal interrupted half-way is finished by the next DELETE of the same member (to the member named first) or by the sweeper.',
    ].join(' '),
    request: {
      params: z.object({ userId: z.string().meta({ description: 'The member\'s user id. Another organization\'s member is answered 404, exactly as a missing one.', examples: [ids.member] }) }),
      ...jsonBody(removeMemberRequest.meta({ id: 'RemoveMemberRequest' }), { transferTo: ids.organization }),
    },
    responses: {
      204: { description: 'Removed: everything it owned is `transferTo`\'s.' },
      400: problem(
        400,
        'The body is not JSON (`malformed-json`) or is refused (`validation-failed`): `transferTo` missing, the member removed itself, not a member of the organization, or a `viewer`.',
        ['validation-failed', 'malformed-json'],
      ),
      401: unauthorized,
      404: problem(404, 'No member with this id in the caller\'s organization.', ['member-not-found']),
      409: problem(
        409,
        'The member is the owner (`owner-protected`: hand the organization over first), the caller itself (`self-removal`), or concurrent requests kept changing the members (`organization-contended`; retry).',
        ['owner-protected', 'self-removal', 'organization-contended'],
      ),
      413: jsonBodyTooLarge,
      415: notJson,
      503: storageUnavailable,
      500: internalError,
    },
  },
  {
    operationId: 'TransferOrganization',
    method: 'post',
    path: '/organization/transfer',
    tags: ['Organizations'],
    security: bearer,
    summary: 'Hand the organization over to another member',
    description: `Owner only. The member becomes the owner and the caller an admin, together or not at all. ${seenWithin}`,
    request: jsonBody(transferOrganizationRequest.meta({ id: 'TransferOrganizationRequest' }), { userId: ids.member }),
    responses: {
      200: { description: 'The organization, with the caller\'s new role (`admin`).', headers: { 'Cache-Control': noStore }, content: { [json]: { schema: organizationResponse, example: exampleOrganization } } },
      400: bodyRefused,
      401: unauthorized,
      404: problem(404, 'No member with this id in the caller\'s organization.', ['member-not-found']),
      409: problem(409, '`userId` is the caller (`invalid-transfer-target`), or concurrent requests kept changing the members (`organization-contended`; retry).', ['invalid-transfer-target', 'organization-contended']),
      413: jsonBodyTooLarge,
      415: notJson,
      503: storageUnavailable,
      500: internalError,
    },
  },
];

/** Registers the organization endpoints under `paths`. */
export function registerOrganizationOperations(registry: OpenAPIRegistry): void {
  for (const operation of operations) registry.registerPath(operation);
}

/**
 * The owner operations every role may call (docs/api.md#roles), as `<method> <path>`: the guard never
 * answers them `forbidden-role`, so {@link describeRoles} adds nothing to them (the few that refuse a
 * role some requests, `GET /envelopes?scope=organization`, another member's envelope and another
 * sender's private template, say so themselves). `tests/e2e/openapi.test.ts` checks this against the roles each route registers.
 */
export const EVERY_ROLE_OPERATIONS: ReadonlySet<string> = new Set([
  'get /envelopes',
  'get /envelopes/{id}',
  'get /envelopes/{id}/audit',
  'get /templates',
  'get /templates/{id}',
  'get /bulk',
  'get /bulk/{id}',
  'get /bulk/{id}/rows',
  'get /apikeys',
  'post /ResendVerification',
  'get /organization',
  'get /organization/members',
]);

/** The sentence of every owner operation's 403 `forbidden-role`. */
const FORBIDDEN_ROLE = 'The caller\'s role in its organization does not allow this operation (`forbidden-role`; the detail names the roles needed; docs: Roles).';

/**
 * Adds 403 `forbidden-role` to every operation of `document` secured by `bearerAuth` (changed in
 * place) that some role may not call, beside any 403 it has: every owner route declares its roles,
 * and the guard refuses any other before the handler (docs/api.md#roles).
 * @returns `document`
 */
export function describeRoles(document: JsonObject, bearerAuth: string): JsonObject {
  const example = { summary: 'forbidden-role', value: problemExampleValue('forbidden-role', 403, problems['forbidden-role']) };
  for (const [path, item] of Object.entries(document.paths as Record<string, Record<string, JsonObject>>)) {
    for (const [method, operation] of Object.entries(item)) {
      if (typeof operation !== 'object' || operation === null || !('responses' in operation)) continue;
      if (!((operation.security ?? []) as JsonObject[]).some((requirement) => bearerAuth in requirement)) continue;
      if (EVERY_ROLE_OPERATIONS.has(`${method} ${path}`)) continue;
      const responses = operation.responses as JsonObject;
      const existing = responses['403'] as JsonObject | undefined;
      if (existing === undefined) {
        responses['403'] = { description: FORBIDDEN_ROLE, content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' }, examples: { 'forbidden-role': example } } } };
        continue;
      }
      const content = ((existing.content ?? {}) as JsonObject)['application/problem+json'] as JsonObject;
      responses['403'] = {
        ...existing,
        description: `${String(existing.description)} ${FORBIDDEN_ROLE}`,
        content: { ...(existing.content as JsonObject), 'application/problem+json': { ...content, examples: { ...((content.examples ?? {}) as JsonObject), 'forbidden-role': example } } },
      };
    }
  }
  return document;
}

// Compile-time ties between the schemas above and the types the service answers with.
matches<Matches<typeof organizationResponse, OrganizationView>>(true);
matches<Matches<typeof memberResponse, MemberView>>(true);
matches<Matches<typeof invitationResponse, OrganizationInvitationView>>(true);
matches<Matches<typeof purgeResponse, PurgeView>>(true);
