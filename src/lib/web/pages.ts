/**
 * The service's own web pages: the API reference (`GET /api/docs`, Swagger UI rendered from
 * `GET /api/openapi.json`), the console (`GET /api/console`) and the signing page (`GET /api/sign`,
 * docs/pages.md). Static files only, served from the deployment itself (never a CDN): the pages and
 * their small scripts from `src/web/` (copied to `dist/src/web/` by `npm run build`), Swagger UI's
 * files from the `swagger-ui-dist` package, PDF.js's build and worker from `pdfjs-dist`, the drawing
 * pad from `signature_pad`, and the handwriting font the seal draws typed signatures in from
 * `assets/fonts/`.
 *
 * Each asset route serves a fixed allow-list of names, so no request can name any other file. Every
 * answer carries a Content-Security-Policy that allows no external source: scripts and styles from
 * this origin only, no inline script, no framing.
 */
import { createHash } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { HttpRequest, HttpResponseInit } from '@azure/functions';
import { FONT_FILES, fontsFolder } from '../pdf/fonts.js';
import { SUPPORTED_LOCALES } from '../i18n/locales.js';
import { fontFaces, SCRIPT_FONTS, scriptFont, type PageScript } from './pageFonts.js';
import { problem } from '../problems.js';
import { browserModules } from './browserModules.js';

/** `dist/src/web` (the build copies `src/web` there). */
const WEB_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../web');
/** `dist/src/locales` (the build copies the message catalogues `src/locales` there). */
const LOCALES_DIR = path.resolve(WEB_DIR, '../locales');
const require = createRequire(import.meta.url);
/** The installed `swagger-ui-dist` package. */
const SWAGGER_UI_DIR = path.dirname(require.resolve('swagger-ui-dist/package.json'));
/** The installed `pdfjs-dist` package (its ES module build and worker under `build/`). */
const PDFJS_DIR = path.dirname(require.resolve('pdfjs-dist/package.json'));
/** The `dist/` folder of the installed `signature_pad` package (whose exports do not include its package.json). */
const SIGNATURE_PAD_DIST = path.dirname(require.resolve('signature_pad'));
/** The installed `intl-messageformat` package (whose exports do not include its package.json); its self-contained ES module build formats ICU messages in the browser. */
const INTL_MESSAGEFORMAT_DIR = path.dirname(require.resolve('intl-messageformat'));

/** A file on disk (its absolute path), or bytes the service makes (once per process). */
type StaticFile = { file: string; contentType: string } | { build: () => Promise<Buffer>; contentType: string };

const HTML = 'text/html; charset=utf-8';
const CSS = 'text/css; charset=utf-8';
const JAVASCRIPT = 'text/javascript; charset=utf-8';
/** RFC 8081. */
const TRUETYPE = 'font/ttf';
const JSON_TYPE = 'application/json; charset=utf-8';

/** The signing page's catalogue (namespace `sign`) of `locale`: `src/locales/<locale>/sign.json`. */
function signCatalogue(locale: string): string {
  return path.join(LOCALES_DIR, locale, 'sign.json');
}

/**
 * The signing page's message catalogues, one per supported locale, as `messages-<locale>.json`: the
 * page fetches only its own language's. English is also served as an ES module (`messages-en.js`),
 * which the page imports, so the page always has English to fall back on.
 */
const SIGN_CATALOGUE_ASSETS: Record<string, StaticFile> = {
  ...Object.fromEntries(SUPPORTED_LOCALES.map((locale) => [`messages-${locale}.json`, { file: signCatalogue(locale), contentType: JSON_TYPE }])),
  'messages-en.js': {
    contentType: JAVASCRIPT,
    build: async () => Buffer.from(`export default ${JSON.stringify(JSON.parse(await readFile(signCatalogue('en'), 'utf8')))};\n`),
  },
};

/** The signing page's fonts for scripts a system may lack, and the style sheet declaring them (see pageFonts.ts). */
const SIGN_FONT_ASSETS: Record<string, StaticFile> = {
  'fonts.css': { contentType: CSS, build: async () => Buffer.from(fontFaces()) },
  ...Object.fromEntries(
    (Object.keys(SCRIPT_FONTS) as PageScript[]).flatMap((script) =>
      (['font', 'names'] as const).map((kind) => [`${kind}-${script}.ttf`, { contentType: TRUETYPE, build: () => scriptFont(script, kind, LOCALES_DIR) }]),
    ),
  ),
};

/** Files below `GET /api/docs/{file}`: Swagger UI's bundle and styles, and the script that starts it. */
export const DOCS_ASSETS = {
  'swagger-ui.css': { file: path.join(SWAGGER_UI_DIR, 'swagger-ui.css'), contentType: CSS },
  'swagger-ui-bundle.js': { file: path.join(SWAGGER_UI_DIR, 'swagger-ui-bundle.js'), contentType: JAVASCRIPT },
  'docs.css': { file: path.join(WEB_DIR, 'docs/docs.css'), contentType: CSS },
  'docs.js': { file: path.join(WEB_DIR, 'docs/docs.js'), contentType: JAVASCRIPT },
} satisfies Record<string, StaticFile>;

/** PDF.js (ES modules): the library and its worker, which parses the PDF off the page's thread. */
const PDFJS_ASSETS = {
  'pdf.min.mjs': { file: path.join(PDFJS_DIR, 'build/pdf.min.mjs'), contentType: JAVASCRIPT },
  'pdf.worker.min.mjs': { file: path.join(PDFJS_DIR, 'build/pdf.worker.min.mjs'), contentType: JAVASCRIPT },
} satisfies Record<string, StaticFile>;

/**
 * A page's ES modules: every `.js` file of its folder of `src/web/` and of `src/web/shared/` (the API
 * client, problem details and PDF.js page drawing both pages use), served side by side below the
 * page's route, so a module imports another as `./name.js`. A folder rule, still an allow-list: only
 * the names found when the service starts are served.
 * @param page `console` or `sign`
 * @throws Error when two of the modules share a name (one would hide the other)
 */
function pageModules(page: 'console' | 'sign'): Record<string, StaticFile> {
  const modules: Record<string, StaticFile> = {};
  for (const folder of [page, 'shared']) {
    for (const name of readdirSync(path.join(WEB_DIR, folder)).sort()) {
      if (!name.endsWith('.js')) continue;
      if (Object.hasOwn(modules, name)) throw new Error(`src/web/${folder}/${name} has the name of another module of the ${page} page, served beside it`);
      modules[name] = { file: path.join(WEB_DIR, folder, name), contentType: JAVASCRIPT };
    }
  }
  return modules;
}

/** The colours the console's, the signing page's and the verification page's styles share. */
const SHARED_COLOURS: StaticFile = { file: path.join(WEB_DIR, 'shared/colours.css'), contentType: CSS };

/** Files below `GET /api/console/{file}`: the console's modules (`console.js` starts it), its styles, PDF.js. */
export const CONSOLE_ASSETS: Record<string, StaticFile> = {
  'colours.css': SHARED_COLOURS,
  'console.css': { file: path.join(WEB_DIR, 'console/console.css'), contentType: CSS },
  ...pageModules('console'),
  ...PDFJS_ASSETS,
};

/**
 * Files below `GET /api/sign/{file}`: the signing page's modules (`sign.js` starts it) and styles,
 * PDF.js, the drawing pad, and Caveat, the handwriting font in which the seal draws typed signatures
 * (so the page shows them as the sealed PDF will).
 */
export const SIGN_ASSETS: Record<string, StaticFile> = {
  'colours.css': SHARED_COLOURS,
  'sign.css': { file: path.join(WEB_DIR, 'sign/sign.css'), contentType: CSS },
  ...pageModules('sign'),
  'intl-messageformat.js': { file: path.join(INTL_MESSAGEFORMAT_DIR, 'intl-messageformat.iife.js'), contentType: JAVASCRIPT },
  ...SIGN_CATALOGUE_ASSETS,
  ...SIGN_FONT_ASSETS,
  'signature_pad.min.js': { file: path.join(SIGNATURE_PAD_DIST, 'signature_pad.min.js'), contentType: JAVASCRIPT },
  'Caveat-Regular.ttf': { file: path.join(fontsFolder(), FONT_FILES.handwriting), contentType: TRUETYPE },
  ...PDFJS_ASSETS,
};

/** Files below `GET /api/verify-email/{file}`: the verification page's script, in the signing page's styles. */
export const VERIFY_ASSETS = {
  'verify.js': { file: path.join(WEB_DIR, 'verify/verify.js'), contentType: JAVASCRIPT },
  'colours.css': SHARED_COLOURS,
  'sign.css': { file: path.join(WEB_DIR, 'sign/sign.css'), contentType: CSS },
} satisfies Record<string, StaticFile>;

/** `dist/src/lib`, where the verifier the verify page runs is compiled (`src/lib/verification`). */
const LIB_DIR = path.resolve(WEB_DIR, '../lib');

let verifySealAssets: Record<string, StaticFile> | undefined;

/**
 * Files below `GET /api/verify/assets/{file}`: the verify page's script and styles, PDF.js, the signing
 * page's languages (its `i18n.js`, the ICU formatter, its catalogues and fonts, which hold the verify
 * page's messages too), and the verifier itself (docs/evidence.md#the-verify-page):
 * `verification.js` is the compiled `src/lib/verification/verify.js`, served with the modules it
 * imports (pkijs, asn1js, canonicalize) by {@link browserModules}, so the page runs the very checks
 * `npm run verify` runs. Found on first use, then kept.
 */
export function verifySealPageAssets(): Record<string, StaticFile> {
  verifySealAssets ??= {
    'colours.css': SHARED_COLOURS,
    'evidence.css': { file: path.join(WEB_DIR, 'evidence/evidence.css'), contentType: CSS },
    'evidence.js': { file: path.join(WEB_DIR, 'evidence/evidence.js'), contentType: JAVASCRIPT },
    ...PDFJS_ASSETS,
    'i18n.js': { file: path.join(WEB_DIR, 'sign/i18n.js'), contentType: JAVASCRIPT },
    'intl-messageformat.js': SIGN_ASSETS['intl-messageformat.js']!,
    ...SIGN_CATALOGUE_ASSETS,
    ...SIGN_FONT_ASSETS,
    ...browserModules({ 'verification.js': path.join(LIB_DIR, 'verification/verify.js') }, LIB_DIR),
  };
  return verifySealAssets;
}

/** The verify page (`GET /api/verify`): drop a sealed PDF, read the verifier's report. */
export const VERIFY_SEAL_PAGE: StaticFile = { file: path.join(WEB_DIR, 'evidence/index.html'), contentType: HTML };
export const VERIFY_PAGE: StaticFile = { file: path.join(WEB_DIR, 'verify/index.html'), contentType: HTML };
export const DOCS_PAGE: StaticFile = { file: path.join(WEB_DIR, 'docs/index.html'), contentType: HTML };
export const CONSOLE_PAGE: StaticFile = { file: path.join(WEB_DIR, 'console/index.html'), contentType: HTML };
export const SIGN_PAGE: StaticFile = { file: path.join(WEB_DIR, 'sign/index.html'), contentType: HTML };
/** The page of a public link (`GET /api/sign/t/{publicId}`, docs/api.md#public-links): in the signing page's styles, its modules beside the signing page's. */
export const PUBLIC_LINK_PAGE: StaticFile = { file: path.join(WEB_DIR, 'sign/public.html'), contentType: HTML };

const baseDirectives = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  // blob: the signing page shows a photo a signer picks from its own object URL, before and while it uploads.
  "img-src 'self' data: blob:",
  "font-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
];

/**
 * The Content-Security-Policy of the pages. `connect-src` is this origin, plus for the console and
 * the signing page the origin of Blob storage, where the console uploads the document (PUT to the
 * SAS URL) and both read the document (to render its pages) and the sealed PDF (GET of the SAS URLs
 * the API hands out). PDF.js's worker is a script of this origin (`worker-src` falls back to
 * `script-src`).
 * @param blobOrigin e.g. `https://account.blob.core.windows.net` or Azurite's `http://127.0.0.1:10000`
 * @param frameAncestors origins allowed to frame the page (an embedded signing view's, docs/api.md#embedded-signing);
 *   none: `frame-ancestors 'none'`, as every page has by default
 */
export function contentSecurityPolicy(blobOrigin?: string, frameAncestors: readonly string[] = []): string {
  return [
    ...baseDirectives,
    `frame-ancestors ${frameAncestors.length === 0 ? "'none'" : frameAncestors.join(' ')}`,
    `connect-src 'self'${blobOrigin === undefined ? '' : ` ${blobOrigin}`}`,
  ].join('; ');
}

/** Cloudflare Turnstile's origin: its script, and the frame of its widget. */
const TURNSTILE_ORIGIN = 'https://challenges.cloudflare.com';

/**
 * The policy of the public link page while the service shows a Turnstile widget (`TURNSTILE_SITE_KEY`,
 * docs/api.md#public-links): {@link contentSecurityPolicy}, with Turnstile's script and frame allowed.
 */
export function publicLinkPagePolicy(): string {
  return contentSecurityPolicy()
    .replace("script-src 'self'", `script-src 'self' ${TURNSTILE_ORIGIN}`)
    .concat(`; frame-src ${TURNSTILE_ORIGIN}`);
}

const cache = new Map<StaticFile, { body: Buffer; etag: string }>();

/** The file's bytes and strong ETag, read or made once per process. */
async function readStaticFile(asset: StaticFile): Promise<{ body: Buffer; etag: string }> {
  let cached = cache.get(asset);
  if (cached === undefined) {
    const body = 'build' in asset ? await asset.build() : await readFile(asset.file);
    cached = { body, etag: `"${createHash('sha256').update(body).digest('base64url')}"` };
    cache.set(asset, cached);
  }
  return cached;
}

/** What the signing page of an embedded view is told (docs/api.md#embedded-signing): whom it may post events to, where to go after acting. */
export interface EmbeddedPageContext {
  frameAncestors: readonly string[];
  returnUrl: string | null;
}

/**
 * The signing page of an embedded view (`GET /api/sign/v/{viewId}`): the page's bytes with the view's
 * context in `<meta name="signing-view" content="{json}">` (HTML-escaped), and a policy whose
 * `frame-ancestors` names the view's origins. Never cached by the browser: it differs per view.
 */
export async function embeddedSigningPageResponse(view: EmbeddedPageContext, policy: string): Promise<HttpResponseInit> {
  const { body } = await readStaticFile(SIGN_PAGE);
  const content = JSON.stringify({ frameAncestors: view.frameAncestors, returnUrl: view.returnUrl }).replace(/[&"<>']/g, (character) => `&#${character.charCodeAt(0)};`);
  const html = body.toString('utf8').replace(/<head>/i, `<head>\n  <meta name="signing-view" content="${content}">`);
  return {
    status: 200,
    body: html,
    headers: {
      'Content-Type': HTML,
      'Content-Security-Policy': policy,
      'Cache-Control': 'no-store',
      'Referrer-Policy': 'no-referrer',
      'Cross-Origin-Opener-Policy': 'same-origin',
    },
  };
}

/**
 * A 200 answer with the file's bytes (read or made once per process), its Content-Type and the policy.
 * Pages and assets are revalidated on every use (`no-cache`) so a deployment is seen at once; the
 * strong `ETag` (the bytes' SHA-256) lets a browser revalidate without downloading them again: a
 * request whose `If-None-Match` names it gets 304 and no body (RFC 9110 §13.1.2).
 * @param request the request, for its `If-None-Match`; without it, always 200
 * @throws Error when the file is missing (a build that did not copy `src/web`): a fault, answered 500
 */
export async function staticFileResponse(asset: StaticFile, policy: string, request?: Pick<HttpRequest, 'headers'>): Promise<HttpResponseInit> {
  const cached = await readStaticFile(asset);
  const headers = {
    'Content-Security-Policy': policy,
    'Cache-Control': 'no-cache',
    'Referrer-Policy': 'no-referrer',
    'Cross-Origin-Opener-Policy': 'same-origin',
    ETag: cached.etag,
  };
  if (request !== undefined && matchesEntityTag(request.headers.get('if-none-match'), cached.etag)) return { status: 304, headers };
  return { status: 200, body: cached.body, headers: { 'Content-Type': asset.contentType, ...headers } };
}

/** Whether an `If-None-Match` value names `etag` (or is `*`); weak comparison, as RFC 9110 §13.1.2 asks. */
function matchesEntityTag(ifNoneMatch: string | null, etag: string): boolean {
  if (ifNoneMatch === null) return false;
  return ifNoneMatch.split(',').some((candidate) => {
    const tag = candidate.trim();
    return tag === '*' || tag.replace(/^W\//, '') === etag;
  });
}

/**
 * The allow-listed file `name` of `assets`.
 * @throws AppError 404 (`asset-not-found`) for any other name
 */
export function allowedAsset<Name extends string>(assets: Record<Name, StaticFile>, name: string): StaticFile {
  if (!Object.hasOwn(assets, name)) throw problem('assetNotFound');
  return assets[name as Name];
}
