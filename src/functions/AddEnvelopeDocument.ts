/**
 * POST /api/envelopes/{id}/documents (docs/api.md#add-a-document): adds a document to a draft, last in order, and answers a SAS URL to upload it.
 *
 * Its handler, with all it needs, loads on the function's first invocation: `src/handlers/AddEnvelopeDocument.ts`.
 */
import { httpFunction } from '../lib/http/register.js';

httpFunction('AddEnvelopeDocument', {
  methods: ['POST'],
  authLevel: 'anonymous',
  route: 'envelopes/{id}/documents',
  access: 'bearer',
  roles: ['owner', 'admin', 'sender'],
  // The upload URL is a SAS of one blob for a short while, not a credential of the account: kept like any answer.
  answerHoldsSecret: false,
  loadHandler: async () => (await import('../handlers/AddEnvelopeDocument.js')).addOwnEnvelopeDocument,
});
