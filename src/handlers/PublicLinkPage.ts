/**
 * The handler of `PublicLinkPage` (GET /api/sign/t/{publicId}).
 * Registered in `src/functions/PublicLinkPage.ts`, which loads this module on the function's first invocation.
 */
import type { HttpRequest, HttpResponseInit } from '@azure/functions';
import { isAppError } from '../lib/errors.js';
import { describePublicLink } from '../lib/publicLinks/publicLinks.js';
import { getServices } from '../lib/services.js';
import { PUBLIC_LINK_PAGE, contentSecurityPolicy, publicLinkPagePolicy, staticFileResponse } from '../lib/web/pages.js';

/**
 * The page, 200 while the link answers; a link that does not (disabled, unknown, expired, used up)
 * gets the same page with that status (404 or 410): its script asks `GET /api/public/{publicId}` and
 * says why. A client that accepts JSON and not HTML gets the problem (404 `public-link-not-found`, 410).
 */
export async function getPublicLinkPage(request: HttpRequest): Promise<HttpResponseInit> {
  const services = getServices();
  let status = 200;
  try {
    await describePublicLink(services, request.params.publicId ?? '');
  } catch (error) {
    if (!isAppError(error) || (error.status !== 404 && error.status !== 410)) throw error;
    // A client that asks for JSON and not HTML gets the problem itself.
    const accept = request.headers.get('accept') ?? '';
    if (accept.includes('json') && !accept.includes('text/html')) throw error;
    status = error.status;
  }
  const policy = services.config.turnstile.siteKey === undefined ? contentSecurityPolicy() : publicLinkPagePolicy();
  return { ...(await staticFileResponse(PUBLIC_LINK_PAGE, policy)), status };
}
