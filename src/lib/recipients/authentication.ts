/**
 * Signer authentication (docs/api.md#signer-authentication): a recipient may have to prove who it is beyond its signing
 * link, with an access code the owner gave it (`accessCode`) or a one-time code e-mailed to it
 * (`emailOtp`) or sent by text message to its phone (`sms`; by e-mail when the number opted out,
 * docs/api.md#opting-out-of-text-messages).
 *
 * - An access code (4 to 64 characters) is stored only as a bcrypt hash, made and compared through the
 *   bounded password hashing of `auth/password.ts`; responses show `{method}` only.
 * - A one-time code is 6 digits, valid {@link OTP_TTL_SECONDS} seconds, working once. As a signing
 *   token (`signingLinks.ts`), it derives from a random salt with a key derived from `JWT_SECRET`
 *   (HKDF, RFC 5869): the recipient and the outbox row keep the salt, the e-mail sender derives the
 *   code when it writes the e-mail, so no code is ever stored, logged or returned.
 * - The state (attempts left, when the current link was verified, the pending one-time code and how
 *   many were sent) lives on the recipient in the envelope row, written under its ETag: it holds
 *   across instances, and the signing `GET`, which reads the envelope anyway, costs no extra read.
 *   A verification counts for `SIGNING_AUTH_TTL_SECONDS`; a resend (new link) starts over.
 * - {@link MAX_ATTEMPTS} wrong codes in a row lock the link (423) until the owner resends.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { passwordHashing } from '../auth/password.js';
import { Change, commitChange } from '../envelopes/change.js';
import type { EnvelopeRecord, EventActor, Signer, SignerAuthentication } from '../envelopes/model.js';
import { AppError } from '../errors.js';
import type { Services } from '../services.js';
import { assertNotLocked, locked, MAX_ATTEMPTS, MAX_OTPS, OTP_COOLDOWN_SECONDS, OTP_TTL_SECONDS } from '../envelopes/authenticationSettings.js';
import { markOpened } from './recipientActions.js';
import { oneTimeCode } from './oneTimeCodes.js';
import { currentRecipient, mutateCallersEnvelope, type SigningCaller } from './signingCaller.js';
import { problem } from '../problems.js';
import { recordOptOut } from './smsOptOut.js';

function sameCode(given: string, expected: string): boolean {
  const a = Buffer.from(given, 'utf8');
  const b = Buffer.from(expected, 'utf8');
  return a.length === b.length && timingSafeEqual(a, b);
}

function recipientActor(recipient: Signer, caller: SigningCaller): EventActor {
  return { id: recipient.id, email: recipient.email, ip: caller.ip, userAgent: caller.userAgent, apiKeyId: null };
}

export interface AuthenticationOptions {
  services: Services;
  caller: SigningCaller;
  now?: Date;
  log?: (message: string) => void;
}

/**
 * `POST /api/signing/otp`: sends a new 6-digit code (the older one stops working) through the outbox,
 * by e-mail (`emailOtp`) or text message (`sms`). The cooldown and the cap count codes of both channels.
 * @throws AppError 423 locked; 409 `authentication-method-mismatch` when the recipient uses neither;
 *   429 `otp-too-soon` (with `Retry-After`) within 60 s of the previous code, `otp-limit` after 5
 *   codes for this link, `email-quota` or `sms-quota` past the organisation's daily quota
 */
export async function sendOneTimeCode({ services, caller, now = new Date(), log }: AuthenticationOptions): Promise<void> {
  // A number that opted out gets no code: it goes by e-mail (docs/api.md#opting-out-of-text-messages).
  // Read once, before the retries: a reply that lands meanwhile is caught by the text's sender.
  const phone = caller.recipient.authentication?.method === 'sms' ? caller.recipient.phone : undefined;
  const optOut = phone === undefined ? null : await services.smsNumbers.currentOptOut(phone);
  await mutateCallersEnvelope(services, caller, async (stored) => {
    const recipient = currentRecipient(stored.record, caller.recipientId, caller.tokenSha256, now);
    assertNotLocked(recipient);
    const state = recipient.authentication;
    if (state?.method !== 'emailOtp' && state?.method !== 'sms') {
      throw problem('authenticationMethodMismatch', { detail: 'This recipient does not receive one-time codes.' });
    }
    if ((state.otpsSent ?? 0) >= MAX_OTPS) {
      throw problem('otpLimit', { detail: `${MAX_OTPS} codes were already sent for this signing link: ask the sender to send you a new link.` });
    }
    const waitMs = state.lastOtpAt == null ? 0 : Date.parse(state.lastOtpAt) + OTP_COOLDOWN_SECONDS * 1000 - now.getTime();
    if (waitMs > 0) {
      throw problem('otpTooSoon', { detail: `A code was sent less than ${OTP_COOLDOWN_SECONDS} seconds ago; check your e-mail or text messages, or retry after the time in Retry-After.`, retryAfterSeconds: Math.ceil(waitMs / 1000) });
    }
    const change = new Change(stored.record, now);
    const signer = change.signer(recipient.id);
    const salt = randomBytes(32).toString('base64url');
    // `sms`: by text message to the recipient's phone, unless the number opted out (then by e-mail).
    const texted = state.method === 'sms' && signer.phone !== undefined && (optOut === null || optOut.number !== signer.phone);
    signer.authentication = {
      ...state,
      otpSalt: salt,
      otpExpiresAt: new Date(now.getTime() + OTP_TTL_SECONDS * 1000).toISOString(),
      otpsSent: (state.otpsSent ?? 0) + 1,
      lastOtpAt: change.at,
      otpChannel: texted ? 'sms' : 'email',
    };
    if (texted) {
      change.textCode(signer, salt);
    } else {
      if (state.method === 'sms' && optOut !== null) recordOptOut(change, signer, optOut);
      change.email('otp', signer, { otpSalt: salt });
    }
    change.chargeQuota();
    change.touch();
    await commitChange(services, stored, change, log === undefined ? {} : { log });
  });
}

/**
 * `POST /api/signing/authenticate`: checks the code. Right: the link counts as authenticated for
 * `SIGNING_AUTH_TTL_SECONDS`, attempts back to 5, a one-time code used up, `recipient.authenticated`.
 * Wrong: one attempt fewer, `recipient.authentication_failed`; at none left the link locks.
 * @returns the envelope and recipient after a right code
 * @throws AppError 423 locked (also for the wrong code that locks it); 403 `authentication-failed`
 *   with `attemptsLeft`; 409 `authentication-method-mismatch` for a recipient without authentication
 */
export async function authenticateRecipient({ services, caller, code, now = new Date(), log }: AuthenticationOptions & { code: string }): Promise<{ record: EnvelopeRecord; recipient: Signer }> {
  const first = currentRecipient(caller.stored.record, caller.recipientId, caller.tokenSha256, now);
  assertNotLocked(first);
  if (first.authentication === undefined) {
    throw problem('authenticationMethodMismatch');
  }
  // The slow comparison runs once, outside the retries, on the hash as the request read it.
  const accessCodeRight =
    first.authentication.method === 'accessCode' && first.authentication.codeHash !== undefined
      ? await passwordHashing(services.config.limits.maxConcurrentPasswordHashes).verify(code, first.authentication.codeHash)
      : false;
  let failure: AppError | null = null;
  const result = await mutateCallersEnvelope(services, caller, async (stored) => {
    const recipient = currentRecipient(stored.record, caller.recipientId, caller.tokenSha256, now);
    assertNotLocked(recipient);
    const state = recipient.authentication;
    if (state === undefined) throw problem('authenticationMethodMismatch');
    const right =
      state.method === 'accessCode'
        ? accessCodeRight && state.codeHash === first.authentication!.codeHash
        : state.otpSalt != null && state.otpExpiresAt != null && now.getTime() < Date.parse(state.otpExpiresAt) && sameCode(code.trim(), oneTimeCode(services.config.jwt.secret, state.otpSalt));
    const change = new Change(stored.record, now);
    const signer = change.signer(recipient.id);
    const by = recipientActor(signer, caller);
    if (right) {
      signer.authentication = { ...state, attemptsLeft: MAX_ATTEMPTS, verifiedAt: change.at, ...(state.method === 'accessCode' ? {} : { otpSalt: null, otpExpiresAt: null }) };
      change.event('recipient.authenticated', by, { recipientId: signer.id, ...codeProof(state, caller) });
      // The answer is the full view: the recipient has now opened the envelope.
      markOpened(change, signer, caller);
      failure = null;
    } else {
      const attemptsLeft = Math.max(0, state.attemptsLeft - 1);
      signer.authentication = { ...state, attemptsLeft, verifiedAt: null };
      change.event('recipient.authentication_failed', by, { recipientId: signer.id, ...codeProof(state, caller) });
      failure =
        attemptsLeft === 0
          ? locked()
          : problem('authenticationFailed', { detail: `The code is not right${state.method === 'accessCode' ? '' : ' (or no longer works: ask for a new one)'}; ${attemptsLeft} attempt${attemptsLeft === 1 ? '' : 's'} left.`, extensions: { attemptsLeft } });
    }
    const next = await commitChange(services, stored, change, log === undefined ? {} : { log });
    return { record: next, recipient: next.signers.find((candidate) => candidate.id === recipient.id)! };
  });
  if (failure !== null) throw failure;
  return result;
}

/**
 * What an authentication event records of the proof ([Evidence](../../../docs/api.md#evidence)): the
 * method, a one-time code's `channel` (`email`, or `sms` for a code sent by text message; an `sms`
 * recipient's code went by e-mail when its number had opted out), and the `credential` the code was
 * entered with.
 */
function codeProof(state: SignerAuthentication, caller: SigningCaller): { method: SignerAuthentication['method']; channel?: 'email' | 'sms'; credential: SigningCaller['credential'] } {
  const channel = state.method === 'accessCode' ? undefined : (state.otpChannel ?? (state.method === 'sms' ? 'sms' : 'email'));
  return { method: state.method, ...(channel === undefined ? {} : { channel }), credential: caller.credential };
}
