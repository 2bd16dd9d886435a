/**
 * Roles ([docs/api.md#roles](../../docs/api.md#roles)): every owner route (`bearer`, `jwt`) declares
 * in its registration the roles it admits, and the guard refuses any other with 403
 * `forbidden-role` before the handler. The table below names every owner route with the roles the
 * rule gives it (viewers read and change nothing; senders change their own envelopes, templates and
 * API keys; admins and the owner everything, webhooks and the organisation only they; handing the
 * organisation over only the owner): an owner route missing here, or registered with other roles,
 * fails the first test. Over real HTTP, for every method of every owner route and every role it does
 * not admit, a member with that role gets 403 `forbidden-role` naming the roles needed, and nothing
 * changes: the member's own envelope and template (which the handlers would change), the
 * organisation, its members and invitations, the owner's webhooks and the member's API keys are as
 * before.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { RegisteredRoute } from '../../src/lib/http/register.js';
import type { Role } from '../../src/lib/organizations/roles.js';
import { loadFunctions } from '../../src/local/loadFunctions.js';
import { joinedMember } from '../support/organizations.js';
import { patience } from '../support/patience.js';
import { createEnvelopeWithDocument, expectType, startTestService, type TestService, type TestUser } from '../support/service.js';

const EVERY: Role[] = ['owner', 'admin', 'sender', 'viewer'];
const CHANGING: Role[] = ['owner', 'admin', 'sender'];
const MANAGING: Role[] = ['owner', 'admin'];

/** Every owner route, by function name, with the roles it admits. */
const rules: Record<string, Role[]> = {
  GetEnvelope: EVERY,
  ListEnvelopes: EVERY,
  GetAuditTrail: EVERY,
  DownloadEnvelope: EVERY,
  GetEnvelopeAttachment: EVERY,
  ListEnvelopeAttachments: EVERY,
  GetTemplate: EVERY,
  ListTemplates: EVERY,
  ListApiKeys: EVERY,
  ResendVerification: EVERY,
  GetOrganization: EVERY,
  ListMembers: EVERY,
  GetUploadUrl: CHANGING,
  UpdateEnvelope: CHANGING,
  CompleteEnvelope: CHANGING,
  DeleteEnvelope: CHANGING,
  DetectEnvelopeFields: CHANGING,
  AddEnvelopeDocument: CHANGING,
  UpdateEnvelopeDocument: CHANGING,
  DeleteEnvelopeDocument: CHANGING,
  ResendInvitation: CHANGING,
  CreateRecipientView: CHANGING,
  CreateTemplate: CHANGING,
  UpdateTemplate: CHANGING,
  DeleteTemplate: CHANGING,
  DetectTemplateFields: CHANGING,
  AddTemplateDocument: CHANGING,
  UpdateTemplateDocument: CHANGING,
  DeleteTemplateDocument: CHANGING,
  CreateEnvelopeFromTemplate: CHANGING,
  CreateBulkJob: CHANGING,
  CancelBulkJob: CHANGING,
  GetBulkJob: EVERY,
  ListBulkJobRows: EVERY,
  ListBulkJobs: EVERY,
  CreateApiKey: CHANGING,
  DeleteApiKey: CHANGING,
  CreateWebhook: MANAGING,
  ListWebhooks: MANAGING,
  DeleteWebhook: MANAGING,
  ListWebhookDeliveries: MANAGING,
  RedeliverWebhook: MANAGING,
  UpdateOrganization: MANAGING,
  ListPurges: MANAGING,
  CreateOrganizationInvitation: MANAGING,
  ListOrganizationInvitations: MANAGING,
  DeleteOrganizationInvitation: MANAGING,
  UpdateMember: MANAGING,
  RemoveMember: MANAGING,
  TransferOrganization: ['owner'],
};

let env: TestService;
let owner: TestUser;
let ownerRoutes: RegisteredRoute[];
/** A member of each role but the owner, in the owner's organisation. */
const members: Partial<Record<Role, TestUser>> = {};
/** Ids the refused requests name: the member's own, so that a handler reached would change them. */
const ids: Record<string, string> = {};

beforeAll(async () => {
  env = await startTestService();
  owner = await env.newUser();
  ownerRoutes = (await loadFunctions()).filter((route) => route.access === 'bearer' || route.access === 'jwt');
  members.admin = await joinedMember(env.api, owner, 'admin');
  members.sender = await joinedMember(env.api, owner, 'sender');
  // The viewer was a sender first: it has an envelope, a template and an API key of its own.
  const viewer = await joinedMember(env.api, owner, 'sender');
  ids.envelope = await createEnvelopeWithDocument(env.api, viewer, null);
  const template = await env.api.request('POST', '/templates', { token: viewer.token, json: { name: 'Viewer template', filename: 'nda.pdf', mimetype: 'application/pdf' } });
  expect(template.status).toBe(201);
  ids.template = template.body.template.id as string;
  ids.apiKey = (await env.api.request('POST', '/apikeys', { token: viewer.token, json: { name: 'viewer key' } })).body.id as string;
  const webhook = await env.api.request('POST', '/webhooks', { token: owner.token, json: { url: 'https://93.184.215.14/hooks/roles' } });
  expect(webhook.status).toBe(201);
  ids.webhook = webhook.body.id as string;
  const invitation = await env.api.request('POST', '/organization/invitations', { token: owner.token, json: { email: `pending-${randomUUID()}@example.com`, role: 'viewer' } });
  ids.invitation = invitation.body.id as string;
  expect((await env.api.request('PATCH', `/organization/members/${viewer.userId}`, { token: owner.token, json: { role: 'viewer' } })).status).toBe(200);
  members.viewer = viewer;
}, patience(60_000));
afterAll(async () => {
  await env?.close();
});

function rolesOf(route: RegisteredRoute): Role[] {
  const roles = rules[route.name];
  if (roles === undefined) throw new Error(`owner route ${route.name} (${route.route}) has no entry in the roles table`);
  return roles;
}

/** The route's path with the ids of the member's own things in place of its parameters. */
function pathOf(route: RegisteredRoute, caller: TestUser): string {
  return `/${route.route}`
    .replace('{id}', route.route.startsWith('templates') ? ids.template! : route.route.startsWith('webhooks') ? ids.webhook! : route.route.startsWith('apikeys') ? ids.apiKey! : route.route.startsWith('organization/invitations') ? ids.invitation! : ids.envelope!)
    .replace('{recipientId}', randomUUID())
    // The document a template or an envelope was made with bears its id.
    .replace('{documentId}', route.route.startsWith('templates') ? ids.template! : ids.envelope!)
    .replace('{attachmentId}', randomUUID())
    .replace('{deliveryId}', randomUUID())
    .replace('{userId}', caller.userId);
}

/** What the refused requests must leave as it was. */
async function snapshot(): Promise<unknown[]> {
  const viewer = members.viewer!;
  const reads = [
    env.api.request('GET', `/envelopes/${ids.envelope!}`, { token: viewer.token }),
    env.api.request('GET', `/templates/${ids.template!}`, { token: viewer.token }),
    env.api.request('GET', '/apikeys', { token: viewer.token }),
    env.api.request('GET', '/organization', { token: owner.token }),
    env.api.request('GET', '/organization/members', { token: owner.token }),
    env.api.request('GET', '/organization/invitations', { token: owner.token }),
    env.api.request('GET', '/webhooks', { token: owner.token }),
  ];
  return (await Promise.all(reads)).map((answer) => {
    expect(answer.status).toBe(200);
    // What moves with time or use, not with a change: a read URL's signature and expiry, a key's `lastUsedAt`.
    return JSON.parse(JSON.stringify(answer.body, (key, value: unknown) => (key === 'documentUrl' || key === 'lastUsedAt' ? undefined : value))) as unknown;
  });
}

describe('roles', () => {
  test('every owner route declares the roles of the table', () => {
    expect(ownerRoutes.length).toBeGreaterThan(0);
    for (const route of ownerRoutes) {
      expect({ name: route.name, roles: [...(route.roles ?? [])].sort() }).toEqual({ name: route.name, roles: [...rolesOf(route)].sort() });
    }
    // The table names no route that is not registered.
    expect(Object.keys(rules).sort()).toEqual(ownerRoutes.map((route) => route.name).sort());
  });

  test('a role a route does not admit gets 403 forbidden-role naming the roles needed, and nothing changes', async () => {
    const before = await snapshot();
    let refused = 0;
    for (const route of ownerRoutes) {
      const admitted = rolesOf(route);
      for (const role of EVERY.filter((candidate) => !admitted.includes(candidate))) {
        const caller = members[role as Exclude<Role, 'owner'>]!;
        for (const method of route.methods) {
          const answer = await env.api.request(method, pathOf(route, caller), { token: caller.token, ...(method === 'GET' || method === 'DELETE' ? {} : { json: {} }) });
          expectType(answer, 403, 'forbidden-role');
          for (const needed of admitted) expect(answer.body.detail).toContain(needed);
          expect(answer.body.detail).toContain(role);
          refused++;
        }
      }
    }
    expect(refused).toBeGreaterThanOrEqual(39);
    expect(await snapshot()).toEqual(before);
  }, patience(120_000));

  test('a role a route admits is let through to the handler', async () => {
    // One read every role may make, one change only senders and up may make, one only managers.
    for (const role of EVERY) {
      const caller = role === 'owner' ? owner : members[role]!;
      expect((await env.api.request('GET', '/organization', { token: caller.token })).body.role).toBe(role);
    }
    expect((await env.api.request('GET', '/templates', { token: members.viewer!.token })).status).toBe(200);
    expect((await env.api.request('POST', '/GetUploadUrl', { token: members.sender!.token, json: { filename: 'a.pdf', mimetype: 'application/pdf' } })).status).toBe(201);
    expect((await env.api.request('GET', '/webhooks', { token: members.admin!.token })).status).toBe(200);
  });
});
