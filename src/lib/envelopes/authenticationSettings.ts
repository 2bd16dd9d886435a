/**
 * Signer authentication settings and state (docs/api.md#signer-authentication), without the operations
 * (`authentication.ts`): what a signer entry may say, how a draft stores it (the access code hashed),
 * and the checks every signing request makes. See `authentication.ts` for the whole design.
 */
import { z } from 'zod';
import { passwordHashing } from '../auth/password.js';
import type { EnvelopeRecord, Signer, SignerAuthentication } from './model.js';
import { AppError } from '../errors.js';
import type { Services } from '../services.js';
import { problem } from '../problems.js';

/** Wrong codes in a row that lock a link. */
export const MAX_ATTEMPTS = 5;
/** How long a one-time code works, seconds. */
export const OTP_TTL_SECONDS = 600;
/** Least time between two one-time codes to one link, by e-mail or text message, seconds. */
export const OTP_COOLDOWN_SECONDS = 60;
/** Most one-time codes per link, e-mailed and texted together (a resend gives a new link). */
export const MAX_OTPS = 5;
/** Shortest and longest access code, characters. */
export const MIN_ACCESS_CODE = 4;
export const MAX_ACCESS_CODE = 64;


/** `authentication` of a signer in a request (docs/api.md#signer-authentication). */
export const authenticationInput = z
  .discriminatedUnion('method', [
    z.strictObject({ method: z.literal('none') }),
    z.strictObject({
      method: z.literal('accessCode'),
      code: z
        .string({ error: `must be a string of ${MIN_ACCESS_CODE} to ${MAX_ACCESS_CODE} characters` })
        .min(MIN_ACCESS_CODE, `must be ${MIN_ACCESS_CODE} to ${MAX_ACCESS_CODE} characters`)
        .max(MAX_ACCESS_CODE, `must be ${MIN_ACCESS_CODE} to ${MAX_ACCESS_CODE} characters`)
        .optional()
        .meta({
          description: `${MIN_ACCESS_CODE} to ${MAX_ACCESS_CODE} characters, given to the recipient by the owner out of band; stored only as a slow hash and never returned. May be left out for a signer kept by \`id\` that already has an access code: its code stays.`,
          examples: ['blue-harbour-42'],
        }),
    }),
    z.strictObject({ method: z.literal('emailOtp') }),
    z.strictObject({ method: z.literal('sms') }),
  ])
  .meta({
    id: 'SignerAuthenticationInput',
    description:
      'How the recipient proves who it is beyond its signing link: `none` (default for a new signer; a kept signer sent without `authentication` keeps its own), `accessCode` (a code the owner gives the recipient), `emailOtp` (a 6-digit code e-mailed on request), or `sms` (a 6-digit code sent by text message to the recipient\'s `phone` on request; needs `phone`, 400 naming it otherwise).',
  });
export type AuthenticationInput = z.infer<typeof authenticationInput>;

/** What the recipient sends to authenticate. */
export const authenticateRequest = z
  .strictObject({
    code: z
      .string({ error: 'must be a string' })
      .min(1, 'must not be empty')
      .max(MAX_ACCESS_CODE, `must be at most ${MAX_ACCESS_CODE} characters`)
      .meta({ description: 'The access code, or the 6-digit one-time code of the newest e-mail or text message.', examples: ['123456'] }),
  })
  .meta({ id: 'AuthenticateRequest' });
export type AuthenticateRequest = z.infer<typeof authenticateRequest>;

/** A signer's `authentication` as a draft stores it, the access code already hashed. */
export type PreparedAuthentication = { method: 'none' } | { method: 'accessCode'; codeHash: string | null } | { method: 'emailOtp' } | { method: 'sms' };

/**
 * Hashes the access codes of a signer list, once per request (outside any retry): bcrypt with
 * `BCRYPT_COST`, through the bounded hashing of `auth/password.ts`.
 * @returns per entry, the setting with its hash (`codeHash: null`: keep the signer's current code), or
 *   `undefined` when the entry sent no `authentication`
 * @throws AppError 503 `password-hashing-busy` when hashing is full
 */
export async function prepareAuthentication(services: Services, inputs: readonly { authentication?: AuthenticationInput | undefined }[]): Promise<(PreparedAuthentication | undefined)[]> {
  const hashing = passwordHashing(services.config.limits.maxConcurrentPasswordHashes);
  return await Promise.all(
    inputs.map(async ({ authentication }): Promise<PreparedAuthentication | undefined> => {
      if (authentication === undefined) return undefined;
      if (authentication.method !== 'accessCode') return { method: authentication.method };
      return { method: 'accessCode', codeHash: authentication.code === undefined ? null : await hashing.hash(authentication.code, services.config.bcryptCost) };
    }),
  );
}

/**
 * The stored authentication of a signer after a draft's update: `prepared` (undefined: unchanged),
 * applied to the signer's current one.
 * @returns the new state, or `undefined` for `none`; `null` when `accessCode` came without a code and
 *   the signer has none to keep (the caller answers 400)
 */
export function nextAuthentication(current: SignerAuthentication | undefined, prepared: PreparedAuthentication | undefined): SignerAuthentication | undefined | null {
  if (prepared === undefined) return current;
  if (prepared.method === 'none') return undefined;
  if (prepared.method === 'emailOtp' || prepared.method === 'sms') return current?.method === prepared.method ? current : freshState(prepared.method);
  const codeHash = prepared.codeHash ?? (current?.method === 'accessCode' ? current.codeHash : undefined);
  if (codeHash === undefined) return null;
  return { ...freshState('accessCode'), codeHash };
}

function freshState(method: SignerAuthentication['method']): SignerAuthentication {
  return { method, attemptsLeft: MAX_ATTEMPTS, verifiedAt: null };
}

/** Starts the recipient's authentication over (a resend: a new link, 5 attempts, no pending code). */
export function resetAuthentication(signer: Signer): void {
  const fresh = startedAuthentication(signer.authentication);
  if (fresh !== undefined) signer.authentication = fresh;
}

/**
 * The same method as `current`, started over: 5 attempts, not verified, no pending one-time code; an
 * access code keeps its hash. What a resend gives the recipient, and what a recipient that takes over
 * another's part inherits ([docs/api.md#reassignment](../../../docs/api.md#reassignment)): the owner's
 * access code, which the owner passes on, or one-time codes sent to the new recipient's own address
 * or phone.
 * @returns `undefined` for a recipient without authentication
 */
export function startedAuthentication(current: SignerAuthentication | undefined): SignerAuthentication | undefined {
  if (current === undefined) return undefined;
  return current.method === 'accessCode' && current.codeHash !== undefined ? { ...freshState('accessCode'), codeHash: current.codeHash } : freshState(current.method);
}

/** Whether the recipient's current link counts as authenticated now (always, for `none`). */
export function isAuthenticated(signer: Signer, now: Date, ttlSeconds: number): boolean {
  const state = signer.authentication;
  if (state === undefined) return true;
  return state.verifiedAt !== null && state.attemptsLeft > 0 && now.getTime() < Date.parse(state.verifiedAt) + ttlSeconds * 1000;
}

/** The answer to anything on a locked link: 423 `authentication-locked`. */
export function locked(): AppError {
  return problem('authenticationLocked', { extensions: { attemptsLeft: 0 } });
}

/**
 * The authentication checks that come right after the token (docs/api.md#signer-authentication): a locked link → 423; an
 * unauthenticated one → 403.
 * @throws AppError 423 `authentication-locked`, 403 `authentication-required`
 */
export function assertAuthenticated(signer: Signer, now: Date, ttlSeconds: number): void {
  assertNotLocked(signer);
  if (!isAuthenticated(signer, now, ttlSeconds)) {
    throw problem('authenticationRequired', { extensions: { attemptsLeft: signer.authentication!.attemptsLeft } });
  }
}

/** @throws AppError 423 `authentication-locked` when wrong codes locked the link */
export function assertNotLocked(signer: Signer): void {
  if (signer.authentication !== undefined && signer.authentication.attemptsLeft <= 0) throw locked();
}

/** What `GET /api/signing` answers before the recipient authenticated (docs/api.md#signer-authentication): nothing of the document. */
export interface RestrictedRecipientView {
  authentication: { method: SignerAuthentication['method']; verified: false; attemptsLeft: number };
  envelope: { id: string; documentName: string; ownerEmail: string };
}

export function restrictedView(record: EnvelopeRecord, signer: Signer): RestrictedRecipientView {
  const state = signer.authentication!;
  return {
    authentication: { method: state.method, verified: false, attemptsLeft: state.attemptsLeft },
    envelope: { id: record.id, documentName: record.documentName, ownerEmail: record.ownerEmail ?? '' },
  };
}

