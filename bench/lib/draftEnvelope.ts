/**
 * A draft envelope with one signer and its uploaded documents, written straight through the
 * repositories (setup for the completion benchmarks, not measured): completing it from draft seals
 * the documents as they are.
 */
import { setDocuments } from '../../src/lib/envelopes/documents.js';
import { newDraftEnvelope } from '../../src/lib/envelopes/createUpload.js';
import { newSigner, type Actor, type EnvelopeRecord, type Output } from '../../src/lib/envelopes/model.js';
import { uuidv7 } from '../../src/lib/ids.js';
import type { Services } from '../../src/lib/services.js';

/** More documents after the first (docs/api.md#several-documents) and how they are sealed. */
export interface PacketOptions {
  others: { bytes: Uint8Array; name: string }[];
  output: Output;
}

/** Creates the envelope and uploads `bytes` as its document (and `packet.others` after it). @returns the envelope id */
export async function createDraftEnvelope(services: Services, actor: Actor, bytes: Uint8Array, documentName: string, packet?: PacketOptions): Promise<string> {
  const draft = newDraftEnvelope({ actor, documentName, now: new Date() });
  const record: EnvelopeRecord = {
    ...draft.record,
    // Completed from draft (the owner seals the document as it is): a sent one waits for its signer.
    signers: [newSigner({ id: uuidv7(), email: 'signer@example.com', name: 'Sam Signer', role: 'signer' })],
  };
  const uploads = [{ blobName: record.blobName, bytes }];
  if (packet !== undefined) {
    const others = packet.others.map((other) => {
      const id = uuidv7();
      return { id, name: other.name, order: 0, blobName: `${record.id}/${id}/${other.name}`, sha256: null, uploadSha256: null, pageCount: null, bytes: other.bytes };
    });
    setDocuments(record, [{ id: record.id, name: documentName, order: 1, blobName: record.blobName, sha256: null, uploadSha256: null, pageCount: null }, ...others.map(({ bytes: _bytes, ...document }) => document)]);
    if (packet.output === 'combined') record.output = 'combined';
    uploads.push(...others.map((other) => ({ blobName: other.blobName, bytes: other.bytes })));
  }
  // Indexed in its organisation first, as the API's create does (`createUpload.ts`): completion looks it up there.
  await services.organizationIndex.add(actor.organizationId, record.id, record.ownerId);
  await services.envelopes.create(record, draft.event);
  for (const upload of uploads) {
    await services.storage.containers.documents.getBlockBlobClient(upload.blobName).uploadData(upload.bytes, { blobHTTPHeaders: { blobContentType: 'application/pdf' } });
  }
  return record.id;
}
