/**
 * The handler of `DeleteTemplate` (DELETE /api/templates/{id}).
 * Registered in `src/functions/DeleteTemplate.ts`, which loads this module on the function's first invocation.
 */
import type { HttpRequest, HttpResponseInit } from '@azure/functions';
import type { Actor } from '../lib/envelopes/model.js';
import { withStandardHeaders } from '../lib/http/respond.js';
import { getServices } from '../lib/services.js';
import { deleteTemplate } from '../lib/templates/delete.js';

export async function deleteOwnTemplate(request: HttpRequest, _context: unknown, caller: Actor): Promise<HttpResponseInit> {
  await deleteTemplate({ services: getServices(), templateId: request.params.id ?? '', actor: caller });
  return withStandardHeaders({ status: 204 });
}
