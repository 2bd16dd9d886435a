/**
 * POST /api/organization/transfer (docs/api.md#handing-the-organization-over).
 *
 * Its handler, with all it needs, loads on the function's first invocation: `src/handlers/TransferOrganization.ts`.
 */
import { httpFunction } from '../lib/http/register.js';

httpFunction('TransferOrganization', {
  methods: ['POST'],
  authLevel: 'anonymous',
  route: 'organization/transfer',
  access: 'bearer',
  roles: ['owner'],
  answerHoldsSecret: false,
  loadHandler: async () => (await import('../handlers/TransferOrganization.js')).transferOwnOrganization,
});
