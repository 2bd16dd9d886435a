/**
 * POST /api/templates/{id}/documents (docs/api.md#documents-of-a-template): adds a document to a draft template, last in order, and answers a SAS URL to upload it.
 *
 * Its handler, with all it needs, loads on the function's first invocation: `src/handlers/AddTemplateDocument.ts`.
 */
import { httpFunction } from '../lib/http/register.js';

httpFunction('AddTemplateDocument', {
  methods: ['POST'],
  authLevel: 'anonymous',
  route: 'templates/{id}/documents',
  access: 'bearer',
  roles: ['owner', 'admin', 'sender'],
  // The upload URL is a SAS of one blob for a short while, not a credential of the account: kept like any answer.
  answerHoldsSecret: false,
  loadHandler: async () => (await import('../handlers/AddTemplateDocument.js')).addOwnTemplateDocument,
});
