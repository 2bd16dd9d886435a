/**
 * The handler of `UploadSigningAttachment` (POST /api/signing/attachments?fieldId=).
 * Registered in `src/functions/UploadSigningAttachment.ts`, which loads this module on the function's first invocation.
 */
import type { HttpRequest, HttpResponseInit } from '@azure/functions';
import { mediaTypeOf, readFileBody } from '../lib/http/body.js';
import { json } from '../lib/http/respond.js';
import { attachmentTooLarge, storeUpload, uploadTarget } from '../lib/recipients/attachments.js';
import { assertCanAct } from '../lib/recipients/recipientActions.js';
import type { SigningCaller } from '../lib/recipients/signingCaller.js';
import { getServices } from '../lib/services.js';

/** 201 `{attachmentId, name, contentType, size, sha256}` (docs/api.md#files-from-signers). */
export async function uploadSigningAttachment(request: HttpRequest, _context: unknown, caller: SigningCaller): Promise<HttpResponseInit> {
  const services = getServices();
  const now = new Date();
  // Signer authentication (423, then 403) was checked by the signing guard; then, as for complete, role, status, acted and turn.
  assertCanAct(caller.stored.record, caller.recipient, 'complete', now);
  const target = uploadTarget(caller, request.query.get('fieldId'));
  const bytes = await readFileBody(request, target.maxBytes, () => attachmentTooLarge(target.maxBytes));
  const value = await storeUpload({ services, caller, target, contentType: mediaTypeOf(request), disposition: request.headers.get('content-disposition'), bytes, now });
  return json(201, { attachmentId: value.attachmentId, name: value.name, contentType: value.contentType, size: value.size, sha256: value.sha256 }, { noStore: true });
}
