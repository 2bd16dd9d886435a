/**
 * Table, Blob and Queue clients for the configured storage account, created once per process.
 *
 * - `STORAGE_CONNECTION_STRING` (or nothing: `UseDevelopmentStorage=true`): shared-key clients, and SAS
 *   URLs signed with the account key.
 * - `STORAGE_ACCOUNT_NAME` alone: `DefaultAzureCredential` (the Function App's managed identity), and
 *   user-delegation SAS, because such an account allows no shared-key access.
 */
import { TableClient, TableServiceClient } from '@azure/data-tables';
import { BlobServiceClient, newPipeline as newBlobPipeline, type AnonymousCredential, type ContainerClient, type StoragePipelineOptions, type StorageSharedKeyCredential } from '@azure/storage-blob';
import { QueueServiceClient, newPipeline as newQueuePipeline, type QueueClient } from '@azure/storage-queue';
import type { AccessToken, GetTokenOptions, TokenCredential } from '@azure/core-auth';
import { getConfig, type Config } from '../config.js';
import { telemetryWanted } from '../telemetry/index.js';
import { QUEUES } from './queues.js';
import { createSasSigner, type SasSigner } from './sas.js';
import { storageSpanFactory, withTableSpans } from './storageSpans.js';

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
  dueLog: 'dueLog',
  webhooks: 'webhooks',
  webhookDeliveries: 'webhookDeliveries',
  apiKeys: 'apiKeys',
  templates: 'templates',
  organizations: 'organizations',
  // The public append-only log (transparency/logStore.ts): rows written once, and the rows that change.
  publicLog: 'publicLog',
  publicLogState: 'publicLogState',
  // Retention periods, the index of finished envelopes and the purge log (retentionRepository.ts).
  retention: 'retention',
  // Phone numbers texted: opt-outs, accepted texts' ids (envelopes/smsNumbers.ts).
  smsNumbers: 'smsNumbers',
  // Bulk jobs and their rows (bulk/repository.ts).
  bulkJobs: 'bulkJobs',
  // Public links: the template behind each, its uses, codes, per-address counts (publicLinkRepository.ts).
  publicLinks: 'publicLinks',
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
 * Builds clients for one storage account. With telemetry wanted, every client runs each call in a
 * span (`storageSpans.ts`); without it the clients are the SDKs' own, unchanged.
 * @param credential only for `managedIdentity`; defaults to `DefaultAzureCredential`
 * @param role how long failing calls are retried ({@link StorageRole}); `request` by default
 */
export function createStorage(settings: Config['storage'], credential?: TokenCredential, role: StorageRole = 'request'): Storage {
  const retries = STORAGE_RETRIES[role];
  const tableRetry = retries.tables === undefined ? {} : { retryOptions: retries.tables };
  const storageRetry = retries.blobsAndQueues === undefined ? {} : { retryOptions: retries.blobsAndQueues };
  const spans = telemetryWanted();
  if (settings.kind === 'connectionString') {
    const connectionString = settings.connectionString;
    const insecure = /(^|;)\s*UseDevelopmentStorage=true/i.test(connectionString) || /Endpoint=http:\/\//i.test(connectionString);
    const tableOptions = { allowInsecureConnection: insecure, ...tableRetry };
    const tableService = TableServiceClient.fromConnectionString(connectionString, tableOptions);
    const blobService = BlobServiceClient.fromConnectionString(connectionString, storageRetry);
    const queueService = QueueServiceClient.fromConnectionString(connectionString, storageRetry);
    if (!spans) {
      return assemble(
        (name) => TableClient.fromConnectionString(connectionString, name, tableOptions),
        tableService,
        blobService,
        queueService,
        createSasSigner({ kind: 'sharedKey', blobService }),
      );
    }
    // The same clients again, each with the span policy in its pipeline, on the connection string's
    // credential (the account's key, or none when the URLs carry its SAS).
    const tracedBlobs = tracedBlobService(blobService.url, blobService.credential, storageRetry);
    return assemble(
      (name) => TableClient.fromConnectionString(connectionString, name, withTableSpans(tableOptions, tableService.url, name)),
      TableServiceClient.fromConnectionString(connectionString, withTableSpans(tableOptions, tableService.url)),
      tracedBlobs,
      tracedQueueService(queueService.url, blobService.credential, storageRetry),
      createSasSigner({ kind: 'sharedKey', blobService: tracedBlobs }),
    );
  }
  const tokenCredential = credential ?? defaultCredential();
  const tableUrl = `https://${settings.accountName}.table.core.windows.net`;
  const blobUrl = `https://${settings.accountName}.blob.core.windows.net`;
  const queueUrl = `https://${settings.accountName}.queue.core.windows.net`;
  const blobService = spans ? tracedBlobService(blobUrl, tokenCredential, storageRetry) : new BlobServiceClient(blobUrl, tokenCredential, storageRetry);
  return assemble(
    (name) => new TableClient(tableUrl, name, tokenCredential, spans ? withTableSpans(tableRetry, tableUrl, name) : tableRetry),
    new TableServiceClient(tableUrl, tokenCredential, spans ? withTableSpans(tableRetry, tableUrl) : tableRetry),
    blobService,
    spans ? tracedQueueService(queueUrl, tokenCredential, storageRetry) : new QueueServiceClient(queueUrl, tokenCredential, storageRetry),
    createSasSigner({ kind: 'userDelegation', blobService }),
  );
}

type StorageCredential = StorageSharedKeyCredential | AnonymousCredential | TokenCredential;

/** A Blob service client whose pipeline runs each call in a span (`storageSpans.ts`). */
function tracedBlobService(url: string, credential: StorageCredential, options: StoragePipelineOptions): BlobServiceClient {
  const pipeline = newBlobPipeline(credential, options);
  pipeline.factories.push(storageSpanFactory('blob', url));
  return new BlobServiceClient(url, pipeline);
}

/** A Queue service client whose pipeline runs each call in a span (`storageSpans.ts`). */
function tracedQueueService(url: string, credential: StorageCredential, options: Parameters<typeof newQueuePipeline>[1]): QueueServiceClient {
  const pipeline = newQueuePipeline(credential, options);
  pipeline.factories.push(storageSpanFactory('queue', url));
  return new QueueServiceClient(url, pipeline);
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
