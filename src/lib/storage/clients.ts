/**
 * Table, Blob and Queue clients for the configured storage account, created once per process.
 *
 * - `STORAGE_CONNECTION_STRING` (or nothing: `UseDevelopmentStorage=true`): shared-key clients, and SAS
 *   URLs signed with the account key.
 * - `STORAGE_ACCOUNT_NAME` alone: `DefaultAzureCredential` (the Function App's managed identity), and
 *   user-delegation SAS, because such an account allows no shared-key access.
 */
import { TableClient, TableServiceClient } from '@azure/data-tables';
import { BlobServiceClient, type ContainerClient } from '@azure/storage-blob';
import { QueueServiceClient, type QueueClient } from '@azure/storage-queue';
import type { AccessToken, GetTokenOptions, TokenCredential } from '@azure/core-auth';
import { getConfig, type Config } from '../config.js';
import { QUEUES } from './queues.js';
import { createSasSigner, type SasSigner } from './sas.js';

/** Table names (CONTRACT storage layout, README "Storage layout"). */
export const TABLES = {
  users: 'users',
  invitations: 'invitations',
  envelopes: 'envelopes',
  seals: 'seals',
  loginAttempts: 'loginAttempts',
  signingLinks: 'signingLinks',
  // The due index (dueIndex.ts): one table per kind of due work.
  dueOutbox: 'dueOutbox',
  dueExpiry: 'dueExpiry',
  dueReminders: 'dueReminders',
  dueCompletions: 'dueCompletions',
  dueIdempotencyKeys: 'dueIdempotencyKeys',
  webhooks: 'webhooks',
  webhookDeliveries: 'webhookDeliveries',
  apiKeys: 'apiKeys',
  idempotencyKeys: 'idempotencyKeys',
} as const;

/**
 * Tables earlier versions used and this one only reads, to move what they hold: never created.
 * `dueIndex`: every kind of due work in one table, now one table per kind (`DueIndex.moveLegacyEntries`).
 */
export const LEGACY_TABLES = {
  dueIndex: 'dueIndex',
} as const;

/**
 * Blob containers: `documents` as uploaded (through create/write SAS URLs), `originals` the frozen
 * copies of envelopes that left `draft` (CONTRACT §4: no SAS ever grants more than read on it),
 * `sealed` the PDFs completion produces.
 */
export const CONTAINERS = {
  documents: 'documents',
  originals: 'originals',
  sealed: 'sealed',
} as const;

export interface Storage {
  tables: Record<keyof typeof TABLES, TableClient>;
  legacyTables: Record<keyof typeof LEGACY_TABLES, TableClient>;
  tableService: TableServiceClient;
  blobService: BlobServiceClient;
  containers: Record<keyof typeof CONTAINERS, ContainerClient>;
  queueService: QueueServiceClient;
  queues: Record<keyof typeof QUEUES, QueueClient>;
  sas: SasSigner;
}

let cached: Storage | undefined;

/** The storage clients of this process, built from {@link getConfig} on first use. */
export function getStorage(): Storage {
  cached ??= createStorage(getConfig().storage);
  return cached;
}

/** Forgets the clients so the next {@link getStorage} builds them from the current settings (tests). */
export function resetStorage(): void {
  cached = undefined;
}

/**
 * Builds clients for one storage account.
 * @param credential only for `managedIdentity`; defaults to `DefaultAzureCredential`
 */
export function createStorage(settings: Config['storage'], credential?: TokenCredential): Storage {
  if (settings.kind === 'connectionString') {
    const connectionString = settings.connectionString;
    const insecure = /(^|;)\s*UseDevelopmentStorage=true/i.test(connectionString) || /Endpoint=http:\/\//i.test(connectionString);
    const tableOptions = { allowInsecureConnection: insecure };
    const blobService = BlobServiceClient.fromConnectionString(connectionString);
    return assemble(
      (name) => TableClient.fromConnectionString(connectionString, name, tableOptions),
      TableServiceClient.fromConnectionString(connectionString, tableOptions),
      blobService,
      QueueServiceClient.fromConnectionString(connectionString),
      createSasSigner({ kind: 'sharedKey', blobService }),
    );
  }
  const tokenCredential = credential ?? defaultCredential();
  const tableUrl = `https://${settings.accountName}.table.core.windows.net`;
  const blobService = new BlobServiceClient(`https://${settings.accountName}.blob.core.windows.net`, tokenCredential);
  return assemble(
    (name) => new TableClient(tableUrl, name, tokenCredential),
    new TableServiceClient(tableUrl, tokenCredential),
    blobService,
    new QueueServiceClient(`https://${settings.accountName}.queue.core.windows.net`, tokenCredential),
    createSasSigner({ kind: 'userDelegation', blobService }),
  );
}

function assemble(
  table: (name: string) => TableClient,
  tableService: TableServiceClient,
  blobService: BlobServiceClient,
  queueService: QueueServiceClient,
  sas: SasSigner,
): Storage {
  const tables = Object.fromEntries(Object.entries(TABLES).map(([key, name]) => [key, table(name)])) as Storage['tables'];
  const legacyTables = Object.fromEntries(Object.entries(LEGACY_TABLES).map(([key, name]) => [key, table(name)])) as Storage['legacyTables'];
  const containers = Object.fromEntries(
    Object.entries(CONTAINERS).map(([key, name]) => [key, blobService.getContainerClient(name)]),
  ) as Storage['containers'];
  const queues = Object.fromEntries(Object.entries(QUEUES).map(([key, name]) => [key, queueService.getQueueClient(name)])) as Storage['queues'];
  return { tables, legacyTables, tableService, blobService, containers, queueService, queues, sas };
}

/**
 * `DefaultAzureCredential` from `@azure/identity`, imported on the first token request so that local
 * development, tests and cold starts with a connection string never load it.
 */
class LazyDefaultAzureCredential implements TokenCredential {
  private inner: Promise<TokenCredential> | undefined;

  async getToken(scopes: string | string[], options?: GetTokenOptions): Promise<AccessToken | null> {
    this.inner ??= import('@azure/identity').then((identity) => new identity.DefaultAzureCredential());
    return await (await this.inner).getToken(scopes, options);
  }
}

function defaultCredential(): TokenCredential {
  return new LazyDefaultAzureCredential();
}
