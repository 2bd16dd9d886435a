/**
 * The guards `register.ts` runs before a `bearer` or `signing` handler, bound to this process's
 * services. A module of its own so that they, and what they load (jose, zod, the services and the
 * storage SDKs), load with the first guarded request instead of when the function files are imported.
 */
import type { HttpRequest } from '@azure/functions';
import type { Actor } from '../envelopes/model.js';
import { getServices } from '../services.js';
import { assertRole, type Role } from '../organizations/roles.js';
import { authenticate, type AuthenticateOptions } from './bearer.js';
import { assertAuthenticated, assertNotLocked } from '../envelopes/authenticationSettings.js';
import type { SigningCaller } from '../recipients/signingCaller.js';
import type { SigningAuthentication } from './register.js';
import { authenticateSigningToken } from './signingToken.js';

/**
 * The owner behind the request's access token or API key (`bearer.ts` {@link authenticate}), whose role
 * in its organisation must be one of `roles` (docs/api.md#roles).
 * @throws AppError 401; 403 `jwt-required` for an API key where `acceptApiKeys` is false; 403
 *   `forbidden-role` for a role not among `roles`
 */
export async function authenticateOwner(request: HttpRequest, options: AuthenticateOptions & { roles: readonly Role[] }): Promise<Actor> {
  const { roles, ...authentication } = options;
  const caller = await authenticate(request, getServices(), authentication);
  assertRole(caller.role, roles);
  return caller;
}

/** The recipient behind the request's signing token (`signingToken.ts`), with its envelope. @throws AppError 401 `invalid-token` */
export async function authenticateRecipient(request: HttpRequest): Promise<SigningCaller> {
  return await authenticateSigningToken(request, getServices());
}

/**
 * Signer authentication, right after the token, for every signing route
 * ([docs/api.md#signer-authentication](../../../docs/api.md#signer-authentication)): a locked link →
 * 423; with `'after'`, a recipient that has not entered its code (or whose authentication expired) → 403.
 * @throws AppError 423 `authentication-locked`, 403 `authentication-required`
 */
export function checkSignerAuthentication(caller: SigningCaller, when: SigningAuthentication, now: Date = new Date()): void {
  if (when === 'before') assertNotLocked(caller.recipient);
  else assertAuthenticated(caller.recipient, now, getServices().config.signingAuthTtlSeconds);
}
