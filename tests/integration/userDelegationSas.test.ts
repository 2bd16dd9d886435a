/**
 * SAS signing paths (docs/deploy.md, docs/api.md#configuration). The user-delegation path runs for real against an
 * Azurite with HTTPS and OAuth (its basic mode issues user delegation keys and validates SAS signed
 * with them); the selection between the two paths is checked from the settings.
 */
import { execFile } from 'node:child_process';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { startAzurite, type RunningAzurite } from '../../src/local/azurite.js';
import { createStorage } from '../../src/lib/storage/clients.js';

const run = promisify(execFile);
let azurite: RunningAzurite;
let certFile: string;

beforeAll(async () => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'azurite-oauth-'));
  certFile = path.join(dir, 'cert.pem');
  const keyFile = path.join(dir, 'key.pem');
  await run('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', keyFile, '-out', certFile, '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1']);
  azurite = await startAzurite({ extraArgs: ['--oauth', 'basic', '--cert', certFile, '--key', keyFile] });
});
afterAll(async () => {
  await azurite.stop();
});

describe('user delegation SAS', () => {
  test('signs with a user delegation key; URLs carry exactly their permission and work only for their blob', async () => {
    const { stdout } = await run(process.execPath, ['dist/tests/support/userDelegationProbe.js', azurite.blobEndpoint], {
      env: { ...process.env, NODE_EXTRA_CA_CERTS: certFile },
    });
    const result = JSON.parse(stdout) as Record<string, unknown>;
    expect(result).toMatchObject({
      signerKind: 'userDelegation',
      uploadUrlProtocol: 'https:',
      sasProtocol: 'https',
      skoid: '6a7f6a2c-9b6e-4f51-8f0e-2f4a8a1b0c11',
      permissions: 'cw',
      put: 201,
      read: 200,
      readBody: '%PDF-1.7 probe',
    });
    expect(result.readWithUploadUrl).toBe(403);
    expect(result.otherBlob).toBe(403);
    expect(result.writeWithReadUrl).toBe(403);
    // A key lasts 2 days and is renewed once less than a day (the longest SAS) and 5 minutes remain:
    // signing at 0 h, 1 h, 24 h (renewed) and 25 h needs two key requests.
    expect(result.keyRequestsAfter).toEqual([1, 1, 2, 2]);
  });
});

describe('choosing the signing path', () => {
  test('a connection string signs with the account key; an account name alone uses managed identity and user delegation', () => {
    const shared = createStorage({ kind: 'connectionString', connectionString: azurite.connectionString });
    expect(shared.sas.kind).toBe('sharedKey');
    const identity = createStorage({ kind: 'managedIdentity', accountName: 'envelopes01' });
    expect(identity.sas.kind).toBe('userDelegation');
    expect(identity.blobService.url).toBe('https://envelopes01.blob.core.windows.net/');
    expect(identity.tables.envelopes.url).toBe('https://envelopes01.table.core.windows.net');
  });
});
