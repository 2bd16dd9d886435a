/**
 * `npm run openapi`: writes the OpenAPI document (src/lib/openapi/document.ts) to `docs/openapi.json`,
 * the copy committed for readers and client generators. A test fails when the committed copy and the
 * generated document differ, so run this after changing a schema or an endpoint.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { serializeOpenApiDocument } from '../lib/openapi/document.js';

/** Where the committed copy lives, relative to the project root. */
const OPENAPI_FILE = path.join('docs', 'openapi.json');

async function main(): Promise<void> {
  const target = path.resolve(process.cwd(), OPENAPI_FILE);
  await writeFile(target, serializeOpenApiDocument());
  console.log(`Wrote ${OPENAPI_FILE}`);
}

main().catch((error: unknown) => {
  console.error(`openapi: could not write ${OPENAPI_FILE}: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
});
