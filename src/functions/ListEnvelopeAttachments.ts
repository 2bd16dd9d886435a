/**
 * GET /api/envelopes/{id}/attachments (docs/api.md#files-from-signers): the files the signers gave.
 *
 * Its handler, with all it needs, loads on the function's first invocation: `src/handlers/ListEnvelopeAttachments.ts`.
 */
import { httpFunction } from '../lib/http/register.js';

httpFunction('ListEnvelopeAttachments', {
  methods: ['GET'],
  authLevel: 'anonymous',
  route: 'envelopes/{id}/attachments',
  access: 'bearer',
  roles: ['owner', 'admin', 'sender', 'viewer'],
  loadHandler: async () => (await import('../handlers/ListEnvelopeAttachments.js')).listEnvelopeAttachments,
});
