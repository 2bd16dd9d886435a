/**
 * POST /api/templates/{id}/fields/detect (docs/api.md#fields-from-the-document): replaces a draft template's fields with
 * those its document places itself (text tags naming roles, form fields).
 *
 * Its handler, with all it needs, loads on the function's first invocation: `src/handlers/DetectTemplateFields.ts`.
 */
import { httpFunction } from '../lib/http/register.js';

httpFunction('DetectTemplateFields', {
  methods: ['POST'],
  authLevel: 'anonymous',
  route: 'templates/{id}/fields/detect',
  access: 'bearer',
  roles: ['owner', 'admin', 'sender'],
  answerHoldsSecret: false,
  loadHandler: async () => (await import('../handlers/DetectTemplateFields.js')).detectOwnTemplateFields,
});
