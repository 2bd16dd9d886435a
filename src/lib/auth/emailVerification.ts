/**
 * Verified senders: an owner proves it reads mail at its address before the service sends anything
 * in its name. Register e-mails a link `<PUBLIC_BASE_URL>/api/verify-email#<token>` (through the
 * outbox, like every e-mail); its page posts the token to `POST /api/VerifyEmail`. While
 * `REQUIRE_EMAIL_VERIFICATION` is on, an unverified owner may create and edit drafts but not send or
 * complete (403 `email-unverified`); `POST /api/ResendVerification` e-mails a new link, at most once
 * per {@link VERIFICATION_RESEND_COOLDOWN_SECONDS} counting the Register e-mail.
 *
 * The token is stateless and never stored: `<base64url(address)>.<expiry, Unix seconds>.<base64url
 * HMAC-SHA256 over both>` with a key derived (HKDF) from `JWT_SECRET`. The outbox carries only the
 * expiry; the sender derives the token, so it exists only in the e-mail. A link works until it expires
 * (48 hours), and verifying twice is harmless.
 */
import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';
import type { Actor } from '../envelopes/model.js';
import { uuidv7 } from '../ids.js';
import type { EmailMessage, OutboxBatch } from '../notifications/outbox.js';
import type { Services } from '../services.js';
import { problem } from '../problems.js';

/** How long a verification link works, seconds (48 hours). */
export const VERIFICATION_TTL_SECONDS = 48 * 3600;
/** Shortest time between two verification e-mails to one address, seconds. */
export const VERIFICATION_RESEND_COOLDOWN_SECONDS = 60;

/** The HMAC key of verification tokens, derived from the JWT secret (its own HKDF label). */
export function verificationKey(jwtSecret: Uint8Array): Uint8Array {
  return new Uint8Array(hkdfSync('sha256', jwtSecret, new Uint8Array(0), 'envelope-signing/email-verification/v1', 32));
}

function mac(key: Uint8Array, encodedEmail: string, expires: number): Buffer {
  return createHmac('sha256', key).update(`${encodedEmail}.${expires}`, 'utf8').digest();
}

/**
 * The token of a verification link for `email`, valid until `expiresAt`.
 * @param expiresAt Unix seconds
 */
export function verificationToken(key: Uint8Array, email: string, expiresAt: number): string {
  const encoded = Buffer.from(email, 'utf8').toString('base64url');
  return `${encoded}.${expiresAt}.${mac(key, encoded, expiresAt).toString('base64url')}`;
}

/** The absolute link a verification e-mail carries: `<publicBaseUrl>/api/verify-email#<token>`. */
export function verificationUrl(publicBaseUrl: string, token: string): string {
  return `${publicBaseUrl}/api/verify-email#${token}`;
}

/**
 * The address a token verifies.
 * @throws AppError 400 `verification-token-invalid` for a token that is malformed, not ours, or expired
 */
export function verifiedAddress(key: Uint8Array, token: string, now: Date): string {
  const invalid = (detail: string) => problem('verificationTokenInvalid', { detail });
  const match = /^([A-Za-z0-9_-]{1,400})\.(\d{1,12})\.([A-Za-z0-9_-]{43})$/.exec(token);
  if (match === null) throw invalid('This verification link is not valid: open the link of your newest verification e-mail.');
  const [, encoded, expiresText, signature] = match as unknown as [string, string, string, string];
  const expected = mac(key, encoded, Number(expiresText));
  const given = Buffer.from(signature, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    throw invalid('This verification link is not valid: open the link of your newest verification e-mail.');
  }
  if (Number(expiresText) * 1000 <= now.getTime()) {
    throw invalid('This verification link has expired: log in and ask for a new one (POST /api/ResendVerification, or the console).');
  }
  return Buffer.from(encoded, 'base64url').toString('utf8');
}

/**
 * Refuses an owner who has not verified its address while verification is required.
 * @throws AppError 403 `email-unverified`
 */
export function assertVerifiedSender(actor: Pick<Actor, 'emailVerified'>, services: Pick<Services, 'config'>): void {
  if (services.config.requireEmailVerification && !actor.emailVerified) {
    throw problem('emailUnverified');
  }
}

/**
 * Queues a verification e-mail to `user` through the outbox (a batch of its own in the owner's
 * partition, dispatched at once; the sweeper re-dispatches it if this process dies first).
 * @returns when the batch is stored (its dispatch may still fail; the sweeper retries)
 */
export async function queueVerificationEmail({ services, user, now = new Date(), log = console.warn }: {
  services: Services;
  user: { userId: string; email: string };
  now?: Date;
  log?: (message: string) => void;
}): Promise<void> {
  const message: EmailMessage = {
    kind: 'email',
    type: 'verification',
    envelopeId: '',
    recipientId: null,
    to: { email: user.email, name: null },
    documentName: '',
    ownerEmail: user.email,
    // The link's expiry: the sender derives the token from the address and this.
    expiresAt: new Date(Math.floor(now.getTime() / 1000) * 1000 + VERIFICATION_TTL_SECONDS * 1000).toISOString(),
    reason: null,
    declinedBy: null,
    linkSalt: null,
  };
  const batch: OutboxBatch = { id: uuidv7(), ownerId: user.userId, envelopeId: '', createdAt: now.toISOString(), messages: [message] };
  const [, entity] = (await services.outbox.prepare(batch)) as ['create', Parameters<typeof services.storage.tables.envelopes.createEntity>[0]];
  await services.storage.tables.envelopes.createEntity(entity);
  await services.outbox.dispatch(batch, log, { justCommitted: true });
}

/** The link of a verification e-mail, from what the outbox carried (the address and the expiry). */
export function verificationLinkFor(services: Pick<Services, 'config'>, message: Pick<EmailMessage, 'to' | 'expiresAt'>): string {
  const { config } = services;
  const expires = Math.floor(Date.parse(message.expiresAt ?? '') / 1000);
  if (!Number.isFinite(expires)) throw new Error('A verification e-mail without its expiry');
  return verificationUrl(config.publicBaseUrl, verificationToken(verificationKey(config.jwt.secret), message.to.email, expires));
}

/**
 * `POST /api/VerifyEmail`: marks the token's address verified.
 * @returns the address
 * @throws AppError 400 `verification-token-invalid` (malformed, not ours, expired, or no such account)
 */
export async function verifyEmail({ services, token, now = new Date() }: { services: Services; token: string; now?: Date }): Promise<{ email: string }> {
  const email = verifiedAddress(verificationKey(services.config.jwt.secret), token, now);
  if (!(await services.users.markVerified(email))) {
    throw problem('verificationTokenInvalid');
  }
  return { email };
}

/**
 * `POST /api/ResendVerification`: e-mails the owner a new link.
 * @throws AppError 409 `email-already-verified`; 429 `verification-too-soon` with Retry-After
 */
export async function resendVerification({ services, actor, now = new Date(), log }: { services: Services; actor: Actor; now?: Date; log?: (message: string) => void }): Promise<void> {
  const claim = await services.users.claimVerificationSend(actor.email, now, VERIFICATION_RESEND_COOLDOWN_SECONDS);
  switch (claim.outcome) {
    case 'verified':
      throw problem('emailAlreadyVerified');
    case 'too-soon':
      throw problem('verificationTooSoon', { detail: `A verification e-mail went out less than ${VERIFICATION_RESEND_COOLDOWN_SECONDS} seconds ago: check your inbox, or retry in ${claim.retryAfterSeconds} s.`, retryAfterSeconds: claim.retryAfterSeconds });
    case 'gone':
      throw problem('invalidToken', { headers: { 'WWW-Authenticate': 'Bearer error="invalid_token"' } });
    case 'claimed':
      await queueVerificationEmail({ services, user: actor, now, ...(log === undefined ? {} : { log }) });
  }
}
