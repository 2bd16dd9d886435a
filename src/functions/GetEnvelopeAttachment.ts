/**
 * GET /api/envelopes/{id}/attachments/{attachmentId} (docs/api.md#files-from-signers): a read-only URL of a file a signer uploaded.
 *
 * Its handler, with all it needs, loads on the function's first invocation: `src/handlers/GetEnvelopeAttachment.ts`.
 */
import { httpFunction } from '../lib/http/register.js';

httpFunction('GetEnvelopeAttachment', {
  methods: ['GET'],
  authLevel: 'anonymous',
  route: 'envelopes/{id}/attachments/{attachmentId}',
  access: 'bearer',
  roles: ['owner', 'admin', 'sender', 'viewer'],
  loadHandler: async () => (await import('../handlers/GetEnvelopeAttachment.js')).getEnvelopeAttachment,
});
