/**
 * POST /api/organization/invitations (docs/api.md#invitations-to-an-organization).
 *
 * Its handler, with all it needs, loads on the function's first invocation: `src/handlers/CreateOrganizationInvitation.ts`.
 */
import { httpFunction } from '../lib/http/register.js';

httpFunction('CreateOrganizationInvitation', {
  methods: ['POST'],
  authLevel: 'anonymous',
  route: 'organization/invitations',
  access: 'bearer',
  roles: ['owner', 'admin'],
  answerHoldsSecret: false,
  // A retry after a crash finishes the one creation or replays its answer (docs/api.md#idempotency).
  idempotency: 'resumable',
  loadHandler: async () => (await import('../handlers/CreateOrganizationInvitation.js')).createInvitation,
});
