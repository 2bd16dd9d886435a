/**
 * A draft envelope with one signer and its uploaded document, written straight through the
 * repositories (setup for the completion benchmarks, not measured): completing it from draft seals
 * the document as it is.
 */
import { newDraftEnvelope } from '../../src/lib/envelopes/createUpload.js';
import { newSigner, type Actor, type EnvelopeRecord } from '../../src/lib/envelopes/model.js';
import { uuidv7 } from '../../src/lib/ids.js';
import type { Services } from '../../src/lib/services.js';

/** Creates the envelope and uploads `bytes` as its document. @returns the envelope id */
export async function createDraftEnvelope(services: Services, actor: Actor, bytes: Uint8Array, documentName: string): Promise<string> {
  const draft = newDraftEnvelope({ actor, documentName, now: new Date() });
  const record: EnvelopeRecord = {
    ...draft.record,
    // Completed from draft (the owner seals the document as it is): a sent one waits for its signer.
    signers: [newSigner({ id: uuidv7(), email: 'signer@example.com', name: 'Sam Signer', role: 'signer' })],
  };
  await services.envelopes.create(record, draft.event);
  await services.storage.containers.documents.getBlockBlobClient(record.blobName).uploadData(bytes, { blobHTTPHeaders: { blobContentType: 'application/pdf' } });
  return record.id;
}
