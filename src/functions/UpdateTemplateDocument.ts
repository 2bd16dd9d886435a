/**
 * PATCH /api/templates/{id}/documents/{documentId} (docs/api.md#documents-of-a-template): renames a draft template's document or moves it to another place in the order.
 *
 * Its handler, with all it needs, loads on the function's first invocation: `src/handlers/UpdateTemplateDocument.ts`.
 */
import { httpFunction } from '../lib/http/register.js';

httpFunction('UpdateTemplateDocument', {
  methods: ['PATCH'],
  authLevel: 'anonymous',
  route: 'templates/{id}/documents/{documentId}',
  access: 'bearer',
  roles: ['owner', 'admin', 'sender'],
  loadHandler: async () => (await import('../handlers/UpdateTemplateDocument.js')).updateOwnTemplateDocument,
});
