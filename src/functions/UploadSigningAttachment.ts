/**
 * POST /api/signing/attachments?fieldId= (docs/api.md#files-from-signers): a signer uploads a file to one of its `attachment` or `image` fields.
 *
 * Its handler, with all it needs, loads on the function's first invocation: `src/handlers/UploadSigningAttachment.ts`.
 */
import { httpFunction } from '../lib/http/register.js';

httpFunction('UploadSigningAttachment', {
  methods: ['POST'],
  authLevel: 'anonymous',
  route: 'signing/attachments',
  access: 'signing',
  // The body is the file: at most 10 MiB, the largest `maxBytes` (docs/api.md#files-from-signers).
  maxBodyBytes: 10 * 1024 * 1024,
  loadHandler: async () => (await import('../handlers/UploadSigningAttachment.js')).uploadSigningAttachment,
});
