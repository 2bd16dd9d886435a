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

/** Table names (docs/architecture.md, README "Storage layout"). */
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
  dueRemovals: 'dueRemovals',
  webhooks: 'webhooks',
  webhookDeliveries: 'webhookDeliveries',
  apiKeys: 'apiKeys',
  templates: 'templates',
  organizations: 'organizations',
  // Bulk jobs and their rows (bulk/repository.ts).
  bulkJobs: 'bulkJobs',
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
 * copies of envelopes that left `draft` (docs/api.md#create-an-envelope-and-upload-its-document: no SAS ever grants more than read on it),
 * `sealed` the PDFs completion produces, `templates` the uploads of templates (docs/api.md#templates; a
 * template's frozen copy is in `originals` too, under `<templateId>/<filename>`).
 */
export const CONTAINERS = {
  documents: 'documents',
  originals: 'originals',
  sealed: 'sealed',
  templates: 'templates',
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

/**
 * Who waits for a storage call, which decides how long the SDK retries a failing one:
 * - `request`: an HTTP request. One retry, 200 ms after the failure, so that a storage outage is
 *   refused within a second (503 with `Retry-After`, `src/lib/http/register.ts`) instead of after the
 *   SDK's default 4 to 6 s of retries, and the client retries when the answer tells it to.
 * - `background`: queue and timer functions (e-mail, webhooks, the sweeper). Nobody waits for an
 *   answer, and an attempt that fails costs one of the queue's five dequeues: the SDK's default
 *   retries (3 more tries, with exponentially growing pauses) ride out a short outage inside the
 *   attempt.
 */
export type StorageRole = 'request' | 'background';

/** SDK retry options of each role (see {@link StorageRole}). */
export const STORAGE_RETRIES = {
  request: {
    /** `@azure/data-tables` (core-rest-pipeline): retries after the first try. */
    tables: { maxRetries: 1, retryDelayInMs: 200, maxRetryDelayInMs: 400 },
    /** `@azure/storage-blob` and `@azure/storage-queue`: tries in all, the first included. */
    blobsAndQueues: { maxTries: 2, retryDelayInMs: 200, maxRetryDelayInMs: 400 },
  },
  background: { tables: undefined, blobsAndQueues: undefined },
} as const;

const cached: Partial<Record<StorageRole, Storage>> = {};

/**
 * The storage clients of this process, built from {@link getConfig} on first use.
 * @param role `request` (HTTP functions, the default) or `background` (queue and timer functions)
 */
export function getStorage(role: StorageRole = 'request'): Storage {
  cached[role] ??= createStorage(getConfig().storage, undefined, role);
  return cached[role];
}

/** Forgets the clients so the next {@link getStorage} builds them from the current settings (tests). */
export function resetStorage(): void {
  delete cached.request;
  delete cached.background;
}

/**
 * Builds clients for one storage account.
 * @param credential only for `managedIdentity`; defaults to `DefaultAzureCredential`
 * @param role how long failing calls are retried ({@link StorageRole}); `request` by default
 */
export function createStorage(settings: Config['storage'], credential?: TokenCredential, role: StorageRole = 'request'): Storage {
  const retries = STORAGE_RETRIES[role];
  const tableRetry = retries.tables === undefined ? {} : { retryOptions: retries.tables };
  const storageRetry = retries.blobsAndQueues === undefined ? {} : { retryOptions: retries.blobsAndQueues };
  if (settings.kind === 'connectionString') {
    const connectionString = settings.connectionString;
    const insecure = /(^|;)\s*UseDevelopmentStorage=true/i.test(connectionString) || /Endpoint=http:\/\//i.test(connectionString);
    const tableOptions = { allowInsecureConnection: insecure, ...tableRetry };
    const blobService = BlobServiceClient.fromConnectionString(connectionString, storageRetry);
    return assemble(
      (name) => TableClient.fromConnectionString(connectionString, name, tableOptions),
      TableServiceClient.fromConnectionString(connectionString, tableOptions),
      blobService,
      QueueServiceClient.fromConnectionString(connectionString, storageRetry),
      createSasSigner({ kind: 'sharedKey', blobService }),
    );
  }
  const tokenCredential = credential ?? defaultCredential();
  const tableUrl = `https://${settings.accountName}.table.core.windows.net`;
  const blobService = new BlobServiceClient(`https://${settings.accountName}.blob.core.windows.net`, tokenCredential, storageRetry);
  return assemble(
    (name) => new TableClient(tableUrl, name, tokenCredential, tableRetry),
    new TableServiceClient(tableUrl, tokenCredential, tableRetry),
    blobService,
    new QueueServiceClient(`https://${settings.accountName}.queue.core.windows.net`, tokenCredential, storageRetry),
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
