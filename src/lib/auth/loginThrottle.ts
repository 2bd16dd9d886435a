/**
 * Login throttling per account, shared by all instances through table `loginAttempts`
 * (PartitionKey = the e-mail address as typed at login, {@link textKey}; RowKey = `window`).
 *
 * CONTRACT §2: the window opens at an account's first failure and lasts 15 minutes; the 6th attempt
 * inside it, and every one after, gets 429 with `Retry-After` (seconds until the window closes) without
 * the password being checked or counted; a successful login closes the window. Unknown addresses are
 * counted the same way, so a 429 never tells whether an account exists.
 */
import type { TableClient } from '@azure/data-tables';
import { AppError } from '../errors.js';
import { storageStatus, textKey } from '../storage/keys.js';

/** Failures allowed inside one window. */
export const MAX_FAILURES = 5;
/** Window length, seconds. */
export const WINDOW_SECONDS = 15 * 60;

const ROW_KEY = 'window';
const MAX_ATTEMPTS = 10;

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
   * @throws AppError `too_many_requests` (429, `Retry-After` = seconds until the window closes) when the
   *   account already has {@link MAX_FAILURES} failures in its open window
   */
  async assertAllowed(email: string): Promise<void> {
    const window = await this.read(email);
    if (window === null) return;
    const remainingMs = window.windowStart + WINDOW_SECONDS * 1000 - this.now();
    if (remainingMs > 0 && window.failures >= MAX_FAILURES) {
      throw new AppError('too_many_requests', 'Too many failed logins for this account; wait before trying again.', {
        type: 'login-throttled',
        retryAfterSeconds: Math.ceil(remainingMs / 1000),
      });
    }
  }

  /** Counts one failure, opening a new window when none is open. */
  async recordFailure(email: string): Promise<void> {
    const partitionKey = textKey(email);
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const now = this.now();
      const window = await this.read(email);
      try {
        if (window === null) {
          await this.table.createEntity<WindowEntity>({ partitionKey, rowKey: ROW_KEY, windowStart: now, failures: 1 });
        } else {
          const open = window.windowStart + WINDOW_SECONDS * 1000 > now;
          await this.table.updateEntity<WindowEntity>(
            { partitionKey, rowKey: ROW_KEY, windowStart: open ? window.windowStart : now, failures: open ? window.failures + 1 : 1 },
            'Replace',
            { etag: window.etag! },
          );
        }
        return;
      } catch (error) {
        const status = storageStatus(error);
        if (status !== 409 && status !== 412) throw error;
      }
    }
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
