/**
 * Users, table `users`: PartitionKey = the e-mail address ({@link textKey}), RowKey = `user`.
 * Keyed by e-mail because login looks users up by e-mail, and the insert's uniqueness is what makes an
 * address register only once. The token carries both `sub` and `email`, so checking that a token's
 * user still exists is one point read too, which {@link UserRepository.findForToken} skips for a user
 * it found in the last {@link TOKEN_USER_CACHE_MS} milliseconds.
 */
import type { TableClient } from '@azure/data-tables';
import { AppError } from '../errors.js';
import { RecentLookups } from '../recentLookups.js';
import { retryOnConflict } from '../retryOnConflict.js';
import { storageStatus, textKey } from './keys.js';
import { problem } from '../problems.js';

export interface User {
  userId: string;
  /** Lower-cased, trimmed. */
  email: string;
  role: 'user';
  /** bcrypt hash (`$2b$...`). */
  passwordHash: string;
  createdAt: string;
  /**
   * Whether the owner proved it reads mail at `email` (the link Register e-mails). Accounts created
   * before addresses were verified have no such property and count as verified.
   */
  emailVerified: boolean;
  /** When the newest verification e-mail was queued (ISO 8601), or `null`. */
  verificationSentAt: string | null;
  /** The display name given at registration (trimmed), or `null` (absent: none) when none was. */
  name?: string | null;
}

/** What {@link UserRepository.claimVerificationSend} found. */
export type VerificationSendClaim =
  | { outcome: 'claimed' }
  | { outcome: 'verified' }
  /** The previous e-mail went out less than the cooldown ago: wait `retryAfterSeconds`. */
  | { outcome: 'too-soon'; retryAfterSeconds: number }
  | { outcome: 'gone' };

const ROW_KEY = 'user';

/**
 * How long {@link UserRepository.findForToken} answers from memory for a user it found, milliseconds:
 * the longest a deleted user's unexpired token keeps working on an instance other than the one that
 * deleted the user.
 */
export const TOKEN_USER_CACHE_MS = 5_000;
/** Most users {@link UserRepository.findForToken} remembers at once (the oldest go first). */
export const TOKEN_USER_CACHE_ENTRIES = 10_000;

/** What the bearer guard needs of a token's user. */
export interface TokenUser {
  userId: string;
  email: string;
  emailVerified: boolean;
  /** The display name, or `null`. */
  name: string | null;
}

interface UserEntity {
  partitionKey: string;
  rowKey: string;
  userId: string;
  email: string;
  role: string;
  passwordHash: string;
  createdAt: string;
  /** Absent when the user gave no name (and on accounts created before names existed). */
  name?: string;
  emailVerified?: boolean;
  verificationSentAt?: string;
}

/** A user row as a {@link User}: a row without `emailVerified` (made before verification existed) counts as verified. */
function toUser(entity: UserEntity): User {
  return {
    userId: entity.userId,
    email: entity.email,
    role: 'user',
    passwordHash: entity.passwordHash,
    createdAt: entity.createdAt,
    emailVerified: entity.emailVerified ?? true,
    verificationSentAt: entity.verificationSentAt ?? null,
    name: typeof entity.name === 'string' ? entity.name : null,
  };
}

export class UserRepository {
  private readonly recent: RecentLookups<TokenUser>;

  constructor(
    private readonly table: TableClient,
    now: () => number = Date.now,
  ) {
    this.recent = new RecentLookups<TokenUser>(TOKEN_USER_CACHE_MS, TOKEN_USER_CACHE_ENTRIES, now);
  }

  /** The user with this (normalized) e-mail address, or `null`. */
  async findByEmail(email: string): Promise<User | null> {
    try {
      return toUser(await this.table.getEntity<UserEntity>(textKey(email), ROW_KEY));
    } catch (error) {
      if (storageStatus(error) === 404) return null;
      throw error;
    }
  }

  /**
   * The user with this address, for checking an access token on every protected request: as
   * {@link findByEmail}, except that a user found in the last {@link TOKEN_USER_CACHE_MS} is answered
   * from memory (concurrent lookups of one address share one read). Only found users are remembered,
   * and only their id and address: never for login, which needs the current password hash.
   * So a deleted user's tokens stop working at once on the instance that deleted the user
   * ({@link delete} forgets them) and within {@link TOKEN_USER_CACHE_MS} on every other instance.
   */
  async findForToken(email: string): Promise<TokenUser | null> {
    return await this.recent.get(textKey(email), async () => {
      const user = await this.findByEmail(email);
      return user === null ? null : { userId: user.userId, email: user.email, emailVerified: user.emailVerified, name: user.name ?? null };
    });
  }

  /**
   * Inserts a new user.
   * @throws AppError `conflict` (409) when the e-mail address is already registered
   */
  async insert(user: User): Promise<void> {
    const { verificationSentAt, name, ...rest } = user;
    const entity: UserEntity = { partitionKey: textKey(user.email), rowKey: ROW_KEY, ...rest, ...(verificationSentAt === null ? {} : { verificationSentAt }), ...(typeof name === 'string' ? { name } : {}) };
    try {
      await this.table.createEntity(entity);
    } catch (error) {
      if (storageStatus(error) === 409) throw emailTaken();
      throw error;
    }
  }

  /**
   * Marks the address verified (idempotent) and forgets the cached lookup here, so this instance
   * lets the owner send at once (others within {@link TOKEN_USER_CACHE_MS}).
   * @returns `false` when there is no such user
   */
  async markVerified(email: string): Promise<boolean> {
    const key = textKey(email);
    try {
      await this.table.updateEntity({ partitionKey: key, rowKey: ROW_KEY, emailVerified: true }, 'Merge');
      return true;
    } catch (error) {
      if (storageStatus(error) === 404) return false;
      throw error;
    } finally {
      this.recent.forget(key);
    }
  }

  /**
   * Records that a verification e-mail goes out now, unless the address is verified or the previous
   * one went out less than `cooldownSeconds` ago. ETag-conditional, so of two racing requests on any
   * instances only one claims (at most one per cooldown, docs/api.md#verified-senders); a claim that
   * lost re-reads the row (`../retryOnConflict.ts`).
   * @throws Error when concurrent claims won every round
   */
  async claimVerificationSend(email: string, now: Date, cooldownSeconds: number): Promise<VerificationSendClaim> {
    const key = textKey(email);
    return await retryOnConflict(async () => {
      let entity: UserEntity & { etag: string };
      try {
        entity = await this.table.getEntity<UserEntity>(key, ROW_KEY);
      } catch (error) {
        if (storageStatus(error) === 404) return { outcome: 'gone' };
        throw error;
      }
      const user = toUser(entity);
      if (user.emailVerified) return { outcome: 'verified' };
      const previous = user.verificationSentAt === null ? Number.NaN : Date.parse(user.verificationSentAt);
      const wait = previous + cooldownSeconds * 1000 - now.getTime();
      if (wait > 0) return { outcome: 'too-soon', retryAfterSeconds: Math.max(1, Math.ceil(wait / 1000)) };
      try {
        await this.table.updateEntity({ partitionKey: key, rowKey: ROW_KEY, verificationSentAt: now.toISOString() }, 'Merge', { etag: entity.etag });
        return { outcome: 'claimed' };
      } catch (error) {
        if (storageStatus(error) === 404) return { outcome: 'gone' };
        throw error;
      }
    }, {
      // 412: another request claimed (or the user changed) since the read.
      isConflict: (error) => storageStatus(error) === 412,
      exhausted: () => {
        throw new Error('the claim of a verification e-mail stayed contended');
      },
    });
  }

  /** Deletes the user with this e-mail address (and forgets it here at once); no error when there is none. */
  async delete(email: string): Promise<void> {
    const key = textKey(email);
    this.recent.forget(key);
    try {
      await this.table.deleteEntity(key, ROW_KEY);
    } catch (error) {
      if (storageStatus(error) !== 404) throw error;
    } finally {
      // A lookup that read the row before it was deleted may have been remembered meanwhile.
      this.recent.forget(key);
    }
  }
}

export function emailTaken(): AppError {
  return problem('emailAlreadyRegistered');
}
