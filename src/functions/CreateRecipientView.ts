/**
 * POST /api/envelopes/{id}/recipients/{recipientId}/views (docs/api.md#embedded-signing): an embedded signing view
 * for a recipient whose turn it is. The answer carries a signing token, so it is never stored for an
 * idempotency key (`answerHoldsSecret: true`).
 *
 * Its handler, with all it needs, loads on the function's first invocation: `src/handlers/CreateRecipientView.ts`.
 */
import { httpFunction } from '../lib/http/register.js';

httpFunction('CreateRecipientView', {
  methods: ['POST'],
  authLevel: 'anonymous',
  route: 'envelopes/{id}/recipients/{recipientId}/views',
  access: 'bearer',
  roles: ['owner', 'admin', 'sender'],
  // The answer's URL carries a signing token: it refuses Idempotency-Key, so the token is never kept in storage.
  answerHoldsSecret: true,
  loadHandler: async () => (await import('../handlers/CreateRecipientView.js')).createRecipientView,
});
