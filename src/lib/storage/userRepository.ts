/**
 * Users, table `users`: PartitionKey = the e-mail address ({@link textKey}), RowKey = `user`.
 * Keyed by e-mail because login looks users up by e-mail, and the insert's uniqueness is what makes an
 * address register only once. The token carries both `sub` and `email`, so checking that a token's
 * user still exists is one point read too, which {@link UserRepository.findForToken} skips for a user
 * it found in the last {@link TOKEN_USER_CACHE_MS} milliseconds.
 */
import type { TableClient } from '@azure/data-tables';
import { AppError } from '../errors.js';
import { storageStatus, textKey } from './keys.js';

export interface User {
  userId: string;
  /** Lower-cased, trimmed. */
  email: string;
  role: 'user';
  /** bcrypt hash (`$2b$...`). */
  passwordHash: string;
  createdAt: string;
  /** The display name given at registration (trimmed), or `null` (absent: none) when none was. */
  name?: string | null;
}

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
  /** The display name, or `null`. */
  name: string | null;
}

interface RememberedUser {
  user: Promise<TokenUser | null>;
  /** Epoch milliseconds. */
  expiresAt: number;
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
}

export class UserRepository {
  private readonly recent = new Map<string, RememberedUser>();

  constructor(
    private readonly table: TableClient,
    private readonly now: () => number = Date.now,
  ) {}

  /** The user with this (normalized) e-mail address, or `null`. */
  async findByEmail(email: string): Promise<User | null> {
    try {
      const entity = await this.table.getEntity<UserEntity>(textKey(email), ROW_KEY);
      return { userId: entity.userId, email: entity.email, role: 'user', passwordHash: entity.passwordHash, createdAt: entity.createdAt, name: typeof entity.name === 'string' ? entity.name : null };
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
    const key = textKey(email);
    const now = this.now();
    const remembered = this.recent.get(key);
    if (remembered !== undefined && remembered.expiresAt > now) return await remembered.user;
    const entry: RememberedUser = {
      user: this.findByEmail(email).then((user) => (user === null ? null : { userId: user.userId, email: user.email, name: user.name ?? null })),
      expiresAt: now + TOKEN_USER_CACHE_MS,
    };
    this.recent.delete(key);
    if (this.recent.size >= TOKEN_USER_CACHE_ENTRIES) this.recent.delete(this.recent.keys().next().value!);
    this.recent.set(key, entry);
    const forget = () => {
      if (this.recent.get(key) === entry) this.recent.delete(key);
    };
    try {
      const user = await entry.user;
      if (user === null) forget();
      return user;
    } catch (error) {
      forget();
      throw error;
    }
  }

  /**
   * Inserts a new user.
   * @throws AppError `conflict` (409) when the e-mail address is already registered
   */
  async insert(user: User): Promise<void> {
    const { name, ...rest } = user;
    const entity: UserEntity = { partitionKey: textKey(user.email), rowKey: ROW_KEY, ...rest, ...(typeof name === 'string' ? { name } : {}) };
    try {
      await this.table.createEntity(entity);
    } catch (error) {
      if (storageStatus(error) === 409) throw emailTaken();
      throw error;
    }
  }

  /** Deletes the user with this e-mail address (and forgets it here at once); no error when there is none. */
  async delete(email: string): Promise<void> {
    const key = textKey(email);
    this.recent.delete(key);
    try {
      await this.table.deleteEntity(key, ROW_KEY);
    } catch (error) {
      if (storageStatus(error) !== 404) throw error;
    } finally {
      // A lookup that read the row before it was deleted may have been remembered meanwhile.
      this.recent.delete(key);
    }
  }
}

export function emailTaken(): AppError {
  return new AppError('conflict', 'An account with this e-mail address already exists.', { type: 'email-already-registered' });
}
