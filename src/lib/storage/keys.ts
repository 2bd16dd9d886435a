/**
 * Table Storage keys. PartitionKey and RowKey may not contain `/ \ # ?` or control characters, so
 * text from users (e-mail addresses) is encoded when it holds anything outside a safe set.
 */

import { createHash } from 'node:crypto';
import type { TableClient } from '@azure/data-tables';

const SAFE_KEY = /^[a-z0-9._+@-]+$/;

/** Longest key {@link textKey} writes as text, UTF-16 units: Table Storage keys hold at most 1 KiB (512 units). */
const MAX_TEXT_KEY = 400;

/**
 * A key for user text: the text itself when it only holds `a-z 0-9 . _ + @ -` (readable in Storage
 * Explorer), else `:` followed by base64url of its UTF-8 bytes; when that would be longer than
 * {@link MAX_TEXT_KEY} (an address of 254 non-ASCII characters), `~` followed by the hex SHA-256 of
 * the UTF-8 bytes. The forms cannot collide because neither `:` nor `~` is in the safe set.
 */
export function textKey(text: string): string {
  if (SAFE_KEY.test(text) && text.length <= MAX_TEXT_KEY) return text;
  const encoded = `:${Buffer.from(text, 'utf8').toString('base64url')}`;
  return encoded.length <= MAX_TEXT_KEY ? encoded : `~${createHash('sha256').update(text, 'utf8').digest('hex')}`;
}

/** Maps a storage error status to what it means for the domain: 404, 409, 412 or something else. */
export function storageStatus(error: unknown): number | undefined {
  const statusCode = (error as { statusCode?: unknown } | null)?.statusCode;
  return typeof statusCode === 'number' ? statusCode : undefined;
}

/** Azure Storage's error code for a write or delete refused by an immutability policy (WORM). */
export const BLOB_IMMUTABLE_ERROR_CODE = 'BlobImmutableDueToPolicy';

/**
 * Whether storage refused a blob operation because of an immutability policy: 409 with
 * `x-ms-error-code: BlobImmutableDueToPolicy` (a Delete Blob or Set Blob Metadata of a version under
 * a version-level WORM policy, docs/api.md#sealed-pdfs-are-immutable).
 */
export function isImmutableRefusal(error: unknown): boolean {
  return storageStatus(error) === 409 && (error as { code?: unknown } | null)?.code === BLOB_IMMUTABLE_ERROR_CODE;
}

/**
 * The keys of a resource kept as one row in its owner's partition (an API key, a webhook): PartitionKey
 * the owner's id, RowKey `prefix` + the resource's id; with its `id`, the property the row repeats it in.
 */
export function ownedRow(prefix: string, resource: { ownerId: string; id: string }): { partitionKey: string; rowKey: string; id: string } {
  return { partitionKey: resource.ownerId, rowKey: prefix + resource.id, id: resource.id };
}

/**
 * Table Storage's point read of one row, `null` when it does not exist (404).
 * @throws the storage error of any other failure
 */
export async function entityOrNull<T extends object>(table: TableClient, partitionKey: string, rowKey: string): Promise<(T & { partitionKey?: string; rowKey?: string }) | null> {
  try {
    return await table.getEntity<T>(partitionKey, rowKey);
  } catch (error) {
    if (storageStatus(error) === 404) return null;
    throw error;
  }
}

/**
 * Deletes one row; a row that is not there (404) is not an error.
 * @throws the storage error of any other failure
 */
export async function deleteEntityIfExists(table: TableClient, partitionKey: string, rowKey: string): Promise<void> {
  try {
    await table.deleteEntity(partitionKey, rowKey);
  } catch (error) {
    if (storageStatus(error) !== 404) throw error;
  }
}
