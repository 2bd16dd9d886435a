/**
 * The handler of `EmbeddedSigningPage` (GET /api/sign/v/{viewId}).
 * Registered in `src/functions/EmbeddedSigningPage.ts`, which loads this module on the function's first invocation.
 */
import type { HttpRequest, HttpResponseInit } from '@azure/functions';
import { EmbeddedViewRepository } from '../lib/recipients/embeddedViews.js';
import { getServices } from '../lib/services.js';
import { contentSecurityPolicy, embeddedSigningPageResponse } from '../lib/web/pages.js';

export async function getEmbeddedSigningPage(request: HttpRequest): Promise<HttpResponseInit> {
  const services = getServices();
  const blobOrigin = new URL(services.storage.blobService.url).origin;
  const found = await new EmbeddedViewRepository(services.storage.tables.signingLinks).find((request.params.viewId ?? '').toLowerCase());
  // An unknown or expired view is served as any signing page: framed nowhere; its token is refused anyway.
  const view = found !== null && Date.parse(found.expiresAt) > Date.now() ? found : { frameAncestors: [], returnUrl: null };
  return await embeddedSigningPageResponse(view, contentSecurityPolicy(blobOrigin, view.frameAncestors));
}
