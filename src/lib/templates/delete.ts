/**
 * `DELETE /api/templates/{id}` (docs/api.md#templates): a draft or active template is deleted with the
 * upload (`templates`) and frozen copy (`originals`) of every document (docs/api.md#documents-of-a-template). Envelopes already made from it are untouched:
 * each got its own copy of the frozen document when it was made (`createEnvelopeFromTemplate.ts`), and keeps its `templateId`.
 */
import { deleteDocumentBlobs, documentsOf } from '../envelopes/documents.js';
import type { Actor } from '../envelopes/model.js';
import type { Services } from '../services.js';
import { mutateTemplate } from './mutate.js';

/**
 * Deletes a template the caller may change (`access.ts`): its blobs first, then its row
 * (ETag-conditional), then its row of the organisation's template index. A process that dies
 * in between leaves a row whose document is gone: using it answers 404 `template-not-found`
 * (`createEnvelopeFromTemplate.ts`), and a retry of the DELETE finishes (deleting a missing blob is not an error). The other
 * order would leave blobs that nothing points at and no request could ever remove.
 * @throws AppError 404 `template-not-found`; 403 `forbidden-role`; 409 `template-contended` when concurrent changes kept it busy
 */
export async function deleteTemplate({ services, templateId, actor }: { services: Services; templateId: string; actor: Actor }): Promise<void> {
  await mutateTemplate(services, { actor, templateId }, async (stored) => {
    await Promise.all(documentsOf(stored.record).map((document) => deleteDocumentBlobs(services, 'templates', document.blobName)));
    await services.templates.delete(stored);
  });
  await services.templateIndex.remove(actor.organizationId, templateId);
}
