/**
 * Register and Login (docs/api.md#accounts).
 */
import { uuidv7 } from '../ids.js';
import { AppError } from '../errors.js';
import type { Config } from '../config.js';
import type { InvitationRepository } from '../storage/invitationRepository.js';
import { isUsable } from '../storage/invitationRepository.js';
import { emailTaken, type UserRepository } from '../storage/userRepository.js';
import type { LoginRequest, RegisterRequest } from './schemas.js';
import { issueAccessToken } from './jwt.js';
import { passwordHashing } from './password.js';
import { verifyCaptcha } from './turnstile.js';
import { queueVerificationEmail } from './emailVerification.js';
import type { Services } from '../services.js';
import type { LoginThrottle } from './loginThrottle.js';
import { problem } from '../problems.js';
import type { OrganizationRepository } from '../storage/organizationRepository.js';
import { organizationInvitationSha256 } from './organizationInvitationTokens.js';

export interface AccountDependencies {
  users: UserRepository;
  invitations: InvitationRepository;
  config: Config;
  /** Organisations: Register makes the new account the owner of one, or a member of the one it was invited to (docs/api.md#organizations). */
  organizations?: OrganizationRepository;
}

export interface RegisterOptions extends AccountDependencies {
  request: RegisterRequest;
  /** The services that queue the verification e-mail (required when verification is on). */
  services?: Services;
  remoteIp: string | null;
  now?: Date;
}

/**
 * Creates an account.
 * Order (docs/api.md#accounts): the captcha, then the invitation code (403 telling nothing else), then the
 * e-mail address (409, the code not consumed), then the code is consumed atomically, then the user is
 * inserted; if that insert loses a race for the address, the code's use is given back.
 * @returns the new userId
 * @throws AppError 403 (invalid captcha or invitation), 409 (address taken), 503 (captcha unavailable,
 *   `password-hashing-busy`)
 */
export async function register({ users, invitations, config, request, remoteIp, services, organizations, now = new Date() }: RegisterOptions): Promise<{ userId: string }> {
  const captcha = await verifyCaptcha(config.turnstile, { token: request.turnstileToken, remoteIp });
  if (captcha === 'failed') throw problem('captchaFailed');
  if (request.organizationInvitation !== undefined) {
    return await registerInvited({ users, config, request, services, organizations, now, token: request.organizationInvitation });
  }
  if (request.invitationCode === undefined) throw invalidInvitation();

  const invitation = await invitations.find(request.invitationCode);
  if (invitation === null || !isUsable(invitation, now)) throw invalidInvitation();
  if ((await users.findByEmail(request.email)) !== null) throw emailTaken();

  // Hash before consuming the code so a slow hash does not hold a use that may be given back.
  const passwordHash = await passwordHashing(config.limits.maxConcurrentPasswordHashes).hash(request.password, config.bcryptCost);
  if ((await invitations.consume(request.invitationCode, now)) !== 'consumed') throw invalidInvitation();
  const userId = uuidv7();
  const verify = config.requireEmailVerification;
  try {
    await users.insert({ userId, email: request.email, role: 'user', passwordHash, createdAt: now.toISOString(), emailVerified: false, verificationSentAt: verify ? now.toISOString() : null, name: request.name ?? null });
  } catch (error) {
    await invitations.release(request.invitationCode);
    throw error;
  }
  // The owner of an organisation of its own. The account exists whatever happens here: should this
  // fail or the process die first, the account's first request makes it
  // (docs/api.md#accounts-made-before-organizations).
  await organizations?.ensureMembership({ userId, email: request.email, name: request.name ?? null }, 'owner', null, now).catch((error: unknown) => {
    console.warn(`Register: the organization of user ${userId} was not made (its first request makes it): ${error instanceof Error ? error.message : String(error)}`);
  });
  if (verify && services !== undefined) {
    // The account exists whatever happens here: should the e-mail not be queued, the owner asks for
    // a new one (POST /api/ResendVerification) once logged in.
    await queueVerificationEmail({ services, user: { userId, email: request.email }, now }).catch((error: unknown) => {
      console.warn(`Register: the verification e-mail for user ${userId} was not queued (the owner can ask for another): ${error instanceof Error ? error.message : String(error)}`);
    });
  }
  return { userId };
}

/**
 * Register with an organisation's invitation (docs/api.md#invitations-to-an-organization): the token
 * must name a pending, unexpired invitation; the address must have no account (409); the invitation is
 * used up (a deletion only one request wins) before the account is made; the account's membership is
 * written before the account itself, so a process dying in between never leaves the account an
 * organisation of its own. The address counts as verified when it is the invited one.
 * @throws AppError 403 `invalid-invitation`, 409 `email-already-registered`
 */
async function registerInvited({ users, config, request, services, organizations, now, token }: Omit<RegisterOptions, 'invitations' | 'remoteIp'> & { now: Date; token: string }): Promise<{ userId: string }> {
  if (organizations === undefined) throw invalidInvitation();
  const invitation = await organizations.findInvitationByToken(organizationInvitationSha256(token));
  if (invitation === null || Date.parse(invitation.expiresAt) <= now.getTime()) throw invalidInvitation();
  if ((await users.findByEmail(request.email)) !== null) throw emailTaken();
  const passwordHash = await passwordHashing(config.limits.maxConcurrentPasswordHashes).hash(request.password, config.bcryptCost);
  if (!(await organizations.deleteInvitation(invitation))) throw invalidInvitation();
  const userId = uuidv7();
  const invitedAddress = invitation.email === request.email;
  const verify = config.requireEmailVerification && !invitedAddress;
  const account = { userId, email: request.email, name: request.name ?? null };
  await organizations.ensureMembership(account, invitation.role, invitation.organizationId, now);
  try {
    await users.insert({ userId, email: request.email, role: 'user', passwordHash, createdAt: now.toISOString(), emailVerified: invitedAddress, verificationSentAt: verify ? now.toISOString() : null, name: request.name ?? null });
  } catch (error) {
    await organizations.deleteMember(invitation.organizationId, userId);
    await organizations.restoreInvitation(invitation, Number.MAX_SAFE_INTEGER);
    throw error;
  }
  if (verify && services !== undefined) {
    await queueVerificationEmail({ services, user: { userId, email: request.email }, now }).catch((error: unknown) => {
      console.warn(`Register: the verification e-mail for user ${userId} was not queued (the owner can ask for another): ${error instanceof Error ? error.message : String(error)}`);
    });
  }
  return { userId };
}

function invalidInvitation(): AppError {
  return problem('invalidInvitation');
}

export interface LoginOptions extends AccountDependencies {
  request: LoginRequest;
  remoteIp: string | null;
  throttle?: LoginThrottle;
}

export interface LoginResult {
  token: string;
  /** `name`: the display name given at registration, or `null` (docs/api.md#accounts). */
  user: { userId: string; email: string; role: 'user'; emailVerified: boolean; name: string | null };
}

/**
 * Checks credentials and issues an access token.
 * Unknown address and wrong password give the same error after about the same time: an address
 * without an account waits as long as a comparison takes instead of hashing (`password.ts`
 * {@link PasswordHashing.verifyNoAccount}), and is refused with the same 503 when hashing is full, so
 * neither body, status nor timing tells them apart.
 * @throws AppError 401 (invalid credentials or captcha), 429 (throttled, with Retry-After), 503 (captcha
 *   unavailable, `password-hashing-busy`)
 */
export async function login({ users, config, request, remoteIp, throttle }: LoginOptions): Promise<LoginResult> {
  const captcha = await verifyCaptcha(config.turnstile, { token: request.turnstileToken, remoteIp });
  if (captcha === 'failed') {
    throw problem('captchaFailedLogin');
  }
  const hashing = passwordHashing(config.limits.maxConcurrentPasswordHashes);
  // A login refused for want of hashing capacity is refused before it is counted.
  hashing.assertAdmissible();
  // Counted before the password is checked, so parallel attempts cannot exceed the limit (docs/api.md#accounts).
  await throttle?.beginAttempt(request.email);
  const user = await users.findByEmail(request.email);
  const matches = user === null ? await hashing.verifyNoAccount(config.bcryptCost) : await hashing.verify(request.password, user.passwordHash);
  if (user === null || !matches) {
    throw problem('invalidCredentials');
  }
  await throttle?.recordSuccess(request.email);
  const { token } = await issueAccessToken({ sub: user.userId, email: user.email, role: user.role }, config.jwt);
  return { token, user: { userId: user.userId, email: user.email, role: user.role, emailVerified: user.emailVerified, name: user.name ?? null } };
}
