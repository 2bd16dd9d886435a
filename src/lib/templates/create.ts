/**
 * `POST /api/templates` (docs/api.md#templates): a new draft template and the SAS URL to upload its document,
 * with the same rules and SAS as `GetUploadUrl` (`envelopes/createUpload.ts`).
 */
import { assertPdfMimetype, uploadUrlFor } from '../envelopes/createUpload.js';
import type { Actor } from '../envelopes/model.js';
import { resumableId, resumingRun } from '../ids.js';
import type { Services } from '../services.js';
import { CONTAINERS } from '../storage/clients.js';
import { newTemplateContent, type TemplateRecord } from './model.js';
import type { CreateTemplateRequest } from './schemas.js';

export interface CreateTemplateOptions {
  services: Services;
  request: CreateTemplateRequest;
  actor: Actor;
  now?: Date;
}

export interface CreatedTemplate {
  record: TemplateRecord;
  /** SAS URL for `PUT` with `x-ms-blob-type: BlockBlob`: create and write this one blob, nothing else. */
  uploadUrl: string;
  /** `<templateId>/<filename>` in container `templates`. */
  blobName: string;
}

/**
 * Creates a draft template with no roles or fields for `request.filename`, the caller's, `private`
 * unless `request.visibility` says `organization` (docs/api.md#templates-shared-in-an-organization).
 * With an `Idempotency-Key` its id comes from the key's claim (`resumableId`), and a run under the
 * claim of a request whose process died answers the template that request made, if it made it
 * (docs/api.md#idempotency).
 * @throws AppError 415 `unsupported-document-type` when `mimetype` is not `application/pdf`
 */
export async function createTemplate({ services, request, actor, now = new Date() }: CreateTemplateOptions): Promise<CreatedTemplate> {
  assertPdfMimetype(request.mimetype);
  const id = resumableId('template');
  const left = resumingRun() ? await services.templates.read(actor.userId, id) : null;
  if (left !== null) {
    const { uploadUrl } = await uploadUrlFor(services, CONTAINERS.templates, left.record.blobName, now);
    return { record: left.record, uploadUrl, blobName: left.record.blobName };
  }
  const at = now.toISOString();
  const blobName = `${id}/${request.filename}`;
  const record: TemplateRecord = {
    id,
    ownerId: actor.userId,
    ownerEmail: actor.email,
    name: request.name,
    status: 'draft',
    documentName: request.filename,
    blobName,
    ...newTemplateContent(),
    visibility: request.visibility,
    createdAt: at,
    updatedAt: at,
    version: 1,
  };
  const { uploadUrl } = await uploadUrlFor(services, CONTAINERS.templates, blobName, now);
  // Indexed before it is written, as envelopes are (storage/organizationIndex.ts).
  await services.templateIndex.add(actor.organizationId, id, actor.userId);
  await services.templates.create(record);
  return { record, uploadUrl, blobName };
}
