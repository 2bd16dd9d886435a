/**
 * Templates (docs/api.md#templates), table `templates`. All rows of one owner (the member who made
 * them) share PartitionKey = ownerId, so reading a template is a point read on (its owner, id); which
 * member owns a template of the organisation is in the organisation's template index
 * (`organizationIndex.ts`). RowKey `template_<inverted id>` (each hex digit of the UUIDv7 inverted, as
 * for envelopes) makes ascending RowKey order newest first, so the templates of one owner that a page
 * of the index names are one range query. Updates are conditional on the row's ETag.
 */
import { odata, type TableClient, type TableEntityResult } from '@azure/data-tables';
import type { PublicLinkSettings, TemplateField, TemplateRecord, TemplateRole, TemplateStatus, TemplateVisibility } from '../templates/model.js';
import type { EnvelopeDocument, Output, SigningOrder } from '../envelopes/model.js';
import { DEFAULT_LOCALE, type Locale } from '../i18n/locales.js';
import { invertId } from './envelopeRepository.js';
import { storageStatus } from './keys.js';
import { readLongText, writeLongText } from './longText.js';

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
   * `moved` is called for each template once it is in `to`'s partition and before it leaves `from`'s
   * (to point the organisation's template index at `to`): a process that dies before `moved` finishes
   * leaves the template in `from`'s partition too, so calling again calls it again.
   * @returns how many templates moved
   */
  async moveAll(from: string, to: string, moved: (templateId: string) => Promise<void> = async () => undefined): Promise<number> {
    const filter = odata`PartitionKey eq ${from} and RowKey gt ${PREFIX} and RowKey lt ${`${PREFIX}~`}`;
    let count = 0;
    for await (const entity of this.table.listEntities<TemplateEntity>({ queryOptions: { filter } })) {
      const { etag: _etag, timestamp: _timestamp, ...rest } = entity;
      await this.table.upsertEntity({ ...rest, partitionKey: to, rowKey: entity.rowKey, ownerId: to }, 'Replace');
      await moved(fromEntity(entity).id);
      try {
        await this.table.deleteEntity(from, entity.rowKey);
      } catch (error) {
        if (storageStatus(error) !== 404) throw error;
      }
      count++;
    }
    return count;
  }

  /**
   * The owner's templates from `newestId` to `oldestId` (both included), newest first: one range
   * query, for a page of the organisation's templates (`templates/list.ts`).
   */
  async listBetween(ownerId: string, newestId: string, oldestId: string): Promise<TemplateRecord[]> {
    const filter = odata`PartitionKey eq ${ownerId} and RowKey ge ${rowKey(newestId)} and RowKey le ${rowKey(oldestId)}`;
    const records: TemplateRecord[] = [];
    for await (const entity of this.table.listEntities<TemplateEntity>({ queryOptions: { filter } })) records.push(fromEntity(entity));
    return records;
  }

  /**
   * Every template id of the owner, newest first (for indexing the organisation's older templates).
   */
  async *idsOf(ownerId: string): AsyncIterable<string> {
    const filter = odata`PartitionKey eq ${ownerId} and RowKey gt ${PREFIX} and RowKey lt ${`${PREFIX}~`}`;
    for await (const entity of this.table.listEntities<{ id: string }>({ queryOptions: { filter, select: ['id'] } })) yield entity.id;
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
    visibility: record.visibility,
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
  // Several documents (docs/api.md#documents-of-a-template): absent on rows of templates that never had more than their first.
  if (record.documents !== undefined) writeLongText(entity, 'documents', JSON.stringify(record.documents));
  if (record.output !== 'separate') entity.output = record.output;
  if (record.ownerEmail !== null) entity.ownerEmail = record.ownerEmail;
  if (record.documentSha256 !== null) entity.documentSha256 = record.documentSha256;
  if (record.pageCount !== null) entity.pageCount = record.pageCount;
  if (record.remindEveryDays !== null) entity.remindEveryDays = record.remindEveryDays;
  if (record.expiresInDays !== null) entity.expiresInDays = record.expiresInDays;
  if (record.publicLink !== null) entity.publicLink = JSON.stringify(record.publicLink);
  return entity;
}

function fromEntity(entity: TableEntityResult<TemplateEntity>): TemplateRecord {
  const optionalNumber = (name: string): number | null => (entity[name] === undefined ? null : Number(entity[name]));
  return {
    id: String(entity.id),
    ownerId: String(entity.ownerId),
    ownerEmail: (entity.ownerEmail as string | undefined) ?? null,
    name: String(entity.name),
    status: entity.status as TemplateStatus,
    // Made before visibility existed: private (docs/api.md#templates-shared-in-an-organization).
    visibility: (entity.visibility as TemplateVisibility | undefined) ?? 'private',
    documentName: String(entity.documentName),
    blobName: String(entity.blobName),
    documentSha256: (entity.documentSha256 as string | undefined) ?? null,
    pageCount: optionalNumber('pageCount'),
    roles: JSON.parse(readLongText(entity, 'roles')) as TemplateRole[],
    fields: JSON.parse(readLongText(entity, 'fields')) as TemplateField[],
    ...(entity.documents !== undefined || entity.documentsParts !== undefined ? { documents: JSON.parse(readLongText(entity, 'documents')) as EnvelopeDocument[] } : {}),
    output: (entity.output as Output | undefined) ?? 'separate',
    signingOrder: entity.signingOrder as SigningOrder,
    remindEveryDays: optionalNumber('remindEveryDays'),
    expiresInDays: optionalNumber('expiresInDays'),
    locale: (entity.locale as Locale | undefined) ?? DEFAULT_LOCALE,
    createdAt: String(entity.createdAt),
    updatedAt: String(entity.updatedAt),
    // Absent on templates that never had a public link (docs/api.md#public-links).
    publicLink: typeof entity.publicLink === 'string' ? (JSON.parse(entity.publicLink) as PublicLinkSettings) : null,
    version: Number(entity.version),
  };
}
