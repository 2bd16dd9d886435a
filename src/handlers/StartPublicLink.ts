/**
 * The handler of `StartPublicLink` (POST /api/public/{publicId}/start).
 * Registered in `src/functions/StartPublicLink.ts`, which loads this module on the function's first invocation.
 */
import type { HttpRequest, HttpResponseInit } from '@azure/functions';
import { readJsonBody } from '../lib/http/body.js';
import { takePublicLinkStart } from '../lib/http/rateLimits.js';
import { clientIp } from '../lib/http/requestInfo.js';
import { json } from '../lib/http/respond.js';
import { startPublicLink } from '../lib/publicLinks/publicLinks.js';
import { startPublicLinkRequest } from '../lib/publicLinks/schemas.js';
import { getServices } from '../lib/services.js';

export async function startPublicLinkHandler(request: HttpRequest): Promise<HttpResponseInit> {
  const body = await readJsonBody(request, startPublicLinkRequest);
  let headers: Record<string, string> = {};
  const { expiresAt } = await startPublicLink({
    services: getServices(),
    publicId: request.params.publicId ?? '',
    request: body,
    remoteIp: clientIp(request),
    takeAddressLimit: async () => {
      headers = await takePublicLinkStart(request);
    },
  });
  return json(202, { message: 'A code is on its way to this address.', expiresAt }, { noStore: true, headers });
}
