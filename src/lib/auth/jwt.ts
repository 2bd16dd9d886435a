/**
 * Access tokens: JWT signed HS256 (docs/api.md#accounts), shaped as RFC 9068 (`typ: at+jwt`) and verified as
 * RFC 8725 advises: one pinned algorithm, required `exp`/`iat`/`sub`, `iss` and `aud` checked.
 */
import { randomUUID, webcrypto } from 'node:crypto';
import { SignJWT, jwtVerify, errors as joseErrors } from 'jose';
import { AppError } from '../errors.js';
import type { Config } from '../config.js';
import { problem } from '../problems.js';

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

/** Most verified tokens {@link verifyAccessToken} remembers per key and settings (the oldest go first). */
export const VERIFIED_TOKEN_CACHE_ENTRIES = 10_000;

interface VerifiedToken {
  claims: TokenClaims;
  /** The token's `exp`, seconds since the epoch. */
  exp: number;
}

/** Tokens that passed every check of {@link verifyAccessToken}, by the settings they were checked against. */
const verifiedTokens = new WeakMap<Config['jwt'], Map<string, VerifiedToken>>();

/**
 * Verifies an access token and returns its claims.
 *
 * A token that passed is remembered (at most {@link VERIFIED_TOKEN_CACHE_ENTRIES} per settings
 * object, the oldest first out) with its claims, and the same string is then answered without
 * verifying its signature again (a WebCrypto job on libuv's thread pool, about 50 µs): the answer
 * cannot differ, since the signature, header and claims are the string's and the key, issuer and
 * audience are those of the same settings object. The one check that depends on time, `exp`, is
 * made on every call, as jose makes it (expired when `exp <= now - CLOCK_TOLERANCE_SECONDS`, `now`
 * in whole seconds), so a remembered token stops working at the same second as one verified anew.
 * @throws AppError `unauthorized` (401) for any token that is malformed, signed otherwise, of another
 *   algorithm or type, expired, not yet valid, or for another issuer or audience. The cause (never the
 *   token) is kept for the log.
 */
export async function verifyAccessToken(token: string, jwt: Config['jwt']): Promise<TokenClaims> {
  let remembered = verifiedTokens.get(jwt);
  const known = remembered?.get(token);
  if (known !== undefined) {
    if (known.exp > Math.floor(Date.now() / 1000) - CLOCK_TOLERANCE_SECONDS) return known.claims;
    remembered!.delete(token);
    throw invalidToken(true, 'JWTExpired: ERR_JWT_EXPIRED');
  }
  const verified = await verifyWithJose(token, jwt);
  if (remembered === undefined) {
    remembered = new Map();
    verifiedTokens.set(jwt, remembered);
  }
  // Oldest first out: a Map iterates in insertion order.
  if (remembered.size >= VERIFIED_TOKEN_CACHE_ENTRIES) remembered.delete(remembered.keys().next().value!);
  remembered.set(token, verified);
  return verified.claims;
}

async function verifyWithJose(token: string, jwt: Config['jwt']): Promise<VerifiedToken> {
  try {
    const { payload } = await jwtVerify(token, await hmacKey(jwt.secret), {
      algorithms: ['HS256'],
      typ: TOKEN_TYPE,
      issuer: jwt.issuer,
      audience: jwt.audience,
      requiredClaims: ['exp', 'iat', 'sub'],
      clockTolerance: CLOCK_TOLERANCE_SECONDS,
    });
    if (typeof payload.sub !== 'string' || typeof payload.email !== 'string' || payload.role !== 'user' || typeof payload.exp !== 'number') {
      throw new joseErrors.JWTClaimValidationFailed('unexpected claim shapes', payload);
    }
    return { claims: { sub: payload.sub, email: payload.email, role: 'user' }, exp: payload.exp };
  } catch (error) {
    throw invalidToken(error instanceof joseErrors.JWTExpired, error instanceof Error ? `${error.name}: ${(error as { code?: string }).code ?? ''}` : undefined);
  }
}

function invalidToken(expired: boolean, cause: string | undefined): AppError {
  return problem('invalidToken', { detail: expired ? 'The access token has expired.' : 'The access token is invalid.', headers: { 'WWW-Authenticate': 'Bearer error="invalid_token"' }, cause });
}
