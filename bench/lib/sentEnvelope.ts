/**
 * A sent envelope with one signer, made through the service's own operations (setup, not measured):
 * a draft row (`EnvelopeRepository.create`), the document uploaded to its blob, then the owner's
 * update that sends it (`updateEnvelope`: freezes the document, records the signer's signing link
 * and invites it). The signer's raw signing token is derived from the stored salt, as the e-mail
 * sender derives it (`signingToken(signingLinkKey(JWT_SECRET), salt)`).
 */
import { randomUUID } from 'node:crypto';
import { newDraftEnvelope } from '../../src/lib/envelopes/createUpload.js';
import { newSigner, type Actor, type EnvelopeRecord } from '../../src/lib/envelopes/model.js';
import { updateEnvelopeRequest } from '../../src/lib/envelopes/schemas.js';
import { updateEnvelope } from '../../src/lib/envelopes/update.js';
import { signingLinkKey, signingToken } from '../../src/lib/envelopes/signingLinks.js';
import type { Services } from '../../src/lib/services.js';

export interface SentEnvelope {
  envelopeId: string;
  recipientId: string;
  /** The signer's raw signing token (`Authorization: Bearer <token>` on `/api/signing`). */
  token: string;
  /** Ids of the signer's fields: a signature and a text field on page 1. */
  signatureFieldId: string;
  textFieldId: string;
}

/** Creates a draft with `document` as its document and one signer (role `signer`), no fields. */
export async function draftWithSigner(services: Services, actor: Actor, document: Uint8Array, documentName: string): Promise<{ envelopeId: string; signerId: string }> {
  const draft = newDraftEnvelope({ actor, documentName, now: new Date() });
  const signerId = randomUUID();
  const record: EnvelopeRecord = {
    ...draft.record,
    signers: [newSigner({ id: signerId, email: 'signer@example.com', name: 'Sam Signer', role: 'signer' })],
  };
  await services.envelopes.create(record, draft.event);
  await services.storage.containers.documents.getBlockBlobClient(record.blobName).uploadData(document, { blobHTTPHeaders: { blobContentType: 'application/pdf' } });
  return { envelopeId: record.id, signerId };
}

/**
 * A draft as {@link draftWithSigner}, then sent with two fields for the signer on page 1 (a
 * signature and a required text field).
 * @throws Error when the stored signer has no signing link after the send
 */
export async function sentEnvelopeWithFields(
  services: Services,
  actor: Actor,
  document: Uint8Array,
  documentName: string,
  authentication?: { method: 'accessCode'; code: string },
): Promise<SentEnvelope> {
  const { envelopeId, signerId } = await draftWithSigner(services, actor, document, documentName);
  const signatureFieldId = randomUUID();
  const textFieldId = randomUUID();
  const request = updateEnvelopeRequest.parse({
    signers: [{ id: signerId, email: 'signer@example.com', name: 'Sam Signer', role: 'signer', ...(authentication === undefined ? {} : { authentication }) }],
    fields: [
      { id: signatureFieldId, recipientId: signerId, type: 'signature', page: 1, x: 0.1, y: 0.8, width: 0.3, height: 0.06 },
      { id: textFieldId, recipientId: signerId, type: 'text', page: 1, x: 0.5, y: 0.8, width: 0.3, height: 0.04, label: 'Title' },
    ],
    status: 'sent',
  });
  const record = await updateEnvelope({ services, envelopeId, request, actor, ifMatch: null });
  const link = record.signers.find((signer) => signer.id === signerId)?.link;
  if (link == null) throw new Error(`signer of envelope ${envelopeId} has no signing link after the send`);
  return { envelopeId, recipientId: signerId, token: signingToken(signingLinkKey(services.config.jwt.secret), link.salt), signatureFieldId, textFieldId };
}
