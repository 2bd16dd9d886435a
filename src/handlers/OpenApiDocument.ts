/**
 * The handler of `OpenApiDocument` (GET /api/openapi.json).
 * Registered in `src/functions/OpenApiDocument.ts`, which loads this module on the function's first invocation.
 */
import type { HttpResponseInit } from '@azure/functions';
import { json } from '../lib/http/respond.js';
import { buildOpenApiDocument } from '../lib/openapi/document.js';

let document: Record<string, unknown> | undefined;

export async function getOpenApiDocument(): Promise<HttpResponseInit> {
  document ??= buildOpenApiDocument();
  return json(200, document, { headers: { 'Cache-Control': 'no-cache' } });
}
