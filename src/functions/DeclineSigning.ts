/**
 * POST /api/signing/decline (docs/api.md#the-recipients-api): a signer or approver declines with a reason; the envelope is declined.
 *
 * Its handler, with all it needs, loads on the function's first invocation: `src/handlers/DeclineSigning.ts`.
 */
import { httpFunction } from '../lib/http/register.js';

httpFunction('DeclineSigning', {
  methods: ['POST'],
  authLevel: 'anonymous',
  route: 'signing/decline',
  access: 'signing',
  loadHandler: async () => (await import('../handlers/DeclineSigning.js')).declineAsRecipient,
});
