/**
 * GET /api/envelopes/{id}/download (docs/api.md#download-a-completed-envelope): a completed envelope as one ZIP, streamed: every sealed PDF, the certificate, the audit trail.
 *
 * Its handler, with all it needs, loads on the function's first invocation: `src/handlers/DownloadEnvelope.ts`.
 */
import { httpFunction } from '../lib/http/register.js';

httpFunction('DownloadEnvelope', {
  methods: ['GET'],
  authLevel: 'anonymous',
  route: 'envelopes/{id}/download',
  access: 'bearer',
  roles: ['owner', 'admin', 'sender', 'viewer'],
  loadHandler: async () => (await import('../handlers/DownloadEnvelope.js')).downloadEnvelope,
});
