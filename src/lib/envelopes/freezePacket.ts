/**
 * Freezing every document of an envelope at send, or of a template at its activation
 * (docs/api.md#several-documents, docs/api.md#documents-of-a-template): each is checked,
 * cleaned and frozen as one document is (`freeze.ts`), two at a time in order (the seal worker
 * cleans one while the other is read or stored: at most two documents' bytes in memory at a time),
 * after their sizes together were checked against `MAX_ENVELOPE_BYTES`.
 * A document that fails refuses the whole send, named in the answer: nothing is sent. Frozen copies
 * written before the failure name no envelope and are replaced or reused by the next attempt
 * (`freeze.ts`'s crash rules hold for each).
 */
import type { ContainerClient } from '@azure/storage-blob';
import { mapConcurrently } from '../concurrency.js';
import { problem } from '../problems.js';
import type { Services } from '../services.js';
import { storageStatus } from '../storage/keys.js';
import { documentsOf, fieldDocumentId, namingDocument, type DocumentHolder } from './documents.js';
import { freezeDocument, frozenUploadFacts, refreshFrozenCopy, type FrozenDocument } from './freeze.js';
import type { EnvelopeDocument, Field } from './model.js';

/** Documents frozen at a time: one cleaned in the seal worker while the other is read or stored. */
const FREEZE_CONCURRENCY = 2;

/** Every document of an envelope, frozen: each with its hashes, page count and what was removed. */
export interface FrozenPacket {
  /** The documents in order, each with `sha256`, `uploadSha256`, `pageCount` and `removed` set. */
  documents: EnvelopeDocument[];
  /** The copies this request wrote or verified, by document id (those frozen earlier, from a template, are not here). */
  claims: Map<string, Omit<FrozenDocument, 'bytes'>>;
}

/**
 * Checks the sizes of a draft's uploads together, then freezes each document that is not frozen yet
 * (a document from a template is frozen from the start: its facts are read from its frozen copy).
 * @param record an envelope, or a template (its fields name roles: only their documents and sources count here)
 * @param stillDraft whether the record is still the draft read (`freeze.ts`)
 * @param uploads the container of uploads: `documents` (default) for envelopes, `templates` for templates
 * @throws AppError 413 `envelope-too-large` (the uploads together over `MAX_ENVELOPE_BYTES`); what
 *   `freezeDocument` throws (409, 413, 415, 422), its `detail` naming the document and `documentId`
 *   and `documentName` among its members when the envelope has several
 */
export async function freezePacket(
  services: Services,
  record: DocumentHolder<Pick<Field, 'id' | 'documentId' | 'source'>>,
  stillDraft: () => Promise<boolean>,
  uploads: ContainerClient = services.storage.containers.documents,
): Promise<FrozenPacket> {
  const documents = documentsOf(record);
  const several = documents.length > 1;
  if (several) await assertPacketSize(services, documents, uploads);
  const claims = new Map<string, Omit<FrozenDocument, 'bytes'>>();
  // After a document fails, none is started; the failure named is the first document's that failed.
  const frozen = await mapConcurrently(documents, FREEZE_CONCURRENCY, async (document): Promise<EnvelopeDocument> => {
    try {
      if (document.sha256 !== null && document.pageCount !== null) {
        const facts = await frozenUploadFacts(services, document);
        return { ...document, uploadSha256: facts.uploadSha256, removed: [...facts.removed] };
      }
      // Its own fields decide whether its text tags are covered (`freeze.ts` `checkUpload`).
      const fields = record.fields.filter((field) => fieldDocumentId(field, documents[0]!) === document.id);
      const { bytes: _bytes, ...claim } = await freezeDocument({ services, record: { blobName: document.blobName, fields }, uploads, stillDraft });
      claims.set(document.id, claim);
      return { ...document, sha256: claim.documentSha256, uploadSha256: claim.uploadSha256, pageCount: claim.pageCount, removed: [...claim.removed] };
    } catch (error) {
      throw several ? namingDocument(error, document) : error;
    }
  });
  return { documents: frozen, claims };
}

/**
 * Renews the claim on each frozen copy this request relies on (`freeze.ts` `refreshFrozenCopy`): call it just before the envelope update.
 * @throws EnvelopeChangedError when a copy was replaced meanwhile
 */
export async function refreshPacket(services: Services, packet: FrozenPacket): Promise<void> {
  for (const document of packet.documents) {
    const claim = packet.claims.get(document.id);
    if (claim !== undefined) packet.claims.set(document.id, await refreshFrozenCopy(services, document, { ...claim, bytes: new Uint8Array(0) }));
  }
}

/**
 * @throws AppError 409 `document-not-uploaded` naming a document not uploaded yet; 413
 *   `envelope-too-large` when the documents together are over `MAX_ENVELOPE_BYTES`
 */
async function assertPacketSize(services: Services, documents: readonly EnvelopeDocument[], uploads: ContainerClient): Promise<void> {
  const { containers } = services.storage;
  const sizes = await Promise.all(
    documents.map(async (document) => {
      const container = document.sha256 === null ? uploads : containers.originals;
      try {
        return (await container.getBlockBlobClient(document.blobName).getProperties()).contentLength ?? 0;
      } catch (error) {
        if (storageStatus(error) === 404) throw namingDocument(problem('documentNotUploaded'), document);
        throw error;
      }
    }),
  );
  const total = sizes.reduce((sum, size) => sum + size, 0);
  const max = services.config.maxEnvelopeBytes;
  if (total > max) {
    throw problem('envelopeTooLarge', { detail: `The ${documents.length} documents are ${total} bytes together; at most ${max} bytes are accepted (${documents.map((document, index) => `"${document.name}": ${sizes[index]}`).join(', ')}).` });
  }
}
