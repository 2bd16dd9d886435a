/**
 * Organisations in tests (docs/api.md#organizations): members joined through the API's own
 * invitations, and accounts written as the code before organisations wrote them.
 */
import { randomUUID } from 'node:crypto';
import { organizationInvitationToken } from '../../src/lib/auth/organizationInvitationTokens.js';
import { passwordHashing } from '../../src/lib/auth/password.js';
import { uuidv7 } from '../../src/lib/ids.js';
import type { Role } from '../../src/lib/organizations/roles.js';
import { getServices } from '../../src/lib/services.js';
import type { ApiClient, TestUser } from './service.js';

/**
 * The token of an invitation: the e-mail carries it; the test derives it as the service does
 * (`auth/organizationInvitationTokens.ts`), from the invitation's id and this process's `JWT_SECRET`.
 */
export function invitationTokenOf(invitationId: string): string {
  return organizationInvitationToken(getServices().config.jwt.secret, invitationId);
}

/**
 * Invites a new address to `by`'s organisation with `role`, registers it with the invitation and logs
 * it in.
 * @throws Error when a step does not answer as it should
 */
export async function joinedMember(api: ApiClient, by: TestUser, role: Exclude<Role, 'owner'>, name?: string): Promise<TestUser> {
  const email = `member-${randomUUID()}@example.com`;
  const password = `pw-${randomUUID()}`;
  const invited = await api.request('POST', '/organization/invitations', { token: by.token, json: { email, role } });
  if (invited.status !== 201) throw new Error(`invitation failed: ${invited.status} ${invited.text}`);
  const registered = await api.request('POST', '/Register', { json: { email, password, organizationInvitation: invitationTokenOf(invited.body.id as string), ...(name === undefined ? {} : { name }) } });
  if (registered.status !== 201) throw new Error(`register failed: ${registered.status} ${registered.text}`);
  const loggedIn = await api.request('POST', '/Login', { json: { email, password } });
  if (loggedIn.status !== 200) throw new Error(`login failed: ${loggedIn.status} ${loggedIn.text}`);
  return { email, password, userId: registered.body.userId as string, token: loggedIn.body.token as string };
}

/**
 * An account as the code before organisations made it: its `users` row only (written with the same
 * repository and fields as that Register wrote), no organisation. Log it in with its password.
 */
export async function accountWithoutOrganization(): Promise<{ email: string; password: string; userId: string }> {
  const services = getServices();
  const email = `legacy-${randomUUID()}@example.com`;
  const password = `pw-${randomUUID()}`;
  const userId = uuidv7();
  const passwordHash = await passwordHashing(services.config.limits.maxConcurrentPasswordHashes).hash(password, services.config.bcryptCost);
  await services.users.insert({ userId, email, role: 'user', passwordHash, createdAt: new Date().toISOString(), emailVerified: true, verificationSentAt: null, name: null });
  return { email, password, userId };
}

/**
 * The id of the user's organisation, read from storage (no request: nothing counted toward the
 * caller's rate limits).
 * @throws Error when the account belongs to no organisation
 */
export async function organizationIdOf(user: Pick<TestUser, 'userId'>): Promise<string> {
  const organizationId = await getServices().organizations.organizationOf(user.userId, async () => null);
  if (organizationId === null) throw new Error(`account ${user.userId} belongs to no organization`);
  return organizationId;
}
