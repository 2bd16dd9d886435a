/**
 * Templates (docs/api.md#templates), table `templates`. All rows of one owner share PartitionKey = ownerId,
 * so reading a template is a point read on (ownerId from the token, id) and another owner's template is
 * simply not found; RowKey `template_<inverted id>` (each hex digit of the UUIDv7 inverted, as for
 * envelopes) makes ascending RowKey order newest first, so a page of the list is one range query.
 * Updates are conditional on the row's ETag.
 */
import { odata, type TableClient, type TableEntityResult } from '@azure/data-tables';
import type { TemplateField, TemplateRecord, TemplateRole, TemplateStatus } from '../templates/model.js';
import type { SigningOrder } from '../envelopes/model.js';
import { DEFAULT_LOCALE, type Locale } from '../i18n/locales.js';
import { encodeCursor, invertId } from './envelopeRepository.js';
import { storageStatus } from './keys.js';
import { readLongText, writeLongText } from './longText.js';
import { problem } from '../problems.js';

/** Thrown by {@link TemplateRepository.replace} and {@link TemplateRepository.delete} when the template changed since it was read. */
export class TemplateChangedError extends Error {
  constructor() {
    super('The template changed since it was read');
    this.name = 'TemplateChangedError';
  }
}

export interface StoredTemplate {
  record: TemplateRecord;
  /** Table Storage ETag of the row, for conditional writes. */
  etag: string;
}

export interface TemplatePage {
  records: TemplateRecord[];
  nextCursor: string | undefined;
}

type TemplateEntity = Record<string, unknown> & { partitionKey: string; rowKey: string };

const PREFIX = 'template_';

export class TemplateRepository {
  constructor(private readonly table: TableClient) {}

  async create(record: TemplateRecord): Promise<void> {
    await this.table.createEntity(toEntity(record));
  }

  /** The owner's template, or `null` when it does not exist or belongs to someone else. */
  async read(ownerId: string, id: string): Promise<StoredTemplate | null> {
    try {
      const entity = await this.table.getEntity<TemplateEntity>(ownerId, rowKey(id));
      return { record: fromEntity(entity), etag: entity.etag };
    } catch (error) {
      if (storageStatus(error) === 404) return null;
      throw error;
    }
  }

  /**
   * Replaces the template with `next` only if it is still as read.
   * @throws TemplateChangedError when it changed or went in between
   */
  async replace(previous: StoredTemplate, next: TemplateRecord): Promise<void> {
    try {
      await this.table.updateEntity(toEntity(next), 'Replace', { etag: previous.etag });
    } catch (error) {
      const status = storageStatus(error);
      if (status === 412 || status === 404 || status === 409) throw new TemplateChangedError();
      throw error;
    }
  }

  /**
   * Deletes the template row if it is still as read.
   * @throws TemplateChangedError when it changed or went in between
   */
  async delete(previous: StoredTemplate): Promise<void> {
    try {
      await this.table.deleteEntity(previous.record.ownerId, rowKey(previous.record.id), { etag: previous.etag });
    } catch (error) {
      const status = storageStatus(error);
      if (status === 412 || status === 404) throw new TemplateChangedError();
      throw error;
    }
  }

  /**
   * Moves every template of `from` to `to` (its owner removed from the organisation,
   * docs/api.md#removing-a-member): each template is written in `to`'s partition (upsert: writing it
   * again is harmless), naming its new owner, then deleted from `from`'s. A process that dies between
   * the two leaves the template with both for a moment, never with neither; calling again finishes.
   * @returns how many templates moved
   */
  async moveAll(from: string, to: string): Promise<number> {
    const filter = odata`PartitionKey eq ${from} and RowKey gt ${PREFIX} and RowKey lt ${`${PREFIX}~`}`;
    let moved = 0;
    for await (const entity of this.table.listEntities<TemplateEntity>({ queryOptions: { filter } })) {
      const { etag: _etag, timestamp: _timestamp, ...rest } = entity;
      await this.table.upsertEntity({ ...rest, partitionKey: to, rowKey: entity.rowKey, ownerId: to }, 'Replace');
      try {
        await this.table.deleteEntity(from, entity.rowKey);
      } catch (error) {
        if (storageStatus(error) !== 404) throw error;
      }
      moved++;
    }
    return moved;
  }

  /**
   * One page of the owner's templates, newest first.
   * @param query `limit` 1 to 1000; `cursor` from a previous page
   * @throws AppError 400 `invalid-cursor` for a cursor this service did not issue for templates
   */
  async list(ownerId: string, query: { limit: number; cursor?: string }): Promise<TemplatePage> {
    let from = PREFIX;
    if (query.cursor !== undefined) {
      const after = Buffer.from(query.cursor, 'base64url').toString('utf8');
      if (!/^template_[0-9a-f-]{36}$/.test(after)) {
        throw problem('invalidCursor');
      }
      from = after;
    }
    const filter = odata`PartitionKey eq ${ownerId} and RowKey gt ${from} and RowKey lt ${`${PREFIX}~`}`;
    const rows: TableEntityResult<TemplateEntity>[] = [];
    // One more than the page holds: its presence says whether a next page exists.
    const pages = this.table.listEntities<TemplateEntity>({ queryOptions: { filter } }).byPage({ maxPageSize: query.limit + 1 });
    outer: for await (const page of pages) {
      for (const entity of page) {
        rows.push(entity);
        if (rows.length > query.limit) break outer;
      }
    }
    if (rows.length <= query.limit) return { records: rows.map(fromEntity), nextCursor: undefined };
    const pageRows = rows.slice(0, query.limit);
    return { records: pageRows.map(fromEntity), nextCursor: encodeCursor(pageRows.at(-1)!.rowKey) };
  }
}

function rowKey(id: string): string {
  return `${PREFIX}${invertId(id)}`;
}

function toEntity(record: TemplateRecord): TemplateEntity {
  const entity: TemplateEntity = {
    partitionKey: record.ownerId,
    rowKey: rowKey(record.id),
    id: record.id,
    ownerId: record.ownerId,
    name: record.name,
    status: record.status,
    documentName: record.documentName,
    blobName: record.blobName,
    signingOrder: record.signingOrder,
    locale: record.locale,
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
    version: record.version,
  };
  writeLongText(entity, 'roles', JSON.stringify(record.roles));
  writeLongText(entity, 'fields', JSON.stringify(record.fields));
  if (record.documentSha256 !== null) entity.documentSha256 = record.documentSha256;
  if (record.pageCount !== null) entity.pageCount = record.pageCount;
  if (record.remindEveryDays !== null) entity.remindEveryDays = record.remindEveryDays;
  if (record.expiresInDays !== null) entity.expiresInDays = record.expiresInDays;
  return entity;
}

function fromEntity(entity: TableEntityResult<TemplateEntity>): TemplateRecord {
  const optionalNumber = (name: string): number | null => (entity[name] === undefined ? null : Number(entity[name]));
  return {
    id: String(entity.id),
    ownerId: String(entity.ownerId),
    name: String(entity.name),
    status: entity.status as TemplateStatus,
    documentName: String(entity.documentName),
    blobName: String(entity.blobName),
    documentSha256: (entity.documentSha256 as string | undefined) ?? null,
    pageCount: optionalNumber('pageCount'),
    roles: JSON.parse(readLongText(entity, 'roles')) as TemplateRole[],
    fields: JSON.parse(readLongText(entity, 'fields')) as TemplateField[],
    signingOrder: entity.signingOrder as SigningOrder,
    remindEveryDays: optionalNumber('remindEveryDays'),
    expiresInDays: optionalNumber('expiresInDays'),
    locale: (entity.locale as Locale | undefined) ?? DEFAULT_LOCALE,
    createdAt: String(entity.createdAt),
    updatedAt: String(entity.updatedAt),
    version: Number(entity.version),
  };
}
