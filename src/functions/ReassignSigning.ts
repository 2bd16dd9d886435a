/**
 * POST /api/signing/reassign (docs/api.md#reassignment): a signer or approver hands its part to someone else, when the envelope allows it.
 *
 * Its handler, with all it needs, loads on the function's first invocation: `src/handlers/ReassignSigning.ts`.
 */
import { httpFunction } from '../lib/http/register.js';

httpFunction('ReassignSigning', {
  methods: ['POST'],
  authLevel: 'anonymous',
  route: 'signing/reassign',
  access: 'signing',
  loadHandler: async () => (await import('../handlers/ReassignSigning.js')).reassignAsRecipient,
});
