/**
 * Users, table `users`: PartitionKey = the e-mail address ({@link textKey}), RowKey = `user`.
 * Keyed by e-mail because login looks users up by e-mail, and the insert's uniqueness is what makes an
 * address register only once. The token carries both `sub` and `email`, so checking that a token's
 * user still exists is one point read too.
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
}

const ROW_KEY = 'user';

interface UserEntity {
  partitionKey: string;
  rowKey: string;
  userId: string;
  email: string;
  role: string;
  passwordHash: string;
  createdAt: string;
}

export class UserRepository {
  constructor(private readonly table: TableClient) {}

  /** The user with this (normalized) e-mail address, or `null`. */
  async findByEmail(email: string): Promise<User | null> {
    try {
      const entity = await this.table.getEntity<UserEntity>(textKey(email), ROW_KEY);
      return { userId: entity.userId, email: entity.email, role: 'user', passwordHash: entity.passwordHash, createdAt: entity.createdAt };
    } catch (error) {
      if (storageStatus(error) === 404) return null;
      throw error;
    }
  }

  /**
   * Inserts a new user.
   * @throws AppError `conflict` (409) when the e-mail address is already registered
   */
  async insert(user: User): Promise<void> {
    const entity: UserEntity = { partitionKey: textKey(user.email), rowKey: ROW_KEY, ...user };
    try {
      await this.table.createEntity(entity);
    } catch (error) {
      if (storageStatus(error) === 409) throw emailTaken();
      throw error;
    }
  }

  /** Deletes the user with this e-mail address; no error when there is none. */
  async delete(email: string): Promise<void> {
    try {
      await this.table.deleteEntity(textKey(email), ROW_KEY);
    } catch (error) {
      if (storageStatus(error) !== 404) throw error;
    }
  }
}

export function emailTaken(): AppError {
  return new AppError('conflict', 'An account with this e-mail address already exists.', { type: 'email-already-registered' });
}
