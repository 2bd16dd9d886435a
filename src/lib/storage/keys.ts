/**
 * Table Storage keys. PartitionKey and RowKey may not contain `/ \ # ?` or control characters, so
 * text from users (e-mail addresses) is encoded when it holds anything outside a safe set.
 */

const SAFE_KEY = /^[a-z0-9._+@-]+$/;

/**
 * A key for user text: the text itself when it only holds `a-z 0-9 . _ + @ -` (readable in Storage
 * Explorer), else `:` followed by base64url of its UTF-8 bytes. The two forms cannot collide because
 * `:` is not in the safe set.
 */
export function textKey(text: string): string {
  return SAFE_KEY.test(text) ? text : `:${Buffer.from(text, 'utf8').toString('base64url')}`;
}

/** Maps a storage error status to what it means for the domain: 404, 409, 412 or something else. */
export function storageStatus(error: unknown): number | undefined {
  const statusCode = (error as { statusCode?: unknown } | null)?.statusCode;
  return typeof statusCode === 'number' ? statusCode : undefined;
}
