/**
 * The storage floor of a completion from draft: the storage reads and writes a completion must make,
 * in the same order and with the same parallelism, done bare with the Azure SDK clients of the
 * service (same Azurite, same settings) on rows and blobs of their own: the envelope's point read;
 * the upload's download; the re-read of the draft and the frozen copy's upload beside the sealed
 * blob's properties (absent), the audit events' and actions' queries; the sealed blob's upload (the
 * document's size); the commit (one entity-group transaction: the envelope row, its status row, the
 * completion event) beside the seal record's upsert. No PDF work, no checks, no JSON model. Used by
 * the completion and packet benchmarks (`processes/completion.ts`, `processes/packets.ts`).
 */
import { uuidv7 } from '../../src/lib/ids.js';
import type { Services } from '../../src/lib/services.js';

export interface StorageFloor {
  /** Writes the draft rows of one round (not to be timed) and returns that round's storage work, to be timed. */
  round(): Promise<() => Promise<void>>;
}

/** Uploads `document` once as the floor's upload; each {@link StorageFloor.round} then works on rows and blobs of its own. */
export async function storageFloor(services: Services, document: Uint8Array, name: string): Promise<StorageFloor> {
  const { tables, containers } = services.storage;
  const floorOwner = uuidv7();
  const floorUpload = `${floorOwner}/upload.pdf`;
  await containers.documents.getBlockBlobClient(floorUpload).uploadData(document);
  const row = (rowKey: string, extra: Record<string, unknown> = {}) => ({ partitionKey: floorOwner, rowKey, status: 'draft', documentName: `${name}.pdf`, version: 1, ...extra });
  return {
    async round() {
      const id = uuidv7();
      await tables.envelopes.submitTransaction([['create', row(`envelope_${id}`)], ['create', row(`status_draft_${id}`)]]);
      return async () => {
        await tables.envelopes.getEntity(floorOwner, `envelope_${id}`);
        const upload = await containers.documents.getBlockBlobClient(floorUpload).downloadToBuffer();
        const list = async (prefix: string) => {
          for await (const entity of tables.envelopes.listEntities({ queryOptions: { filter: `PartitionKey eq '${floorOwner}' and RowKey ge '${prefix}' and RowKey lt '${prefix}~'` } })) void entity;
        };
        await Promise.all([
          tables.envelopes.getEntity(floorOwner, `envelope_${id}`),
          containers.originals.getBlockBlobClient(`${id}/document.pdf`).uploadData(upload),
          containers.sealed.getBlockBlobClient(`${id}/document.pdf`).getProperties().catch(() => undefined),
          list(`event_${id}_`),
          list(`action_${id}_`),
        ]);
        await containers.sealed.getBlockBlobClient(`${id}/document.pdf`).uploadData(upload, { conditions: { ifNoneMatch: '*' } });
        await Promise.all([
          tables.envelopes.submitTransaction([
            ['update', row(`envelope_${id}`, { status: 'completed', version: 2 }), 'Replace'],
            ['delete', { partitionKey: floorOwner, rowKey: `status_draft_${id}` }],
            ['create', row(`status_completed_${id}`, { status: 'completed', version: 2 })],
            ['create', { partitionKey: floorOwner, rowKey: `event_${id}_0000000002`, type: 'envelope.completed' }],
          ]),
          tables.seals.upsertEntity({ partitionKey: id, rowKey: 'seal', envelopeId: id }),
        ]);
      };
    },
  };
}
