/**
 * Public links (docs/api.md#public-links): anyone who opens `<PUBLIC_BASE_URL>/api/sign/t/<publicId>`
 * gives a name and an e-mail address, gets a 6-digit code by e-mail, and with it an envelope of the
 * template, sent, in which that person takes the open role.
 *
 * What stands between the link and a flood of envelopes, in the order it is checked:
 * - the link itself: its row in `publicLinks` (one point read) and the template, which must still
 *   name that `publicId` as enabled (a disabled link, another template's id, a deleted template: 404);
 * - at start, the Turnstile token when `TURNSTILE_SECRET_KEY` is set (403 `captcha-failed`), before
 *   any limit; then {@link PUBLIC_LINK_STARTS_PER_HOUR} starts per client address and hour (429
 *   `rate-limited`); expiry (410 `link-expired`) and `maxUses` (410 `link-exhausted`); then
 *   {@link ENVELOPES_PER_ADDRESS_PER_DAY} envelopes and {@link CODES_PER_ADDRESS_PER_DAY} codes per
 *   address, UTC day and link (429 `public-link-limit`); then the owner's e-mail quota (429 `email-quota`);
 * - the code: only an HMAC of it is stored, it works for {@link CODE_TTL_MS}, {@link CODE_ATTEMPTS}
 *   wrong tries spend it (403 `authentication-failed` with `attemptsLeft`), and a right one is spent by
 *   a write conditional on the row as read, so two requests never both use one code;
 * - at verify, expiry again, then the same address within {@link REUSE_MS} gets the envelope it has
 *   (unless finished); else one use of `maxUses` is claimed with an ETag-conditional counter and the
 *   address's count of the day raised before the envelope is made, and both given back if it is not.
 */
import { createHmac, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';
import { verifyCaptcha } from '../auth/turnstile.js';
import { admitMessages, refundQuota, reserveQuota } from '../envelopes/dailyQuota.js';
import { isFinal, type Actor, type EnvelopeRecord } from '../envelopes/model.js';
import { PUBLIC_LINK_STARTS_PER_HOUR } from '../http/rateLimits.js';
import { uuidv7 } from '../ids.js';
import { recordedSigningLink } from '../notifications/outboxDelivery.js';
import type { EmailMessage, OutboxBatch } from '../notifications/outbox.js';
import { problem } from '../problems.js';
import { oneTimeCode } from '../recipients/oneTimeCodes.js';
import type { Services } from '../services.js';
import type { PublicLinkRow } from '../storage/publicLinkRepository.js';
import type { PublicLinkSettings, TemplateRecord } from '../templates/model.js';
import { useTemplate } from '../templates/createEnvelopeFromTemplate.js';
import type { StartPublicLinkRequest, VerifyPublicLinkRequest } from './schemas.js';

/** How long a code works, milliseconds (10 minutes). */
export const CODE_TTL_MS = 10 * 60_000;
/** Wrong codes that spend a code. */
export const CODE_ATTEMPTS = 5;
/** Envelopes one address may get from one link per UTC day. */
export const ENVELOPES_PER_ADDRESS_PER_DAY = 3;
/** Codes one address may be sent by one link per UTC day (so a link is no relay for mail to a stranger). */
export const CODES_PER_ADDRESS_PER_DAY = 10;
/** Within this long the same address gets the envelope it already has, milliseconds (24 hours). */
export const REUSE_MS = 24 * 3_600_000;
export { PUBLIC_LINK_STARTS_PER_HOUR };

/** Rounds of a conditional write lost to a concurrent request before the request gives up. */
const ROUNDS = 10;

/** A link that answers: its row, its template and the template's settings for it. */
interface OpenLink {
  row: PublicLinkRow;
  template: TemplateRecord;
  link: PublicLinkSettings;
}

export interface StartPublicLinkOptions {
  services: Services;
  publicId: string;
  request: StartPublicLinkRequest;
  /** The client's address, forwarded to Turnstile. */
  remoteIp: string | null;
  /** Counts the start against the client address's hourly limit; throws 429 `rate-limited` past it. */
  takeAddressLimit: () => Promise<void>;
  now?: Date;
  log?: (message: string) => void;
}

/**
 * `POST /api/public/{publicId}/start` (docs/api.md#public-links): e-mails the address a 6-digit code,
 * through the outbox, counted toward the owner's organisation's e-mail quota. A new start for the same
 * address replaces its pending code (and its tries).
 * @returns when the code stops working
 * @throws AppError 404 `public-link-not-found`; 403 `captcha-failed`; 503 `captcha-unavailable`; 429
 *   `rate-limited`, `public-link-limit`, `email-quota`; 410 `link-expired`, `link-exhausted`
 */
export async function startPublicLink({ services, publicId, request, remoteIp, takeAddressLimit, now = new Date(), log = console.warn }: StartPublicLinkOptions): Promise<{ expiresAt: string }> {
  const { row, template, link } = await openLink(services, publicId);
  const turnstile = services.config.turnstile;
  // With a secret, a token is always needed here (docs/api.md#public-links), whatever TURNSTILE_REQUIRED says.
  if (turnstile.secretKey !== undefined && (request.turnstileToken === undefined || request.turnstileToken === '')) throw problem('captchaFailed');
  if ((await verifyCaptcha(turnstile, { token: request.turnstileToken, remoteIp })) === 'failed') throw problem('captchaFailed');
  await takeAddressLimit();
  assertOpen(link, row, now);
  const day = utcDay(now);
  if ((await services.publicLinks.madeOn(publicId, request.email, day)).count >= ENVELOPES_PER_ADDRESS_PER_DAY) {
    throw limitReached(`This address already has ${ENVELOPES_PER_ADDRESS_PER_DAY} envelopes from this link today (UTC), the most it gives one address a day.`, now);
  }
  const actor = await ownerOf(services, row.organizationId, template.ownerId);
  const salt = randomBytes(32).toString('base64url');
  const code = oneTimeCode(services.config.jwt.secret, salt);
  const expiresAt = new Date(now.getTime() + CODE_TTL_MS).toISOString();

  for (let round = 0; ; round++) {
    const pending = await services.publicLinks.challenge(publicId, request.email);
    const sentOnDay = pending !== null && pending.day === day ? pending.sentOnDay : 0;
    if (sentOnDay >= CODES_PER_ADDRESS_PER_DAY) {
      throw limitReached(`This address was already sent ${CODES_PER_ADDRESS_PER_DAY} codes by this link today (UTC), the most it sends one address a day.`, now);
    }
    const message = codeEmail(template, actor, request, salt);
    const quota = { channel: 'email' as const, organizationId: row.organizationId, messages: [message], quota: services.config.limits.emailDailyQuota, now, pastQuota: 'refuse' as const };
    const { charge } = await admitMessages(services.storage.tables.envelopes, quota);
    if (charge !== null && !(await reserveQuota(services.storage.tables.envelopes, charge))) {
      if (round >= ROUNDS) throw problem('templateContended');
      continue;
    }
    const written = await services.publicLinks.putChallenge(
      publicId,
      { codeHash: codeHash(services, publicId, request.email, code), email: request.email, name: request.name, expiresAt, attemptsLeft: CODE_ATTEMPTS, day, sentOnDay: sentOnDay + 1 },
      pending?.etag ?? null,
    );
    if (!written) {
      if (charge !== null) await refundQuota(services.storage.tables.envelopes, charge, log);
      if (round >= ROUNDS) throw problem('templateContended');
      continue;
    }
    const batch: OutboxBatch = { id: uuidv7(), ownerId: actor.userId, envelopeId: '', createdAt: now.toISOString(), messages: [message] };
    try {
      const [, entity] = (await services.outbox.prepare(batch)) as ['create', Parameters<typeof services.storage.tables.envelopes.createEntity>[0]];
      await services.storage.tables.envelopes.createEntity(entity);
    } catch (error) {
      if (charge !== null) await refundQuota(services.storage.tables.envelopes, charge, log);
      throw error;
    }
    await services.outbox.dispatch(batch, log, { justCommitted: true });
    return { expiresAt };
  }
}

export interface VerifyPublicLinkOptions {
  services: Services;
  publicId: string;
  request: VerifyPublicLinkRequest;
  now?: Date;
  log?: (message: string) => void;
}

/**
 * `POST /api/public/{publicId}/verify` (docs/api.md#public-links): the code of the address's start, then
 * its envelope: the one made for it within {@link REUSE_MS} unless finished, else a new one from the
 * template, sent, the person in the open role (see the module comment for the order of the checks).
 * @returns the person's signing URL and the envelope's id
 * @throws AppError 404 `public-link-not-found`; 410 `link-expired`, `link-exhausted`; 403
 *   `authentication-failed` (with `attemptsLeft`); 429 `public-link-limit`; what making the envelope
 *   throws (`email-quota`, `email-unverified`, ...)
 */
export async function verifyPublicLink({ services, publicId, request, now = new Date(), log }: VerifyPublicLinkOptions): Promise<{ signingUrl: string; envelopeId: string; reused: boolean }> {
  const { row, template, link } = await openLink(services, publicId);
  if (link.expiresAt !== null && now.getTime() >= Date.parse(link.expiresAt)) throw problem('linkExpired');
  const name = await spendCode(services, publicId, request, now);

  const person = await services.publicLinks.person(publicId, request.email);
  if (person !== null && now.getTime() - Date.parse(person.at) < REUSE_MS) {
    const held = (await services.envelopes.read(person.ownerId, person.envelopeId))?.record;
    const url = held === undefined || isFinal(held.status) ? null : await signingUrlOf(services, held, request.email);
    if (url !== null && held !== undefined) return { signingUrl: url, envelopeId: held.id, reused: true };
  }

  const open = template.roles.find((role) => role.name.toLowerCase() === link.roleName.toLowerCase());
  if (open === undefined) throw problem('publicLinkNotFound');
  const actor = await ownerOf(services, row.organizationId, template.ownerId);
  if (!(await services.publicLinks.claimUse(publicId, link.maxUses))) throw problem('linkExhausted');
  const day = utcDay(now);
  if (!(await services.publicLinks.countMade(publicId, request.email, day, ENVELOPES_PER_ADDRESS_PER_DAY))) {
    await services.publicLinks.releaseUse(publicId);
    throw limitReached(`This address already has ${ENVELOPES_PER_ADDRESS_PER_DAY} envelopes from this link today (UTC), the most it gives one address a day.`, now);
  }
  let envelope: EnvelopeRecord;
  try {
    envelope = await useTemplate({
      services,
      templateId: template.id,
      request: {
        recipients: [{ roleName: open.name, email: request.email, name }, ...link.recipients.map((recipient) => ({ roleName: recipient.roleName, email: recipient.email, name: recipient.name }))],
        send: true,
      },
      actor,
      publicLink: { openRoleId: open.id },
      ...(log === undefined ? {} : { log }),
    });
  } catch (error) {
    await services.publicLinks.releaseUse(publicId);
    await services.publicLinks.uncountMade(publicId, request.email, day);
    throw error;
  }
  await services.publicLinks.setPerson(publicId, request.email, { envelopeId: envelope.id, ownerId: envelope.ownerId, at: now.toISOString() });
  const url = await signingUrlOf(services, envelope, request.email);
  if (url === null) throw new Error(`Envelope ${envelope.id} made by public link ${publicId} has no signing link for its open role`);
  return { signingUrl: url, envelopeId: envelope.id, reused: false };
}

/** What the page of a public link shows before anything is asked (docs/api.md#public-links). */
export interface PublicLinkFacts {
  /** The template's name: what the person is asked to sign. */
  name: string;
  /** Who asks: the template owner's display name, else its address. */
  sender: string;
  /** The template's language, the page's first choice before the reader's own. */
  locale: string;
  /** The Turnstile site key of the widget, when the service checks tokens (`TURNSTILE_SITE_KEY`); else `null`. */
  turnstileSiteKey: string | null;
}

/**
 * `GET /api/public/{publicId}` (docs/api.md#public-links): what the link's page shows.
 * @throws AppError 404 `public-link-not-found`; 410 `link-expired`, `link-exhausted`
 */
export async function describePublicLink(services: Services, publicId: string, now: Date = new Date()): Promise<PublicLinkFacts> {
  const { row, template, link } = await openLink(services, publicId);
  assertOpen(link, row, now);
  const actor = await ownerOf(services, row.organizationId, template.ownerId);
  const { secretKey, siteKey } = services.config.turnstile;
  return { name: template.name, sender: actor.name ?? actor.email, locale: template.locale, turnstileSiteKey: secretKey !== undefined && siteKey !== undefined ? siteKey : null };
}

/**
 * Checks the address's code and spends it (see the module comment).
 * @returns the name given at start
 * @throws AppError 403 `authentication-failed` with `attemptsLeft`
 */
async function spendCode(services: Services, publicId: string, request: VerifyPublicLinkRequest, now: Date): Promise<string> {
  for (let round = 0; round < ROUNDS; round++) {
    const pending = await services.publicLinks.challenge(publicId, request.email);
    if (pending === null || pending.codeHash === '' || pending.attemptsLeft <= 0 || now.getTime() >= Date.parse(pending.expiresAt)) {
      throw problem('authenticationFailed', { detail: 'No code is waiting for this address: it was used, expired, or tried too often. Ask for a new one.', extensions: { attemptsLeft: 0 } });
    }
    const expected = Buffer.from(pending.codeHash, 'hex');
    const given = Buffer.from(codeHash(services, publicId, request.email, request.code), 'hex');
    if (expected.length === given.length && timingSafeEqual(expected, given)) {
      if (await services.publicLinks.spendChallenge(publicId, pending)) return pending.name;
      continue;
    }
    const attemptsLeft = pending.attemptsLeft - 1;
    const { etag, ...rest } = pending;
    if (await services.publicLinks.putChallenge(publicId, { ...rest, attemptsLeft, ...(attemptsLeft === 0 ? { codeHash: '' } : {}) }, etag)) {
      throw problem('authenticationFailed', {
        detail: attemptsLeft === 0 ? 'The code is not right, and that was the last try: ask for a new code.' : `The code is not right; ${attemptsLeft} ${attemptsLeft === 1 ? 'try' : 'tries'} left.`,
        extensions: { attemptsLeft },
      });
    }
  }
  throw problem('authenticationFailed', { detail: 'The code could not be checked while other requests kept using it; retry.', extensions: { attemptsLeft: 0 } });
}

/**
 * The link behind a `publicId`, if it answers: its row (one point read), and its template, which must
 * be active and name this `publicId` as its enabled link.
 * @throws AppError 404 `public-link-not-found` otherwise
 */
async function openLink(services: Services, publicId: string): Promise<OpenLink> {
  if (!/^[A-Za-z0-9_-]{22}$/.test(publicId)) throw problem('publicLinkNotFound');
  const row = await services.publicLinks.read(publicId);
  if (row === null) throw problem('publicLinkNotFound');
  let stored = await services.templates.read(row.ownerId, row.templateId);
  if (stored === null) {
    // Its creator was removed from the organisation and the template moved (docs/api.md#removing-a-member).
    const owner = await services.templateIndex.currentOwner(row.organizationId, row.templateId);
    if (owner !== null && owner !== row.ownerId) stored = await services.templates.read(owner, row.templateId);
  }
  const link = stored?.record.publicLink ?? null;
  if (stored === null || link === null || !link.enabled || link.publicId !== publicId || stored.record.status !== 'active') throw problem('publicLinkNotFound');
  return { row, template: stored.record, link };
}

/**
 * @throws AppError 410 `link-expired` past `expiresAt`, 410 `link-exhausted` once `maxUses` envelopes were made
 */
function assertOpen(link: PublicLinkSettings, row: PublicLinkRow, now: Date): void {
  if (link.expiresAt !== null && now.getTime() >= Date.parse(link.expiresAt)) throw problem('linkExpired');
  if (link.maxUses !== null && row.uses >= link.maxUses) throw problem('linkExhausted');
}

/**
 * The template's owner as the actor of the envelopes its link makes: they are its envelopes, in its
 * quotas, as if it had used the template itself.
 * @throws AppError 404 `public-link-not-found` when the owner is no longer a member (or is being removed)
 */
async function ownerOf(services: Services, organizationId: string, ownerId: string): Promise<Actor> {
  const member = await services.organizations.member(organizationId, ownerId);
  if (member === null || member.removal !== null) throw problem('publicLinkNotFound');
  const user = await services.users.findByEmail(member.email);
  return { userId: ownerId, email: member.email, emailVerified: user?.emailVerified ?? false, name: member.name, ip: null, userAgent: null, apiKeyId: null, organizationId, role: member.role };
}

/** The person's signing URL on an envelope, recorded in `signingLinks`; `null` when it has no current link. */
async function signingUrlOf(services: Services, envelope: EnvelopeRecord, email: string): Promise<string | null> {
  const signer = envelope.signers.find((candidate) => candidate.email === email);
  if (signer === undefined || signer.link === null) return null;
  return await recordedSigningLink(services, envelope.ownerId, { envelopeId: envelope.id, recipientId: signer.id, linkSalt: signer.link.salt });
}

/** The e-mail that carries the code: the recipients' one-time code e-mail, with the template's name for the document. */
function codeEmail(template: TemplateRecord, actor: Actor, request: StartPublicLinkRequest, salt: string): EmailMessage {
  return {
    kind: 'email',
    type: 'otp',
    envelopeId: '',
    recipientId: null,
    to: { email: request.email, name: request.name },
    documentName: template.name,
    ownerEmail: actor.email,
    ownerName: actor.name ?? null,
    expiresAt: null,
    reason: null,
    declinedBy: null,
    linkSalt: null,
    otpSalt: salt,
    locale: template.locale,
  };
}

/** The stored form of a code: HMAC-SHA256 under a key derived from `JWT_SECRET`, over the link, the address and the code, hex. */
function codeHash(services: Services, publicId: string, email: string, code: string): string {
  const key = new Uint8Array(hkdfSync('sha256', services.config.jwt.secret, new Uint8Array(0), 'envelope-signing/public-link-codes/v1', 32));
  return createHmac('sha256', key).update(`${publicId}\n${email}\n${code}`, 'utf8').digest('hex');
}

/** `YYYY-MM-DD`, the UTC day of `now`. */
function utcDay(now: Date): string {
  return now.toISOString().slice(0, 10);
}

/** 429 `public-link-limit`, `Retry-After` until the next UTC midnight. */
function limitReached(detail: string, now: Date): Error {
  const midnight = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1);
  return problem('publicLinkLimit', { detail, retryAfterSeconds: Math.max(1, Math.ceil((midnight - now.getTime()) / 1000)) });
}
