/**
 * How an envelope is shown in responses (CONTRACT §3): stored fields plus fresh read-only SAS URLs.
 */
import { CONTAINERS } from '../storage/clients.js';
import type { SasSigner } from '../storage/sas.js';
import { viewSigner, type EnvelopeRecord, type EnvelopeView } from './model.js';

/** Lifetime of `documentUrl` and `signedUrl`, seconds (CONTRACT §3). */
export const READ_URL_TTL_SECONDS = 15 * 60;

/** A read-only SAS URL of the sealed PDF, valid {@link READ_URL_TTL_SECONDS}. */
export async function signedDocumentUrl(sas: SasSigner, record: EnvelopeRecord): Promise<string> {
  return await sas.blobUrl(CONTAINERS.sealed, record.blobName, { access: 'read', expiresInSeconds: READ_URL_TTL_SECONDS });
}

/** The response shape of `record`, with read SAS URLs valid {@link READ_URL_TTL_SECONDS}. */
export async function toEnvelopeView(record: EnvelopeRecord, sas: SasSigner): Promise<EnvelopeView> {
  const [documentUrl, signedUrl] = await Promise.all([
    sas.blobUrl(CONTAINERS.documents, record.blobName, { access: 'read', expiresInSeconds: READ_URL_TTL_SECONDS }),
    record.status === 'completed' ? signedDocumentUrl(sas, record) : Promise.resolve(null),
  ]);
  return {
    id: record.id,
    status: record.status,
    ownerId: record.ownerId,
    documentName: record.documentName,
    documentUrl,
    signers: record.signers.map(viewSigner),
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
    completedAt: record.completedAt,
    signedUrl,
    hash: record.hash,
  };
}
