/**
 * PATCH /api/envelopes/{id}/documents/{documentId} (docs/api.md#change-or-remove-a-document): renames a draft's document or moves it to another place in the order.
 *
 * Its handler, with all it needs, loads on the function's first invocation: `src/handlers/UpdateEnvelopeDocument.ts`.
 */
import { httpFunction } from '../lib/http/register.js';

httpFunction('UpdateEnvelopeDocument', {
  methods: ['PATCH'],
  authLevel: 'anonymous',
  route: 'envelopes/{id}/documents/{documentId}',
  access: 'bearer',
  roles: ['owner', 'admin', 'sender'],
  loadHandler: async () => (await import('../handlers/UpdateEnvelopeDocument.js')).updateOwnEnvelopeDocument,
});
