/**
 * The signing-token guard (CONTRACT §11.3, §11.4): the recipient's endpoints authenticate with
 * `Authorization: Bearer <signing token>` only. The token is looked up by its SHA-256 (table
 * `signingLinks`), which names the envelope and recipient; the link works only while it is that
 * recipient's current one (a resend replaces it), and for reading until 30 days after the envelope
 * reached a final status. Owner JWTs are refused here, as signing tokens are on the owner's endpoints
 * (they are not JWTs).
 */
import type { HttpRequest } from '@azure/functions';
import { AppError } from '../errors.js';
import { isFinal, type EnvelopeRecord, type Signer } from '../envelopes/model.js';
import { looksLikeSigningToken, tokenSha256 } from '../recipients/signingLinks.js';
import type { Services } from '../services.js';
import type { StoredEnvelope } from '../storage/envelopeRepository.js';
import { clientIp, userAgent } from './requestInfo.js';

/** How long a link keeps working for `GET` after the envelope reached a final status, milliseconds (CONTRACT §11.3). */
export const LINK_READ_AFTER_CLOSE_MS = 30 * 86_400_000;

/** The recipient behind a signing token, with the envelope as read. */
export interface SigningCaller {
  /** SHA-256 of the token: who the caller is, checked again on every write. */
  tokenSha256: string;
  ownerId: string;
  envelopeId: string;
  recipientId: string;
  stored: StoredEnvelope;
  recipient: Signer;
  ip: string | null;
  userAgent: string | null;
}

/**
 * Resolves the request's signing token.
 * @throws AppError 401 `invalid-token` with `WWW-Authenticate: Bearer error="invalid_token"` for a
 *   missing, malformed, unknown, replaced or expired token (the same answer for each)
 */
export async function authenticateSigningToken(request: HttpRequest, services: Services, now: Date = new Date()): Promise<SigningCaller> {
  const header = request.headers.get('authorization') ?? '';
  const token = /^Bearer[ ]+(\S+)[ ]*$/i.exec(header)?.[1];
  if (token === undefined || !looksLikeSigningToken(token)) throw invalidSigningToken();
  const hash = tokenSha256(token);
  const link = await services.signingLinks.find(hash);
  if (link === null) throw invalidSigningToken();
  const stored = await services.envelopes.read(link.ownerId, link.envelopeId);
  if (stored === null) throw invalidSigningToken();
  const recipient = currentRecipient(stored.record, link.recipientId, hash, now);
  return {
    tokenSha256: hash,
    ownerId: link.ownerId,
    envelopeId: link.envelopeId,
    recipientId: link.recipientId,
    stored,
    recipient,
    ip: clientIp(request),
    userAgent: userAgent(request),
  };
}

/**
 * The recipient whose current link has this token hash, in `record` (read again by writers).
 * @throws AppError 401 when the link was replaced, the recipient removed, or the envelope closed over 30 days ago
 */
export function currentRecipient(record: EnvelopeRecord, recipientId: string, hash: string, now: Date): Signer {
  const recipient = record.signers.find((signer) => signer.id === recipientId);
  if (recipient === undefined || recipient.link === null || recipient.link.tokenSha256 !== hash) throw invalidSigningToken();
  if (isFinal(record.status)) {
    const closedAt = Date.parse(record.closedAt ?? record.completedAt ?? record.updatedAt);
    if (now.getTime() > closedAt + LINK_READ_AFTER_CLOSE_MS) throw invalidSigningToken();
  }
  return recipient;
}

export function invalidSigningToken(): AppError {
  return new AppError('unauthorized', 'This signing link is not valid (any more): use the link of your newest e-mail about this envelope.', {
    type: 'invalid-token',
    headers: { 'WWW-Authenticate': 'Bearer error="invalid_token"' },
  });
}
