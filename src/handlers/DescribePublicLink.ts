/**
 * The handler of `DescribePublicLink` (GET /api/public/{publicId}).
 * Registered in `src/functions/DescribePublicLink.ts`, which loads this module on the function's first invocation.
 */
import type { HttpRequest, HttpResponseInit } from '@azure/functions';
import { json } from '../lib/http/respond.js';
import { describePublicLink } from '../lib/publicLinks/publicLinks.js';
import { getServices } from '../lib/services.js';

export async function describePublicLinkHandler(request: HttpRequest): Promise<HttpResponseInit> {
  return json(200, await describePublicLink(getServices(), request.params.publicId ?? ''), { noStore: true });
}
