/**
 * DELETE /api/envelopes/{id}/documents/{documentId} (docs/api.md#change-or-remove-a-document): removes a draft's document, its fields and its upload; never the last.
 *
 * Its handler, with all it needs, loads on the function's first invocation: `src/handlers/DeleteEnvelopeDocument.ts`.
 */
import { httpFunction } from '../lib/http/register.js';

httpFunction('DeleteEnvelopeDocument', {
  methods: ['DELETE'],
  authLevel: 'anonymous',
  route: 'envelopes/{id}/documents/{documentId}',
  access: 'bearer',
  roles: ['owner', 'admin', 'sender'],
  loadHandler: async () => (await import('../handlers/DeleteEnvelopeDocument.js')).deleteOwnEnvelopeDocument,
});
