/**
 * The service's own web pages: the API reference (`GET /api/docs`, Swagger UI rendered from
 * `GET /api/openapi.json`) and the console (`GET /api/console`). Static files only, served from the
 * deployment itself (never a CDN): the pages and their small scripts from `src/web/` (copied to
 * `dist/src/web/` by `npm run build`), Swagger UI's files from the `swagger-ui-dist` package.
 *
 * Each asset route serves a fixed allow-list of names, so no request can name any other file. Every
 * answer carries a Content-Security-Policy that allows no external source: scripts and styles from
 * this origin only, no inline script, no framing.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { HttpResponseInit } from '@azure/functions';
import { AppError } from '../errors.js';

/** `dist/src/web` (the build copies `src/web` there). */
const WEB_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../web');
/** The installed `swagger-ui-dist` package. */
const SWAGGER_UI_DIR = path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

interface StaticFile {
  /** Absolute path on disk. */
  file: string;
  contentType: string;
}

const HTML = 'text/html; charset=utf-8';
const CSS = 'text/css; charset=utf-8';
const JAVASCRIPT = 'text/javascript; charset=utf-8';

/** Files below `GET /api/docs/{file}`: Swagger UI's bundle and styles, and the script that starts it. */
export const DOCS_ASSETS = {
  'swagger-ui.css': { file: path.join(SWAGGER_UI_DIR, 'swagger-ui.css'), contentType: CSS },
  'swagger-ui-bundle.js': { file: path.join(SWAGGER_UI_DIR, 'swagger-ui-bundle.js'), contentType: JAVASCRIPT },
  'docs.css': { file: path.join(WEB_DIR, 'docs/docs.css'), contentType: CSS },
  'docs.js': { file: path.join(WEB_DIR, 'docs/docs.js'), contentType: JAVASCRIPT },
} satisfies Record<string, StaticFile>;

/** Files below `GET /api/console/{file}`. */
export const CONSOLE_ASSETS = {
  'console.css': { file: path.join(WEB_DIR, 'console/console.css'), contentType: CSS },
  'console.js': { file: path.join(WEB_DIR, 'console/console.js'), contentType: JAVASCRIPT },
} satisfies Record<string, StaticFile>;

export const DOCS_PAGE: StaticFile = { file: path.join(WEB_DIR, 'docs/index.html'), contentType: HTML };
export const CONSOLE_PAGE: StaticFile = { file: path.join(WEB_DIR, 'console/index.html'), contentType: HTML };

const baseDirectives = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
];

/**
 * The Content-Security-Policy of the pages. `connect-src` is this origin, plus for the console the
 * origin of Blob storage, where it uploads the document (PUT to the SAS URL) and downloads the sealed
 * PDF (GET of the signed URL).
 * @param blobOrigin e.g. `https://account.blob.core.windows.net` or Azurite's `http://127.0.0.1:10000`
 */
export function contentSecurityPolicy(blobOrigin?: string): string {
  return [...baseDirectives, `connect-src 'self'${blobOrigin === undefined ? '' : ` ${blobOrigin}`}`].join('; ');
}

const cache = new Map<string, Buffer>();

/**
 * A 200 answer with the file's bytes (read once per process), its Content-Type and the policy.
 * Pages and assets are revalidated on every use (`no-cache`) so a deployment is seen at once.
 * @throws Error when the file is missing (a build that did not copy `src/web`): a fault, answered 500
 */
export async function staticFileResponse(asset: StaticFile, policy: string): Promise<HttpResponseInit> {
  let body = cache.get(asset.file);
  if (body === undefined) {
    body = await readFile(asset.file);
    cache.set(asset.file, body);
  }
  return {
    status: 200,
    body,
    headers: {
      'Content-Type': asset.contentType,
      'Content-Security-Policy': policy,
      'Cache-Control': 'no-cache',
      'Referrer-Policy': 'no-referrer',
      'Cross-Origin-Opener-Policy': 'same-origin',
    },
  };
}

/**
 * The allow-listed file `name` of `assets`.
 * @throws AppError 404 (`asset-not-found`) for any other name
 */
export function allowedAsset<Name extends string>(assets: Record<Name, StaticFile>, name: string): StaticFile {
  if (!Object.hasOwn(assets, name)) throw new AppError('not_found', 'No such file.', { type: 'asset-not-found' });
  return assets[name as Name];
}
