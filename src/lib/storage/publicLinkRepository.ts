/**
 * Public links (docs/api.md#public-links), table `publicLinks`. Everything about one link shares
 * PartitionKey = its `publicId`, so that finding the template behind a link is one point read:
 *
 * - RowKey `link`: the template it belongs to (`ownerId`, `templateId`, `organizationId`) and `uses`,
 *   the envelopes it made, raised by one ETag-conditional write per envelope before that envelope is
 *   made ({@link PublicLinkRepository.claimUse}), so parallel verifications never pass `maxUses`;
 * - RowKey `code_<address key>`: the pending code of one e-mail address: only an HMAC of the code,
 *   when it expires, the wrong tries left, the name given, and the codes sent that UTC day;
 * - RowKey `day_<YYYY-MM-DD>_<address key>`: envelopes made for one address that UTC day;
 * - RowKey `person_<address key>`: the envelope last made for one address and when.
 *
 * The address key is the lower-case hex SHA-256 of the lower-cased address (an address may hold
 * characters a RowKey may not). Whether the link is enabled is the template's to say: a lookup reads
 * the template too, so disabling it, or enabling it again under a new `publicId`, takes effect at once.
 */
import { createHash } from 'node:crypto';
import type { TableClient } from '@azure/data-tables';
import { storageStatus } from './keys.js';

/** What the `link` row holds. */
export interface PublicLinkRow {
  publicId: string;
  ownerId: string;
  templateId: string;
  organizationId: string;
  uses: number;
}

/** A pending code of one address (the code itself is never stored). */
export interface PublicLinkChallenge {
  /** HMAC-SHA256 of the code, hex (`publicLinks/codes.ts`). */
  codeHash: string;
  email: string;
  name: string;
  expiresAt: string;
  attemptsLeft: number;
  /** The UTC day of {@link sentOnDay}, `YYYY-MM-DD`. */
  day: string;
  /** Codes sent to this address on `day`. */
  sentOnDay: number;
}

/** The envelope last made for an address. */
export interface PublicLinkPerson {
  envelopeId: string;
  ownerId: string;
  at: string;
}

type Entity<T> = T & { partitionKey: string; rowKey: string; etag?: string };

/** The RowKey part that stands for an address. */
export function addressKey(email: string): string {
  return createHash('sha256').update(email.toLowerCase(), 'utf8').digest('hex');
}

export class PublicLinkRepository {
  constructor(private readonly table: TableClient) {}

  /** Writes the `link` row of a newly enabled link (`uses` 0). */
  async create(row: Omit<PublicLinkRow, 'uses'>): Promise<void> {
    const { publicId, ...rest } = row;
    await this.table.upsertEntity({ partitionKey: publicId, rowKey: 'link', ...rest, uses: 0 }, 'Replace');
  }

  /** The `link` row, or `null` (one point read). */
  async read(publicId: string): Promise<(PublicLinkRow & { etag: string }) | null> {
    const entity = await this.#read<Omit<PublicLinkRow, 'publicId'>>(publicId, 'link');
    if (entity === null) return null;
    return { publicId, ownerId: entity.ownerId, templateId: entity.templateId, organizationId: entity.organizationId, uses: Number(entity.uses), etag: entity.etag! };
  }

  /** Deletes every row of a link (disabled: its URL is dead for good). Rows already gone are passed over. */
  async deleteLink(publicId: string): Promise<void> {
    const rows = this.table.listEntities({ queryOptions: { filter: `PartitionKey eq '${publicId.replace(/'/g, "''")}'`, select: ['RowKey'] } });
    for await (const row of rows) await this.#delete(publicId, String(row.rowKey));
  }

  /**
   * Takes one use of the link, conditional on its row's ETag, retried on conflict (docs/api.md#public-links).
   * @returns `true` when the use was taken, `false` when `maxUses` are all taken (or the row is gone)
   */
  async claimUse(publicId: string, maxUses: number | null): Promise<boolean> {
    for (;;) {
      const row = await this.read(publicId);
      if (row === null || (maxUses !== null && row.uses >= maxUses)) return false;
      if (await this.#replace(publicId, 'link', { ownerId: row.ownerId, templateId: row.templateId, organizationId: row.organizationId, uses: row.uses + 1 }, row.etag)) return true;
    }
  }

  /** Gives a use back (its envelope was not made); best effort: a use left taken only ever errs on the safe side. */
  async releaseUse(publicId: string): Promise<void> {
    for (let round = 0; round < 10; round++) {
      const row = await this.read(publicId);
      if (row === null || row.uses === 0) return;
      if (await this.#replace(publicId, 'link', { ownerId: row.ownerId, templateId: row.templateId, organizationId: row.organizationId, uses: row.uses - 1 }, row.etag)) return;
    }
  }

  /** The pending code of an address, with its ETag, or `null`. */
  async challenge(publicId: string, email: string): Promise<(PublicLinkChallenge & { etag: string }) | null> {
    const entity = await this.#read<PublicLinkChallenge>(publicId, `code_${addressKey(email)}`);
    if (entity === null) return null;
    return {
      codeHash: entity.codeHash,
      email: entity.email,
      name: entity.name,
      expiresAt: entity.expiresAt,
      attemptsLeft: Number(entity.attemptsLeft),
      day: entity.day,
      sentOnDay: Number(entity.sentOnDay),
      etag: entity.etag!,
    };
  }

  /**
   * Writes an address's code, conditional on the row as read (`etag`), or on its absence (`null`).
   * @returns `false` when another request wrote it first
   */
  async putChallenge(publicId: string, challenge: PublicLinkChallenge, etag: string | null): Promise<boolean> {
    const rowKey = `code_${addressKey(challenge.email)}`;
    if (etag !== null) return await this.#replace(publicId, rowKey, challenge, etag);
    try {
      await this.table.createEntity({ partitionKey: publicId, rowKey, ...challenge });
      return true;
    } catch (error) {
      if (storageStatus(error) === 409) return false;
      throw error;
    }
  }

  /**
   * Uses an address's code up: clears its hash (a used code never works again), conditional on the row as read.
   * @returns `false` when another request changed it first
   */
  async spendChallenge(publicId: string, challenge: PublicLinkChallenge & { etag: string }): Promise<boolean> {
    const { etag, ...rest } = challenge;
    return await this.#replace(publicId, `code_${addressKey(challenge.email)}`, { ...rest, codeHash: '', attemptsLeft: 0 }, etag);
  }

  /** Envelopes made for an address on a UTC day, with the row's ETag (`null`: none yet). */
  async madeOn(publicId: string, email: string, day: string): Promise<{ count: number; etag: string | null }> {
    const entity = await this.#read<{ count: number }>(publicId, `day_${day}_${addressKey(email)}`);
    return entity === null ? { count: 0, etag: null } : { count: Number(entity.count), etag: entity.etag! };
  }

  /**
   * Counts one more envelope for an address on a UTC day, below `limit`, conditional on the row as read, retried.
   * @returns `false` when the address already has `limit`
   */
  async countMade(publicId: string, email: string, day: string, limit: number): Promise<boolean> {
    const rowKey = `day_${day}_${addressKey(email)}`;
    for (;;) {
      const { count, etag } = await this.madeOn(publicId, email, day);
      if (count >= limit) return false;
      if (etag !== null) {
        if (await this.#replace(publicId, rowKey, { count: count + 1 }, etag)) return true;
        continue;
      }
      try {
        await this.table.createEntity({ partitionKey: publicId, rowKey, count: 1 });
        return true;
      } catch (error) {
        if (storageStatus(error) !== 409) throw error;
      }
    }
  }

  /** Takes back one envelope of an address's day (its envelope was not made); best effort. */
  async uncountMade(publicId: string, email: string, day: string): Promise<void> {
    const rowKey = `day_${day}_${addressKey(email)}`;
    for (let round = 0; round < 10; round++) {
      const { count, etag } = await this.madeOn(publicId, email, day);
      if (etag === null || count === 0) return;
      if (await this.#replace(publicId, rowKey, { count: count - 1 }, etag)) return;
    }
  }

  /** The envelope last made for an address, or `null`. */
  async person(publicId: string, email: string): Promise<PublicLinkPerson | null> {
    const entity = await this.#read<PublicLinkPerson>(publicId, `person_${addressKey(email)}`);
    return entity === null ? null : { envelopeId: entity.envelopeId, ownerId: entity.ownerId, at: entity.at };
  }

  /** Records the envelope just made for an address. */
  async setPerson(publicId: string, email: string, person: PublicLinkPerson): Promise<void> {
    await this.table.upsertEntity({ partitionKey: publicId, rowKey: `person_${addressKey(email)}`, ...person }, 'Replace');
  }

  async #read<T extends object>(partitionKey: string, rowKey: string): Promise<Entity<T> | null> {
    try {
      return (await this.table.getEntity<T>(partitionKey, rowKey)) as unknown as Entity<T>;
    } catch (error) {
      if (storageStatus(error) === 404) return null;
      throw error;
    }
  }

  /** Replaces a row if it is still as read. @returns `false` when it changed or went */
  async #replace(partitionKey: string, rowKey: string, values: object, etag: string): Promise<boolean> {
    try {
      await this.table.updateEntity({ partitionKey, rowKey, ...values }, 'Replace', { etag });
      return true;
    } catch (error) {
      const status = storageStatus(error);
      if (status === 412 || status === 404) return false;
      throw error;
    }
  }

  async #delete(partitionKey: string, rowKey: string): Promise<void> {
    try {
      await this.table.deleteEntity(partitionKey, rowKey);
    } catch (error) {
      if (storageStatus(error) !== 404) throw error;
    }
  }
}
