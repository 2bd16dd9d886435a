/**
 * The signing-token guard (docs/api.md#sending-and-signing-order, docs/api.md#the-recipients-api): the recipient's endpoints authenticate with
 * `Authorization: Bearer <signing token>` only. This module reads the token and the client's address
 * from the request; who the token names, and whether its link still works, is the recipients' domain
 * (`src/lib/recipients/signingCaller.ts`). Owner JWTs are refused here, as signing tokens are on the
 * owner's endpoints (they are not JWTs).
 */
import type { HttpRequest } from '@azure/functions';
import { resolveSigningToken, type SigningCaller } from '../recipients/signingCaller.js';
import type { Services } from '../services.js';
import { clientIp, userAgent } from './requestInfo.js';

/**
 * Resolves the request's signing token.
 * @throws AppError 401 `invalid-token` with `WWW-Authenticate: Bearer error="invalid_token"` for a
 *   missing, malformed, unknown, replaced or expired token (the same answer for each)
 */
export async function authenticateSigningToken(request: HttpRequest, services: Services, now: Date = new Date()): Promise<SigningCaller> {
  const header = request.headers.get('authorization') ?? '';
  const token = /^Bearer[ ]+(\S+)[ ]*$/i.exec(header)?.[1];
  return await resolveSigningToken({ services, token, ip: clientIp(request), userAgent: userAgent(request), now });
}
