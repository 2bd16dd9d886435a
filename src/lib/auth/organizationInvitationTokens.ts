/**
 * The tokens of invitations to an organisation (docs/api.md#invitations-to-an-organization): `oinv_`
 * and base64url of HMAC-SHA256 over the invitation's id, with a key derived (HKDF) from `JWT_SECRET`.
 * The token is never stored: the invitation keeps its SHA-256 (what Register looks it up by), and the
 * e-mail's sender derives it again from the id the outbox carries, so it exists only in the e-mail.
 */
import { createHmac, hash, hkdfSync } from 'node:crypto';

/** What every organisation invitation token starts with. */
export const ORGANIZATION_INVITATION_PREFIX = 'oinv_';

function invitationKey(jwtSecret: Uint8Array): Uint8Array {
  return new Uint8Array(hkdfSync('sha256', jwtSecret, new Uint8Array(0), 'envelope-signing/organization-invitation/v1', 32));
}

/** The token of invitation `invitationId` (deterministic: the same id gives the same token). */
export function organizationInvitationToken(jwtSecret: Uint8Array, invitationId: string): string {
  return ORGANIZATION_INVITATION_PREFIX + createHmac('sha256', invitationKey(jwtSecret)).update(invitationId, 'utf8').digest('base64url');
}

/** Lower-case hex SHA-256 of a token (UTF-8): how an invitation is stored and looked up. */
export function organizationInvitationSha256(token: string): string {
  return hash('sha256', token, 'hex');
}

/** The link of an invitation e-mail: `<publicBaseUrl>/api/console#join=<token>`. */
export function organizationInvitationUrl(publicBaseUrl: string, token: string): string {
  return `${publicBaseUrl}/api/console#join=${token}`;
}
