/**
 * Runs in a child process that trusts a throwaway certificate (NODE_EXTRA_CA_CERTS): signs SAS URLs
 * with a user delegation key from an Azurite running HTTPS with OAuth, uses them as a client would,
 * and prints what happened as JSON. Argument: the Blob endpoint (`https://127.0.0.1:port/devstoreaccount1`).
 */
import { BlobServiceClient } from '@azure/storage-blob';
import type { AccessToken, TokenCredential } from '@azure/core-auth';
import { createSasSigner } from '../../src/lib/storage/sas.js';

/**
 * An Entra ID-shaped access token. Azurite's basic OAuth checks issuer, audience and lifetime, not the
 * signature, so this stands in for what DefaultAzureCredential gets from Entra ID in Azure.
 */
class AzuriteOAuthCredential implements TokenCredential {
  async getToken(): Promise<AccessToken> {
    const now = Math.floor(Date.now() / 1000);
    const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const token = `${part({ alg: 'RS256', typ: 'JWT' })}.${part({
      aud: 'https://storage.azure.com',
      iss: 'https://sts.windows.net/72f988bf-86f1-41af-91ab-2d7cd011db47/',
      oid: '6a7f6a2c-9b6e-4f51-8f0e-2f4a8a1b0c11',
      tid: '72f988bf-86f1-41af-91ab-2d7cd011db47',
      nbf: now - 60,
      iat: now - 60,
      exp: now + 3600,
    })}.c2lnbmF0dXJl`;
    return { token, expiresOnTimestamp: (now + 3600) * 1000 };
  }
}

async function main(): Promise<void> {
  const blobService = new BlobServiceClient(process.argv[2]!, new AzuriteOAuthCredential());
  const container = blobService.getContainerClient('documents');
  await container.createIfNotExists();
  // Azurite 3.35 knows the user-delegation string-to-sign up to service version 2025-07-05.
  const signer = createSasSigner({ kind: 'userDelegation', blobService, version: '2025-07-05' });
  const uploadUrl = await signer.blobUrl('documents', 'env/contract.pdf', { access: 'createWrite', expiresInSeconds: 300 });
  const readUrl = await signer.blobUrl('documents', 'env/contract.pdf', { access: 'read', expiresInSeconds: 300 });
  const put = await fetch(uploadUrl, { method: 'PUT', headers: { 'x-ms-blob-type': 'BlockBlob', 'Content-Type': 'application/pdf' }, body: '%PDF-1.7 probe' });
  const readWithUploadUrl = await fetch(uploadUrl);
  const read = await fetch(readUrl);
  const otherBlob = await fetch(uploadUrl.replace('env/contract.pdf', 'env/other.pdf'), { method: 'PUT', headers: { 'x-ms-blob-type': 'BlockBlob' }, body: 'x' });
  const writeWithReadUrl = await fetch(readUrl, { method: 'PUT', headers: { 'x-ms-blob-type': 'BlockBlob' }, body: 'x' });
  // Key caching: counted on the real client; the clock is moved for signing only (URLs not used).
  let clock = Date.now();
  let keyRequests = 0;
  const counted = new BlobServiceClient(process.argv[2]!, new AzuriteOAuthCredential());
  const getKey = counted.getUserDelegationKey.bind(counted) as (...args: unknown[]) => Promise<unknown>;
  Object.assign(counted, {
    getUserDelegationKey: async (...args: unknown[]) => {
      keyRequests++;
      return await getKey(...args);
    },
  });
  const timed = createSasSigner({ kind: 'userDelegation', blobService: counted, now: () => new Date(clock), version: '2025-07-05' });
  const keyRequestsAfter: number[] = [];
  for (const advanceHours of [0, 1, 23, 1]) {
    clock += advanceHours * 3600_000;
    await timed.blobUrl('documents', 'env/contract.pdf', { access: 'read', expiresInSeconds: 86_400 });
    keyRequestsAfter.push(keyRequests);
  }

  const query = new URL(uploadUrl).searchParams;
  console.log(
    JSON.stringify({
      signerKind: signer.kind,
      uploadUrlProtocol: new URL(uploadUrl).protocol,
      sasProtocol: query.get('spr'),
      skoid: query.get('skoid'),
      permissions: query.get('sp'),
      put: put.status,
      readWithUploadUrl: readWithUploadUrl.status,
      read: read.status,
      readBody: await read.text(),
      otherBlob: otherBlob.status,
      writeWithReadUrl: writeWithReadUrl.status,
      keyRequestsAfter,
    }),
  );
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : String(error));
  process.exitCode = 1;
});
