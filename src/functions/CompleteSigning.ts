/**
 * POST /api/signing/complete (docs/api.md#the-recipients-api): the recipient signs, approves or confirms having viewed the envelope.
 *
 * Its handler, with all it needs, loads on the function's first invocation: `src/handlers/CompleteSigning.ts`.
 */
import { httpFunction } from '../lib/http/register.js';

httpFunction('CompleteSigning', {
  methods: ['POST'],
  authLevel: 'anonymous',
  route: 'signing/complete',
  access: 'signing',
  loadHandler: async () => (await import('../handlers/CompleteSigning.js')).completeAsRecipient,
});
