/**
 * Reading a template and showing it (docs/api.md#templates).
 */
import { AppError } from '../errors.js';
import { isUuid } from '../ids.js';
import { DEFAULT_LIST_PAGE } from '../envelopes/schemas.js';
import { READ_URL_TTL_SECONDS } from '../envelopes/view.js';
import type { Services } from '../services.js';
import { CONTAINERS } from '../storage/clients.js';
import type { SasSigner } from '../storage/sas.js';
import type { StoredTemplate, TemplateRepository } from '../storage/templateRepository.js';
import type { TemplateRecord, TemplateView } from './model.js';
import { problem } from '../problems.js';

/**
 * The caller's template with this id.
 * @throws AppError 404 `template-not-found`, the same for an id that does not exist, is malformed, or
 *   names another owner's template
 */
export async function readOwnedTemplate(templates: TemplateRepository, ownerId: string, templateId: string): Promise<StoredTemplate> {
  const stored = isUuid(templateId) ? await templates.read(ownerId, templateId) : null;
  if (stored === null) throw templateNotFound();
  return stored;
}

export function templateNotFound(): AppError {
  return problem('templateNotFound');
}

/**
 * The response shape of `record`: `documentUrl` a read-only SAS valid {@link READ_URL_TTL_SECONDS},
 * of the upload (container `templates`) while `draft`, of the frozen copy (`originals`) once active.
 */
export async function toTemplateView(record: TemplateRecord, sas: SasSigner): Promise<TemplateView> {
  const container = record.documentSha256 === null ? CONTAINERS.templates : CONTAINERS.originals;
  const documentUrl = await sas.blobUrl(container, record.blobName, { access: 'read', expiresInSeconds: READ_URL_TTL_SECONDS });
  return {
    id: record.id,
    name: record.name,
    status: record.status,
    documentName: record.documentName,
    documentUrl,
    documentSha256: record.documentSha256,
    pageCount: record.pageCount,
    roles: record.roles,
    fields: record.fields,
    signingOrder: record.signingOrder,
    remindEveryDays: record.remindEveryDays,
    expiresInDays: record.expiresInDays,
    locale: record.locale,
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
  };
}

/** Page size without `limit`, as for envelopes (docs/api.md#list-envelopes). */
export const DEFAULT_TEMPLATE_LIMIT = DEFAULT_LIST_PAGE;

/**
 * One page of the owner's templates, newest first.
 * @throws AppError 400 `invalid-cursor`
 */
export async function listTemplates(services: Services, ownerId: string, query: { limit?: number | undefined; cursor?: string | undefined }): Promise<{ templates: TemplateView[]; nextCursor: string | undefined }> {
  const page = await services.templates.list(ownerId, { limit: query.limit ?? DEFAULT_TEMPLATE_LIMIT, ...(query.cursor === undefined ? {} : { cursor: query.cursor }) });
  return { templates: await Promise.all(page.records.map((record) => toTemplateView(record, services.storage.sas))), nextCursor: page.nextCursor };
}
