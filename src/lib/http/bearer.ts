/**
 * The bearer-token guard (RFC 6750): every protected route passes through {@link authenticate}.
 */
import type { HttpRequest } from '@azure/functions';
import { AppError } from '../errors.js';
import { verifyAccessToken } from '../auth/jwt.js';
import type { Actor } from '../envelopes/model.js';
import type { Services } from '../services.js';
import { clientIp, userAgent } from './requestInfo.js';

/**
 * The caller of a protected route: token verified (algorithm, type, issuer, audience, expiry) and the
 * account still existing, so tokens of a deleted user stop working: at once on the instance that
 * deleted the user, within 5 s (`TOKEN_USER_CACHE_MS`, userRepository.ts) on the others, which may
 * answer the existence check from memory for an account they found that recently (it saves a
 * storage read on nearly every request).
 * @throws AppError 401 with `WWW-Authenticate: Bearer` (and `error="invalid_token"` when a token was sent)
 */
export async function authenticate(request: HttpRequest, services: Services): Promise<Actor> {
  const header = request.headers.get('authorization');
  const match = header === null ? null : /^Bearer[ ]+([A-Za-z0-9._~+/-]+=*)[ ]*$/i.exec(header);
  if (header === null || header.trim() === '') {
    throw new AppError('unauthorized', 'This endpoint needs an access token: send Authorization: Bearer <token>.', { type: 'missing-token' });
  }
  if (match === null) {
    throw new AppError('unauthorized', 'The Authorization header must be "Bearer <token>".', {
      type: 'invalid-token',
      headers: { 'WWW-Authenticate': 'Bearer error="invalid_request"' },
    });
  }
  const claims = await verifyAccessToken(match[1]!, services.config.jwt);
  const user = await services.users.findForToken(claims.email);
  if (user === null || user.userId !== claims.sub) {
    throw new AppError('unauthorized', 'The access token is invalid.', {
      type: 'invalid-token',
      headers: { 'WWW-Authenticate': 'Bearer error="invalid_token"' },
    });
  }
  return { userId: user.userId, email: user.email, emailVerified: user.emailVerified, name: user.name, ip: clientIp(request), userAgent: userAgent(request) };
}
