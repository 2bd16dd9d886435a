/**
 * Login throttling per account, shared by all instances through table `loginAttempts`
 * (PartitionKey = the e-mail address as typed at login, {@link textKey}; RowKey = `window`).
 *
 * docs/api.md#accounts: the window opens at an account's first failure and lasts 15 minutes; the 6th attempt
 * inside it, and every one after, gets 429 with `Retry-After` (seconds until the window closes) without
 * the password being checked or counted; a successful login closes the window. Unknown addresses are
 * counted the same way, so a 429 never tells whether an account exists.
 *
 * Each attempt is counted before its password is checked ({@link LoginThrottle.beginAttempt}), with an
 * ETag-conditional write, so parallel attempts cannot all pass the check and get more than
 * {@link MAX_FAILURES} passwords tried per window; a success then closes the window.
 */
import type { TableClient } from '@azure/data-tables';
import { storageStatus, textKey } from '../storage/keys.js';
import { problem } from '../problems.js';
import { retryOnConflict } from '../retryOnConflict.js';

/** Failures allowed inside one window. */
export const MAX_FAILURES = 5;
/** Window length, seconds. */
export const WINDOW_SECONDS = 15 * 60;

const ROW_KEY = 'window';

interface WindowEntity {
  partitionKey: string;
  rowKey: string;
  /** Epoch milliseconds of the first failure. */
  windowStart: number;
  failures: number;
  etag?: string;
}

export class LoginThrottle {
  constructor(
    private readonly table: TableClient,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Counts one attempt as a failure before its password is checked, opening a new window when none is
   * open; a successful login then closes the window ({@link recordSuccess}). Atomic: of any number of
   * concurrent attempts, at most {@link MAX_FAILURES} per window get through.
   * @throws AppError `too_many_requests` (429, `Retry-After` = seconds until the window closes) when the
   *   account already has {@link MAX_FAILURES} failures in its open window (that attempt is not
   *   counted), or when so many attempts arrive at once that the window stays contended after
   *   `CONFLICT_ATTEMPTS` conditional writes of `../retryOnConflict.ts` (never a pass)
   */
  async beginAttempt(email: string): Promise<void> {
    const partitionKey = textKey(email);
    await retryOnConflict(
      async () => {
        const now = this.now();
        const window = await this.read(email);
        const remainingMs = window === null ? 0 : window.windowStart + WINDOW_SECONDS * 1000 - now;
        if (window !== null && remainingMs > 0 && window.failures >= MAX_FAILURES) {
          throw problem('loginThrottled', { retryAfterSeconds: Math.ceil(remainingMs / 1000) });
        }
        if (window === null) {
          await this.table.createEntity<WindowEntity>({ partitionKey, rowKey: ROW_KEY, windowStart: now, failures: 1 });
        } else {
          const open = remainingMs > 0;
          await this.table.updateEntity<WindowEntity>(
            { partitionKey, rowKey: ROW_KEY, windowStart: open ? window.windowStart : now, failures: open ? window.failures + 1 : 1 },
            'Replace',
            { etag: window.etag! },
          );
        }
      },
      {
        // 409: another attempt opened the window first; 412: another one counted first.
        isConflict: (error) => storageStatus(error) === 409 || storageStatus(error) === 412,
        exhausted: () => {
          throw problem('loginThrottled', { detail: 'Too many login attempts for this account at once; retry shortly.', retryAfterSeconds: 1 });
        },
      },
    );
  }

  /** Closes the window after a successful login. */
  async recordSuccess(email: string): Promise<void> {
    try {
      await this.table.deleteEntity(textKey(email), ROW_KEY);
    } catch (error) {
      if (storageStatus(error) !== 404) throw error;
    }
  }

  private async read(email: string): Promise<WindowEntity | null> {
    try {
      return await this.table.getEntity<WindowEntity>(textKey(email), ROW_KEY);
    } catch (error) {
      if (storageStatus(error) === 404) return null;
      throw error;
    }
  }
}
