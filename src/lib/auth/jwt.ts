/**
 * Access tokens: JWT signed HS256 (CONTRACT §2), shaped as RFC 9068 (`typ: at+jwt`) and verified as
 * RFC 8725 advises: one pinned algorithm, required `exp`/`iat`/`sub`, `iss` and `aud` checked.
 */
import { randomUUID, webcrypto } from 'node:crypto';
import { SignJWT, jwtVerify, errors as joseErrors } from 'jose';
import { AppError } from '../errors.js';
import type { Config } from '../config.js';

export const TOKEN_TYPE = 'at+jwt';
/** Clock skew tolerated when checking `exp`, `iat` and `nbf`, seconds. */
export const CLOCK_TOLERANCE_SECONDS = 60;

export interface TokenClaims {
  /** userId */
  sub: string;
  email: string;
  role: 'user';
}

export interface IssuedToken {
  token: string;
  /** Seconds until expiry. */
  expiresIn: number;
}

const hmacKeys = new WeakMap<Uint8Array, Promise<webcrypto.CryptoKey>>();

/**
 * The HS256 key for `secret`, imported once per process: given raw bytes, jose imports them again on
 * every call, one more WebCrypto job (on libuv's thread pool) per request.
 */
function hmacKey(secret: Uint8Array): Promise<webcrypto.CryptoKey> {
  let key = hmacKeys.get(secret);
  if (key === undefined) {
    key = webcrypto.subtle.importKey('raw', secret, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign', 'verify']);
    hmacKeys.set(secret, key);
  }
  return key;
}

/** Signs an access token for `claims`, valid `jwt.ttlSeconds` from now. */
export async function issueAccessToken(claims: TokenClaims, jwt: Config['jwt']): Promise<IssuedToken> {
  const token = await new SignJWT({ email: claims.email, role: claims.role })
    .setProtectedHeader({ alg: 'HS256', typ: TOKEN_TYPE })
    .setSubject(claims.sub)
    .setIssuer(jwt.issuer)
    .setAudience(jwt.audience)
    .setIssuedAt()
    .setExpirationTime(`${jwt.ttlSeconds}s`)
    .setJti(randomUUID())
    .sign(await hmacKey(jwt.secret));
  return { token, expiresIn: jwt.ttlSeconds };
}

/**
 * Verifies an access token and returns its claims.
 * @throws AppError `unauthorized` (401) for any token that is malformed, signed otherwise, of another
 *   algorithm or type, expired, not yet valid, or for another issuer or audience. The cause (never the
 *   token) is kept for the log.
 */
export async function verifyAccessToken(token: string, jwt: Config['jwt']): Promise<TokenClaims> {
  try {
    const { payload } = await jwtVerify(token, await hmacKey(jwt.secret), {
      algorithms: ['HS256'],
      typ: TOKEN_TYPE,
      issuer: jwt.issuer,
      audience: jwt.audience,
      requiredClaims: ['exp', 'iat', 'sub'],
      clockTolerance: CLOCK_TOLERANCE_SECONDS,
    });
    if (typeof payload.sub !== 'string' || typeof payload.email !== 'string' || payload.role !== 'user') {
      throw new joseErrors.JWTClaimValidationFailed('unexpected claim shapes', payload);
    }
    return { sub: payload.sub, email: payload.email, role: 'user' };
  } catch (error) {
    const expired = error instanceof joseErrors.JWTExpired;
    throw new AppError('unauthorized', expired ? 'The access token has expired.' : 'The access token is invalid.', {
      type: 'invalid-token',
      headers: { 'WWW-Authenticate': 'Bearer error="invalid_token"' },
      cause: error instanceof Error ? `${error.name}: ${(error as { code?: string }).code ?? ''}` : undefined,
    });
  }
}
