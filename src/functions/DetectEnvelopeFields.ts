/**
 * POST /api/envelopes/{id}/fields/detect (docs/api.md#fields-from-the-document): replaces a draft's fields with those its
 * document places itself (text tags, form fields).
 *
 * Its handler, with all it needs, loads on the function's first invocation: `src/handlers/DetectEnvelopeFields.ts`.
 */
import { httpFunction } from '../lib/http/register.js';

httpFunction('DetectEnvelopeFields', {
  methods: ['POST'],
  authLevel: 'anonymous',
  route: 'envelopes/{id}/fields/detect',
  access: 'bearer',
  roles: ['owner', 'admin', 'sender'],
  answerHoldsSecret: false,
  loadHandler: async () => (await import('../handlers/DetectEnvelopeFields.js')).detectOwnEnvelopeFields,
});
