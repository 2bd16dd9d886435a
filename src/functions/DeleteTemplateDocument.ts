/**
 * DELETE /api/templates/{id}/documents/{documentId} (docs/api.md#documents-of-a-template): removes a draft template's document, its fields and its upload; never the last.
 *
 * Its handler, with all it needs, loads on the function's first invocation: `src/handlers/DeleteTemplateDocument.ts`.
 */
import { httpFunction } from '../lib/http/register.js';

httpFunction('DeleteTemplateDocument', {
  methods: ['DELETE'],
  authLevel: 'anonymous',
  route: 'templates/{id}/documents/{documentId}',
  access: 'bearer',
  roles: ['owner', 'admin', 'sender'],
  loadHandler: async () => (await import('../handlers/DeleteTemplateDocument.js')).deleteOwnTemplateDocument,
});
