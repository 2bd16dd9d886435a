/**
 * Blob URLs built without the SDK's per-blob clients (src/lib/storage/sas.ts `BlobUrls`) are the
 * URLs the SDK itself builds, for Azurite's path-style endpoints and for Azure's, whatever the name;
 * a SAS URL reused within a second is the one signing again would give.
 */
import { afterEach, describe, expect, jest, test } from '@jest/globals';
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

describe('SAS URLs signed within one second', () => {
  afterEach(() => {
    jest.restoreAllMocks();
  });

  /** The SDK's own URL for `name`, read for 900 s, expiring at `se`. */
  async function sdkUrl(name: string, se: string): Promise<string> {
    return await services[0]!.getContainerClient('documents').getBlockBlobClient(name).generateSasUrl({
      permissions: BlobSASPermissions.parse('r'),
      expiresOn: new Date(se),
      protocol: SASProtocol.HttpsAndHttp,
    });
  }

  test('are the string signing again gives, in the same second and in the next', async () => {
    const signer = createSasSigner({ kind: 'sharedKey', blobService: services[0]! });
    const now = jest.spyOn(Date, 'now');
    const second = 1_900_000_000_000;
    const urls: string[] = [];
    for (const at of [second + 10, second + 990, second + 1_000]) {
      now.mockReturnValue(at);
      urls.push(await signer.blobUrl('documents', names[1]!, { access: 'read', expiresInSeconds: 900 }));
    }
    const [first, sameSecond, nextSecond] = urls.map((url) => new URL(url));
    expect(sameSecond!.href).toBe(first!.href);
    expect(Date.parse(first!.searchParams.get('se')!)).toBe(second + 900_000);
    expect(Date.parse(nextSecond!.searchParams.get('se')!)).toBe(second + 901_000);
    for (const url of [first!, nextSecond!]) {
      const theirs = new URL(await sdkUrl(names[1]!, url.searchParams.get('se')!));
      for (const parameter of ['sv', 'spr', 'sp', 'sr', 'se', 'sig']) expect(url.searchParams.get(parameter)).toBe(theirs.searchParams.get(parameter));
    }
  });

  test('are per blob and access, and a refused access is refused every time', async () => {
    const signer = createSasSigner({ kind: 'sharedKey', blobService: services[0]! });
    jest.spyOn(Date, 'now').mockReturnValue(1_900_000_000_500);
    const a = await signer.blobUrl('documents', names[0]!, { access: 'read', expiresInSeconds: 900 });
    const b = await signer.blobUrl('documents', names[2]!, { access: 'read', expiresInSeconds: 900 });
    const write = await signer.blobUrl('documents', names[0]!, { access: 'createWrite', expiresInSeconds: 900 });
    expect(new URL(a).pathname).not.toBe(new URL(b).pathname);
    expect(new URL(write).searchParams.get('sp')).toBe('cw');
    expect(new URL(a).searchParams.get('sp')).toBe('r');
    for (let attempt = 0; attempt < 2; attempt++) {
      await expect(signer.blobUrl('originals', names[0]!, { access: 'createWrite', expiresInSeconds: 900 })).rejects.toThrow(RangeError);
    }
  });
});
