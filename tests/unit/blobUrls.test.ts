/**
 * Blob URLs built without the SDK's per-blob clients (src/lib/storage/sas.ts `BlobUrls`) are the
 * URLs the SDK itself builds, for Azurite's path-style endpoints and for Azure's, whatever the name.
 */
import { describe, expect, test } from '@jest/globals';
import { BlobSASPermissions, BlobServiceClient, SASProtocol, StorageSharedKeyCredential } from '@azure/storage-blob';
import { BlobUrls, createSasSigner } from '../../src/lib/storage/sas.js';

const key = Buffer.from('not-a-real-key-but-long-enough-to-sign-with-0123456789').toString('base64');
const services = [
  new BlobServiceClient('http://127.0.0.1:10000/devstoreaccount1', new StorageSharedKeyCredential('devstoreaccount1', key)),
  new BlobServiceClient('https://envelopes01.blob.core.windows.net/', new StorageSharedKeyCredential('envelopes01', key)),
];
const names = [
  '01a200d3-9ff7-7344-8a5a-76f38c77e046/contract.pdf',
  '01a200d3-9ff7-7344-8a5a-76f38c77e046/Vertrag für Müller (final) #2.pdf',
  '01a200d3-9ff7-7344-8a5a-76f38c77e046/100% sure?&x=1+y.pdf',
  "01a200d3-9ff7-7344-8a5a-76f38c77e046/it's!*~.pdf",
  '01a200d3-9ff7-7344-8a5a-76f38c77e046/合同 📄.pdf',
];

describe('BlobUrls', () => {
  test.each(services.flatMap((service) => names.map((name) => [service.url, name, service] as const)))('%s + %s as the SDK spells it', (_url, name, service) => {
    expect(new BlobUrls(service).of('documents', name)).toBe(service.getContainerClient('documents').getBlockBlobClient(name).url);
  });

  test('shared-key SAS URLs match the SDK except for the signing time', async () => {
    const service = services[0]!;
    const name = names[1]!;
    const ours = new URL(await createSasSigner({ kind: 'sharedKey', blobService: service }).blobUrl('documents', name, { access: 'read', expiresInSeconds: 900 }));
    const theirs = new URL(
      await service.getContainerClient('documents').getBlockBlobClient(name).generateSasUrl({
        permissions: BlobSASPermissions.parse('r'),
        expiresOn: new Date(ours.searchParams.get('se')!),
        protocol: SASProtocol.HttpsAndHttp,
      }),
    );
    expect(`${ours.origin}${ours.pathname}`).toBe(`${theirs.origin}${theirs.pathname}`);
    for (const parameter of ['sv', 'spr', 'sp', 'sr', 'se', 'sig']) expect(ours.searchParams.get(parameter)).toBe(theirs.searchParams.get(parameter));
  });
});
