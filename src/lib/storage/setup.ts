/**
 * Creates the tables, containers and queues (with their `-poison` queues) the service uses and sets Blob CORS, so browsers can PUT to an
 * upload SAS (docs/api.md#create-an-envelope-and-upload-its-document). Idempotent. In Azure the Bicep templates do the same; the local host and
 * the tests call this at start.
 */
import type { Storage } from './clients.js';

export interface EnsureStorageOptions {
  /** Origins allowed to PUT to upload URLs and GET documents; `['*']` for any. */
  allowedOrigins: string[];
}

/** Creates what is missing; leaves existing tables, containers and data untouched. */
export async function ensureStorage(storage: Storage, options: EnsureStorageOptions): Promise<void> {
  await Promise.all([
    ...Object.values(storage.tables).map((table) => table.createTable()),
    ...Object.values(storage.containers).map((container) => container.createIfNotExists()),
    ...Object.values(storage.queues).flatMap((queue) => [
      queue.createIfNotExists(),
      storage.queueService.getQueueClient(`${queue.name}-poison`).createIfNotExists(),
    ]),
  ]);
  await storage.blobService.setProperties({
    cors: [
      {
        allowedOrigins: options.allowedOrigins.join(','),
        allowedMethods: 'PUT,GET,HEAD,OPTIONS',
        allowedHeaders: 'content-type,x-ms-blob-type,x-ms-version,x-ms-client-request-id,x-ms-date,x-ms-blob-content-type',
        exposedHeaders: 'etag,x-ms-request-id,content-length,content-md5',
        maxAgeInSeconds: 3600,
      },
    ],
  });
}
