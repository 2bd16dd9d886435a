/**
 * Update Envelope, `PUT` and `PATCH` alike (docs/api.md#the-envelope, docs/api.md#lifecycle, docs/api.md#the-recipients-api): signers, fields, settings
 * and status, with If-Match and, without it, read-modify-write that never loses a concurrent update.
 * Sending freezes the document (`freeze.ts`) and invites the recipients; voiding tells those invited.
 */
import { assertVerifiedSender } from '../auth/emailVerification.js';
import type { Services } from '../services.js';
import { assertQuotaLeft } from './dailyQuota.js';
import { envelopeOrganization } from '../organizations/envelopeOrganization.js';
import { commitChange } from './change.js';
import { freezeDocument, frozenUploadFacts, refreshFrozenCopy } from './freeze.js';
import { freezePacket, refreshPacket } from './freezePacket.js';
import { documentsOf } from './documents.js';
import { mutateMembersEnvelope, preconditionFailed } from './mutate.js';
import { applySend, applyVoid, ifMatchSatisfied, planUpdate, validationFailed } from './lifecycle.js';
import { envelopeETag, type Actor, type EnvelopeRecord } from './model.js';
import type { UpdateEnvelopeRequest } from './schemas.js';
import { prepareAuthentication } from './authenticationSettings.js';

export interface UpdateEnvelopeOptions {
  services: Services;
  envelopeId: string;
  request: UpdateEnvelopeRequest;
  actor: Actor;
  /** The request's `If-Match` header, or `null`. */
  ifMatch: string | null;
  now?: () => Date;
  log?: (message: string) => void;
}

/**
 * Applies `request` to the caller's envelope and returns it as stored afterwards.
 * @throws AppError 404 (missing or another owner's), 412 (If-Match stale), 400 (fields naming no
 *   signer, `expiresAt` out of bounds), 409 (lifecycle refuses: `envelope-closed`, `envelope-locked`,
 *   `invalid-transition`, `no-signer`; document not uploaded; `envelope-contended` when concurrent
 *   changes won every round of `mutateEnvelope`), 413/415/422 (document unusable, or a field outside
 *   it, when sending), 429 `email-quota` or `sms-quota` (sending past the organisation's daily e-mail or text quota)
 */
export async function updateEnvelope({ services, envelopeId, request, actor, ifMatch, now = () => new Date(), log }: UpdateEnvelopeOptions): Promise<EnvelopeRecord> {
  // A reason for voiding goes with voiding only: a body check, before anything is read.
  if (request.voidedReason !== undefined && request.status !== 'voided') {
    throw validationFailed([{ path: 'voidedReason', message: 'is allowed only with status "voided"' }]);
  }
  // Access codes are hashed once, before any read (a slow hash: outside the retries).
  const authentications = request.signers === undefined ? [] : await prepareAuthentication(services, request.signers);
  return await mutateMembersEnvelope(services, actor, envelopeId, async (stored) => {
    if (!ifMatchSatisfied(ifMatch, envelopeETag(stored.record))) throw preconditionFailed();
    // Only a verified owner sends in its name; editing a draft needs no verification.
    if (request.status === 'sent' && stored.record.status === 'draft') assertVerifiedSender(actor, services);
    const plan = planUpdate(stored.record, request, actor, now(), authentications);
    if (plan === null) return stored.record;
    if (plan.sends) {
      const record = stored.record;
      // A send queues at least one invitation: with the organisation's e-mail quota used up, it is
      // refused before the document is read (commitChange charges the exact count).
      const organizationId = await envelopeOrganization(services, record);
      await assertQuotaLeft(services.storage.tables.envelopes, { channel: 'email', organizationId, count: 1, quota: services.config.limits.emailDailyQuota, now: plan.change.now });
      const stillDraft = async (): Promise<boolean> => (await services.envelopes.read(record.ownerId, record.id))?.record.status === 'draft';
      if (documentsOf(record).length > 1) {
        // Several documents (docs/api.md#several-documents): each frozen, the first's facts on the envelope.
        const packet = await freezePacket(services, record, stillDraft);
        const first = packet.documents[0]!;
        applySend(plan.change, { documentSha256: first.sha256!, uploadSha256: first.uploadSha256, pageCount: first.pageCount!, removed: first.removed ?? [] }, actor, services.config, packet.documents);
        await refreshPacket(services, packet);
      } else if (record.documentSha256 !== null && record.pageCount !== null) {
        // Made from a template (docs/api.md#templates): its document was frozen when the template was
        // activated, and copied to this envelope's own frozen copy when it was made.
        applySend(plan.change, { documentSha256: record.documentSha256, pageCount: record.pageCount, ...(await frozenUploadFacts(services, record)) }, actor, services.config);
      } else {
        const frozen = await freezeDocument({ services, record, stillDraft });
        applySend(plan.change, frozen, actor, services.config);
        await refreshFrozenCopy(services, record, frozen);
      }
    } else if (plan.voids) {
      applyVoid(plan.change, actor, request.voidedReason);
    }
    return await commitChange(services, stored, plan.change, log === undefined ? {} : { log });
  }, { ifMatch });
}
