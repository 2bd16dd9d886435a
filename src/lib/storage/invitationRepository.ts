/**
 * Invitation codes, table `invitations`: PartitionKey = SHA-256 of the code (hex), RowKey =
 * `invitation`. Only the hash is stored (docs/api.md#accounts), so a leaked table reveals no usable code; a
 * plain SHA-256 suffices because codes carry 128 random bits and cannot be guessed offline.
 * Uses are counted with ETag-conditional updates, so racing registrations cannot overspend a code.
 */
import { createHash } from 'node:crypto';
import type { TableClient } from '@azure/data-tables';
import { CONFLICT_ATTEMPTS, retryOnConflict } from '../retryOnConflict.js';
import { storageStatus } from './keys.js';

export interface Invitation {
  codeHash: string;
  maxUses: number;
  uses: number;
  /** ISO 8601, or `null` for no expiry. */
  expiresAt: string | null;
  createdAt: string;
}

interface InvitationEntity {
  partitionKey: string;
  rowKey: string;
  maxUses: number;
  uses: number;
  expiresAt?: string;
  createdAt: string;
  etag?: string;
}

const ROW_KEY = 'invitation';

/** Lower-case hex SHA-256 of an invitation code, as stored. */
export function hashInvitationCode(code: string): string {
  return createHash('sha256').update(code, 'utf8').digest('hex');
}

export type ConsumeResult = 'consumed' | 'invalid';

export class InvitationRepository {
  constructor(private readonly table: TableClient) {}

  async insert(invitation: Invitation): Promise<void> {
    const entity: InvitationEntity = {
      partitionKey: invitation.codeHash,
      rowKey: ROW_KEY,
      maxUses: invitation.maxUses,
      uses: invitation.uses,
      createdAt: invitation.createdAt,
      ...(invitation.expiresAt === null ? {} : { expiresAt: invitation.expiresAt }),
    };
    await this.table.createEntity(entity);
  }

  /** The invitation with this code, or `null`. */
  async find(code: string): Promise<Invitation | null> {
    const entity = await this.read(hashInvitationCode(code));
    return entity === null ? null : toInvitation(entity);
  }

  /**
   * Takes one use of the code if it is still usable at `now`. Atomic: of any number of concurrent
   * calls for a code with one use left, exactly one gets `consumed`.
   */
  async consume(code: string, now: Date): Promise<ConsumeResult> {
    return await this.adjust(hashInvitationCode(code), (entity) => (isUsable(toInvitation(entity), now) ? entity.uses + 1 : null)) === null
      ? 'invalid'
      : 'consumed';
  }

  /** Gives back one use taken by {@link consume} (a registration that failed after consuming). */
  async release(code: string): Promise<void> {
    await this.adjust(hashInvitationCode(code), (entity) => (entity.uses > 0 ? entity.uses - 1 : null));
  }

  /** Applies `nextUses` with an ETag-conditional merge, re-reading on conflict (`../retryOnConflict.ts`). `null` from `nextUses` stops. */
  private async adjust(codeHash: string, nextUses: (entity: InvitationEntity) => number | null): Promise<number | null> {
    return await retryOnConflict(
      async () => {
        const entity = await this.read(codeHash);
        if (entity === null) return null;
        const uses = nextUses(entity);
        if (uses === null) return null;
        await this.table.updateEntity({ partitionKey: codeHash, rowKey: ROW_KEY, uses }, 'Merge', { etag: entity.etag! });
        return uses;
      },
      {
        isConflict: (error) => storageStatus(error) === 412,
        exhausted: () => {
          throw new Error(`Invitation use count stayed contended after ${CONFLICT_ATTEMPTS} attempts`);
        },
      },
    );
  }

  private async read(codeHash: string): Promise<InvitationEntity | null> {
    try {
      return await this.table.getEntity<InvitationEntity>(codeHash, ROW_KEY);
    } catch (error) {
      if (storageStatus(error) === 404) return null;
      throw error;
    }
  }
}

function toInvitation(entity: InvitationEntity): Invitation {
  return {
    codeHash: entity.partitionKey,
    maxUses: entity.maxUses,
    uses: entity.uses,
    expiresAt: entity.expiresAt ?? null,
    createdAt: entity.createdAt,
  };
}

/** Usable: uses left and not expired at `now`. */
export function isUsable(invitation: Invitation, now: Date): boolean {
  return invitation.uses < invitation.maxUses && (invitation.expiresAt === null || Date.parse(invitation.expiresAt) > now.getTime());
}
