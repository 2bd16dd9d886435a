/**
 * POST /api/envelopes/{id}/recipients/{recipientId}/resend (docs/api.md#resend-an-invitation): a new signing link and invitation e-mail.
 *
 * Its handler, with all it needs, loads on the function's first invocation: `src/handlers/ResendInvitation.ts`.
 */
import { httpFunction } from '../lib/http/register.js';

httpFunction('ResendInvitation', {
  methods: ['POST'],
  authLevel: 'anonymous',
  route: 'envelopes/{id}/recipients/{recipientId}/resend',
  access: 'bearer',
  roles: ['owner', 'admin', 'sender'],
  answerHoldsSecret: false,
  loadHandler: async () => (await import('../handlers/ResendInvitation.js')).resendOwnInvitation,
});
