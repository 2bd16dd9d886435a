/**
 * PUT and PATCH /api/envelopes/{id} (docs/api.md#the-envelope, docs/api.md#lifecycle, docs/api.md#the-recipients-api): signers, fields, settings and status; both methods behave the same.
 *
 * Its handler, with all it needs, loads on the function's first invocation: `src/handlers/UpdateEnvelope.ts`.
 */
import { httpFunction } from '../lib/http/register.js';

httpFunction('UpdateEnvelope', {
  methods: ['PUT', 'PATCH'],
  authLevel: 'anonymous',
  route: 'envelopes/{id}',
  access: 'bearer',
  roles: ['owner', 'admin', 'sender'],
  loadHandler: async () => (await import('../handlers/UpdateEnvelope.js')).updateOwnEnvelope,
});
