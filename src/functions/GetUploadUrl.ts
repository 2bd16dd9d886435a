/**
 * POST /api/GetUploadUrl (docs/api.md#create-an-envelope-and-upload-its-document): a new draft envelope and a SAS URL to upload its PDF.
 *
 * Its handler, with all it needs, loads on the function's first invocation: `src/handlers/GetUploadUrl.ts`.
 */
import { httpFunction } from '../lib/http/register.js';

httpFunction('GetUploadUrl', {
  methods: ['POST'],
  authLevel: 'anonymous',
  route: 'GetUploadUrl',
  access: 'bearer',
  roles: ['owner', 'admin', 'sender'],
  // The upload URL is a SAS of one blob for a short while, not a credential of the account: kept like any answer.
  answerHoldsSecret: false,
  // Its only write is the envelope's creation transaction: an Idempotency-Key's claim goes in it.
  idempotency: 'claim-in-transaction',
  loadHandler: async () => (await import('../handlers/GetUploadUrl.js')).getUploadUrl,
});
