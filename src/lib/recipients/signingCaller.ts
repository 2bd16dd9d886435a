/**
 * Who a signing token names (docs/api.md#sending-and-signing-order, docs/api.md#the-recipients-api): the token is looked up by its SHA-256 (table
 * `signingLinks`), which names the envelope and recipient; the link works only while it is that
 * recipient's current one (a resend replaces it) or the token of its current embedded view
 * (`embeddedViews.ts`, until the view expires), for reading until 30 days after the envelope reached
 * a final status, and never once the envelope's documents were purged (docs/api.md#delete-an-envelope-or-purge-its-documents). The HTTP guard
 * (`src/lib/http/signingToken.ts`) takes the token from the request and calls
 * {@link resolveSigningToken}; the recipient's operations (`recipientActions.ts`) check the link again with
 * {@link currentRecipient} on every write.
 */
import { AppError } from '../errors.js';
import { isFinal, type EnvelopeRecord, type Signer } from '../envelopes/model.js';
import { mutateEnvelope } from '../envelopes/mutate.js';
import type { Services } from '../services.js';
import type { StoredEnvelope } from '../storage/envelopeRepository.js';
import { looksLikeSigningToken, tokenSha256 } from '../envelopes/signingLinks.js';
import { problem } from '../problems.js';

/** How long a link keeps working for `GET` after the envelope reached a final status, milliseconds (docs/api.md#sending-and-signing-order). */
export const LINK_READ_AFTER_CLOSE_MS = 30 * 86_400_000;

/**
 * Which of the recipient's credentials a request carried ([Evidence](../../../docs/api.md#evidence)):
 * the signing link the service e-mailed it, or an embedded signing view its owner created
 * (`embeddedViews.ts`). Recorded as `credential` in the details of the recipient's events.
 */
export type SigningCredential = 'signingLink' | 'embeddedView';

/** The recipient behind a signing token, with the envelope as read. */
export interface SigningCaller {
  /** SHA-256 of the token: who the caller is, checked again on every write. */
  tokenSha256: string;
  /** Whether the token is the recipient's signing link or the token of its embedded view. */
  credential: SigningCredential;
  ownerId: string;
  envelopeId: string;
  recipientId: string;
  stored: StoredEnvelope;
  recipient: Signer;
  /** The client's address and user agent, as the request gave them (`null` when absent). */
  ip: string | null;
  userAgent: string | null;
}

export interface ResolveSigningTokenOptions {
  services: Services;
  /** The raw token, or `undefined` when the request carried none. */
  token: string | undefined;
  ip: string | null;
  userAgent: string | null;
  now?: Date;
}

/**
 * The recipient a signing token names.
 * @throws AppError 401 `invalid-token` (with `WWW-Authenticate: Bearer error="invalid_token"`) for a
 *   missing, malformed, unknown, replaced or expired token, or one of a purged envelope (the same answer for each)
 */
export async function resolveSigningToken({ services, token, ip, userAgent, now = new Date() }: ResolveSigningTokenOptions): Promise<SigningCaller> {
  if (token === undefined || !looksLikeSigningToken(token)) throw invalidSigningToken();
  const hash = tokenSha256(token);
  const link = await services.signingLinks.find(hash);
  if (link === null) throw invalidSigningToken();
  const stored = await services.envelopes.read(link.ownerId, link.envelopeId);
  if (stored === null) throw invalidSigningToken();
  const recipient = currentRecipient(stored.record, link.recipientId, hash, now);
  const credential: SigningCredential = recipient.link !== null && recipient.link.tokenSha256 === hash ? 'signingLink' : 'embeddedView';
  return { tokenSha256: hash, credential, ownerId: link.ownerId, envelopeId: link.envelopeId, recipientId: link.recipientId, stored, recipient, ip, userAgent };
}

/**
 * The recipient whose current link has this token hash, in `record` (read again by writers).
 * @throws AppError 401 when the link was replaced, the recipient removed, the envelope closed over 30
 *   days ago, or its documents purged
 */
export function currentRecipient(record: EnvelopeRecord, recipientId: string, hash: string, now: Date): Signer {
  const recipient = record.signers.find((signer) => signer.id === recipientId);
  if (recipient === undefined || !holdsToken(recipient, hash, now)) throw invalidSigningToken();
  if (record.purgedAt !== null) throw invalidSigningToken();
  if (isFinal(record.status)) {
    const closedAt = Date.parse(record.closedAt ?? record.completedAt ?? record.updatedAt);
    if (now.getTime() > closedAt + LINK_READ_AFTER_CLOSE_MS) throw invalidSigningToken();
  }
  return recipient;
}

/**
 * Whether `hash` is the recipient's current token: its signing link's, or its embedded view's
 * (docs/api.md#embedded-signing) until the view expires (`EMBED_TOKEN_TTL_SECONDS` after issue).
 */
function holdsToken(recipient: Signer, hash: string, now: Date): boolean {
  if (recipient.link !== null && recipient.link.tokenSha256 === hash) return true;
  const view = recipient.view;
  return view != null && view.tokenSha256 === hash && now.getTime() < Date.parse(view.expiresAt);
}

/** The answer to a signing token that does not (or no longer) work: 401 `invalid-token`. */
export function invalidSigningToken(): AppError {
  return problem('invalidToken', { detail: 'This signing link is not valid (any more): use the link of your newest e-mail about this envelope.', headers: { 'WWW-Authenticate': 'Bearer error="invalid_token"' } });
}

/**
 * Changes the caller's envelope through `envelopes/mutate.ts` `mutateEnvelope`: the first round on
 * the envelope as the token's resolution read it, later rounds on a fresh read.
 * @throws AppError 401 `invalid-token` when the envelope is gone; 409 `envelope-contended` when
 *   concurrent changes won every round; whatever `mutate` throws
 */
export async function mutateCallersEnvelope<T>(services: Services, caller: SigningCaller, mutate: (stored: StoredEnvelope) => Promise<T>): Promise<T> {
  return await mutateEnvelope(services, caller, mutate, {
    first: caller.stored,
    missing: () => {
      throw invalidSigningToken();
    },
  });
}
