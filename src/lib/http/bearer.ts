/**
 * The bearer-token guard (RFC 6750): every protected route passes through {@link authenticate}.
 * The credential is an owner's access token (JWT) or, where allowed, an API key (`esk_...`,
 * docs/api.md#api-keys).
 */
import type { HttpRequest } from '@azure/functions';
import { authenticateApiKey, isApiKey } from '../auth/apiKeys.js';
import { verifyAccessToken } from '../auth/jwt.js';
import type { Actor } from '../envelopes/model.js';
import type { Services } from '../services.js';
import { clientIp, userAgent } from './requestInfo.js';
import { problem } from '../problems.js';

export interface AuthenticateOptions {
  /**
   * Whether an API key may stand for the owner (every owner endpoint but the key endpoints); when
   * not, a valid key gets 403 `jwt-required` (docs/api.md#api-keys). Default true.
   */
  acceptApiKeys?: boolean;
}

/**
 * The caller of a protected route. An API key (`esk_...`): as `auth/apiKeys.ts` checks it, the
 * caller's `apiKeyId` its id. An access token: token verified (algorithm, type, issuer, audience, expiry) and the
 * account still existing, so tokens of a deleted user stop working: at once on the instance that
 * deleted the user, within 5 s (`TOKEN_USER_CACHE_MS`, userRepository.ts) on the others, which may
 * answer the existence check from memory for an account they found that recently (it saves a
 * storage read on nearly every request); `apiKeyId` is `null`. Either way the caller comes with its
 * organisation and role (`memberOf`).
 * @throws AppError 401 with `WWW-Authenticate: Bearer` (and `error="invalid_token"` when a token was
 *   sent); 403 `jwt-required` for a valid API key where only an access token is accepted
 */
export async function authenticate(request: HttpRequest, services: Services, { acceptApiKeys = true }: AuthenticateOptions = {}): Promise<Actor> {
  const header = request.headers.get('authorization');
  const match = header === null ? null : /^Bearer[ ]+([A-Za-z0-9._~+/-]+=*)[ ]*$/i.exec(header);
  if (header === null || header.trim() === '') {
    throw problem('missingToken');
  }
  if (match === null) {
    throw problem('invalidToken', { detail: 'The Authorization header must be "Bearer <token>".', headers: { 'WWW-Authenticate': 'Bearer error="invalid_request"' } });
  }
  const credential = match[1]!;
  if (isApiKey(credential)) {
    const caller = await authenticateApiKey(credential, services);
    if (!acceptApiKeys) {
      throw problem('jwtRequired');
    }
    const membership = await memberOf(caller, services);
    return { userId: caller.userId, email: caller.email, emailVerified: caller.emailVerified, name: caller.name, ip: clientIp(request), userAgent: userAgent(request), apiKeyId: caller.apiKeyId, ...membership };
  }
  const claims = await verifyAccessToken(credential, services.config.jwt);
  const user = await services.users.findForToken(claims.email);
  if (user === null || user.userId !== claims.sub) {
    throw problem('invalidToken', { headers: { 'WWW-Authenticate': 'Bearer error="invalid_token"' } });
  }
  const membership = await memberOf(user, services);
  return { userId: user.userId, email: user.email, emailVerified: user.emailVerified, name: user.name, ip: clientIp(request), userAgent: userAgent(request), apiKeyId: null, ...membership };
}

/**
 * The caller's organisation and role (docs/api.md#organizations), made on the first request of an
 * account that has none yet (docs/api.md#accounts-made-before-organizations). A member being removed
 * is refused like a deleted account.
 * @throws AppError 401 `invalid-token` for a member whose removal is in progress
 */
async function memberOf(account: { userId: string; email: string; name: string | null }, services: Services): Promise<Pick<Actor, 'organizationId' | 'role'>> {
  const membership = await services.organizations.membershipForRequest(account);
  if (membership.removing) throw problem('invalidToken', { headers: { 'WWW-Authenticate': 'Bearer error="invalid_token"' } });
  return { organizationId: membership.organizationId, role: membership.role };
}
