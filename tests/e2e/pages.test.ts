/**
 * The pages over plain HTTP (docs/pages.md, docs/api.md#the-openapi-document-and-the-pages):
 * `GET /api/docs`, `GET /api/console` and `GET /api/sign` and their files are served by the service
 * itself with the right Content-Type and a Content-Security-Policy that allows no external source; the
 * asset routes serve their allow-list and nothing else, with an ETag that spares a browser a second
 * download. (The pages working in a browser: tests/browser.)
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, expect, test } from '@jest/globals';
import { getServices } from '../../src/lib/services.js';
import { expectProblem, serviceForFile, type ApiResponse, type TestService } from '../support/service.js';

let env: TestService;
let blobOrigin: string;
serviceForFile(async (started) => {
  ({ env } = started);
  blobOrigin = new URL(getServices().storage.blobService.url).origin;
});

const require = createRequire(import.meta.url);
const swaggerUiDir = path.dirname(require.resolve('swagger-ui-dist/package.json'));
const pdfjsDir = path.dirname(require.resolve('pdfjs-dist/package.json'));
const signaturePadDist = path.dirname(require.resolve('signature_pad'));

/** The policy's directives as a map: `script-src` → `["'self'"]`. */
function directives(response: ApiResponse): Map<string, string[]> {
  const policy = response.headers.get('content-security-policy') ?? '';
  return new Map(
    policy
      .split(';')
      .map((part) => part.trim().split(/\s+/))
      .filter((words) => words[0] !== '')
      .map(([name, ...values]) => [name!, values]),
  );
}

/** Every `src` and `href` of an HTML page. */
function references(html: string): string[] {
  return [...html.matchAll(/\s(?:src|href)="([^"]*)"/g)].map((match) => match[1]!);
}

describe('pages', () => {
  test.each([
    ['/docs', 'API reference'],
    ['/console', 'Console'],
    ['/sign', 'Sign'],
    ['/verify', 'Verify a sealed PDF'],
  ])('GET /api%s is HTML with a policy that allows no external source and no inline script', async (route, title) => {
    const response = await env.api.request('GET', route);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(response.text).toContain(`<title>${title}`);
    const policy = directives(response);
    expect(policy.get('default-src')).toEqual(["'none'"]);
    expect(policy.get('script-src')).toEqual(["'self'"]);
    expect(policy.get('style-src')).toEqual(["'self'"]);
    expect(policy.get('frame-ancestors')).toEqual(["'none'"]);
    // Only the console and the signing page may reach Blob storage (the document, the sealed PDF); nothing else is external.
    expect(policy.get('connect-src')).toEqual(route === '/docs' || route === '/verify' ? ["'self'"] : ["'self'", blobOrigin]);
    expect([...policy.values()].flat().filter((source) => /^(https?:|\*)/.test(source) && source !== blobOrigin)).toEqual([]);
    // Every script, style sheet and link of the page stays on this service.
    expect(references(response.text).filter((reference) => !reference.startsWith('/api/') && !reference.startsWith('#') && reference !== 'data:,')).toEqual([]);
    expect(response.text).not.toMatch(/<script>(?!<\/script>)|<script [^>]*>[^<]+<\/script>|\son[a-z]+="/i);
  });

  test.each([
    ['/docs/swagger-ui-bundle.js', 'text/javascript; charset=utf-8', path.join(swaggerUiDir, 'swagger-ui-bundle.js')],
    ['/docs/swagger-ui.css', 'text/css; charset=utf-8', path.join(swaggerUiDir, 'swagger-ui.css')],
    ['/docs/docs.js', 'text/javascript; charset=utf-8', 'src/web/docs/docs.js'],
    ['/docs/docs.css', 'text/css; charset=utf-8', 'src/web/docs/docs.css'],
    ['/console/console.js', 'text/javascript; charset=utf-8', 'src/web/console/console.js'],
    ['/console/console.css', 'text/css; charset=utf-8', 'src/web/console/console.css'],
    ['/console/colours.css', 'text/css; charset=utf-8', 'src/web/shared/colours.css'],
    ['/console/pdfPages.js', 'text/javascript; charset=utf-8', 'src/web/shared/pdfPages.js'],
    ['/console/pdf.min.mjs', 'text/javascript; charset=utf-8', path.join(pdfjsDir, 'build/pdf.min.mjs')],
    ['/console/pdf.worker.min.mjs', 'text/javascript; charset=utf-8', path.join(pdfjsDir, 'build/pdf.worker.min.mjs')],
    ['/sign/sign.js', 'text/javascript; charset=utf-8', 'src/web/sign/sign.js'],
    ['/sign/sign.css', 'text/css; charset=utf-8', 'src/web/sign/sign.css'],
    ['/sign/colours.css', 'text/css; charset=utf-8', 'src/web/shared/colours.css'],
    ['/verify-email/colours.css', 'text/css; charset=utf-8', 'src/web/shared/colours.css'],
    ['/sign/pdfPages.js', 'text/javascript; charset=utf-8', 'src/web/shared/pdfPages.js'],
    ['/sign/pdf.min.mjs', 'text/javascript; charset=utf-8', path.join(pdfjsDir, 'build/pdf.min.mjs')],
    ['/sign/pdf.worker.min.mjs', 'text/javascript; charset=utf-8', path.join(pdfjsDir, 'build/pdf.worker.min.mjs')],
    ['/sign/signature_pad.min.js', 'text/javascript; charset=utf-8', path.join(signaturePadDist, 'signature_pad.min.js')],
    ['/sign/Caveat-Regular.ttf', 'font/ttf', 'assets/fonts/Caveat-Regular.ttf'],
    ['/sign/i18n.js', 'text/javascript; charset=utf-8', 'src/web/sign/i18n.js'],
    ['/sign/intl-messageformat.js', 'text/javascript; charset=utf-8', 'node_modules/intl-messageformat/intl-messageformat.iife.js'],
    ['/sign/messages-de.json', 'application/json; charset=utf-8', 'src/locales/de/sign.json'],
    ['/sign/messages-zh-TW.json', 'application/json; charset=utf-8', 'src/locales/zh-TW/sign.json'],
    ['/verify/assets/evidence.js', 'text/javascript; charset=utf-8', 'src/web/evidence/evidence.js'],
    ['/verify/assets/evidence.css', 'text/css; charset=utf-8', 'src/web/evidence/evidence.css'],
    ['/verify/assets/colours.css', 'text/css; charset=utf-8', 'src/web/shared/colours.css'],
    ['/verify/assets/pdf.min.mjs', 'text/javascript; charset=utf-8', path.join(pdfjsDir, 'build/pdf.min.mjs')],
    // The verify page speaks the signing page's languages.
    ['/verify/assets/i18n.js', 'text/javascript; charset=utf-8', 'src/web/sign/i18n.js'],
    ['/verify/assets/intl-messageformat.js', 'text/javascript; charset=utf-8', 'node_modules/intl-messageformat/intl-messageformat.iife.js'],
    ['/verify/assets/messages-ar.json', 'application/json; charset=utf-8', 'src/locales/ar/sign.json'],
  ])('GET /api%s serves the file as %s', async (route, contentType, file) => {
    const response = await fetch(`${env.service.apiUrl}${route}`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe(contentType);
    expect(Buffer.from(await response.arrayBuffer()).equals(await readFile(path.resolve(process.cwd(), file)))).toBe(true);
  });

  test('GET /api/verify/assets/verification.js is the compiled verifier, whose imports, and theirs, are all served beside it with no bare specifier left', async () => {
    const seen = new Map<string, string>();
    const pending = ['verification.js'];
    while (pending.length > 0) {
      const name = pending.pop()!;
      if (seen.has(name)) continue;
      const response = await fetch(`${env.service.apiUrl}/verify/assets/${name}`);
      expect([name, response.status]).toEqual([name, 200]);
      expect(response.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
      const text = await response.text();
      seen.set(name, text);
      for (const [, specifier] of text.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)['"]([^'"\n]+)['"]/g)) {
        // Each import names a module served beside it, by a name of the allow-list: nothing left for a bundler.
        expect(specifier).toMatch(/^\.\/[A-Za-z0-9._-]+\.js$/);
        pending.push(specifier!.slice(2));
      }
    }
    const names = [...seen.keys()];
    expect(names).toEqual(expect.arrayContaining(['verification.js', 'm_verification_cms.js', 'm_verification_auditTrail.js', 'm_verification_publicLog.js', 'm_canonicalize_lib_canonicalize.js']));
    expect(names.some((name) => name.startsWith('m_pkijs_'))).toBe(true);
    expect(names.some((name) => name.startsWith('m_asn1js_'))).toBe(true);
    // The compiled verifier as built, but for its imports and its source map's comment.
    const compiled = await readFile(path.resolve(process.cwd(), 'dist/src/lib/verification/verify.js'), 'utf8');
    expect(seen.get('verification.js')).toBe(compiled.replace(/from '\.\/([A-Za-z]+)\.js'/g, "from './m_verification_$1.js'").replace(/^\/\/# sourceMappingURL=.*$/m, ''));
  });

  test.each(['/docs/docs.js', '/console/console.js', '/sign/pdf.worker.min.mjs', '/sign/Caveat-Regular.ttf'])(
    'GET /api%s answers 304 without a body when If-None-Match names its ETag, and 200 for another tag',
    async (route) => {
      const first = await env.api.request('GET', route);
      const etag = first.headers.get('etag');
      expect(etag).toMatch(/^"[A-Za-z0-9_-]{43}"$/);
      const again = await env.api.request('GET', route, { headers: { 'If-None-Match': `"other", ${etag}` } });
      expect(again.status).toBe(304);
      expect(again.text).toBe('');
      expect(again.headers.get('etag')).toBe(etag);
      expect(again.headers.get('cache-control')).toBe('no-cache');
      const changed = await env.api.request('GET', route, { headers: { 'If-None-Match': '"other"' } });
      expect(changed.status).toBe(200);
    },
  );

  test('the signing page has English as a module, and a font per script cut from the Noto fonts, declared with its unicode-range', async () => {
    const english = await env.api.request('GET', '/sign/messages-en.js');
    expect(english.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    const catalogue = JSON.parse(await readFile(path.resolve(process.cwd(), 'src/locales/en/sign.json'), 'utf8'));
    expect(english.text).toBe(`export default ${JSON.stringify(catalogue)};\n`);
    const css = await env.api.request('GET', '/sign/fonts.css');
    expect(css.headers.get('content-type')).toBe('text/css; charset=utf-8');
    for (const script of ['arabic', 'hebrew', 'devanagari', 'thai', 'cjk', 'hangul']) {
      for (const kind of ['font', 'names']) {
        expect(css.text).toMatch(new RegExp(`url\\("${kind}-${script}\\.ttf"\\) format\\("truetype"\\); font-display: swap; unicode-range: U\\+[0-9A-F]+-[0-9A-F]+`));
        const font = await fetch(`${env.service.apiUrl}/sign/${kind}-${script}.ttf`);
        expect(font.headers.get('content-type')).toBe('font/ttf');
        const bytes = Buffer.from(await font.arrayBuffer());
        // A TrueType font (sfnt version 1.0), far smaller than the file it is cut from.
        expect(bytes.readUInt32BE(0)).toBe(0x00010000);
        expect(bytes.length).toBeLessThan(kind === 'names' ? 16_384 : 200_000);
      }
    }
  });

  test.each([
    '/sign/messages-xx.json',
    '/sign/messages-en-US.json',
    '/sign/font-latin.ttf',
    '/docs/index.html',
    '/docs/swagger-ui-bundle.js.map',
    '/docs/package.json',
    '/docs/..%2F..%2Fpackage.json',
    '/docs/__proto__',
    '/docs/SWAGGER-UI.CSS',
    '/console/index.html',
    '/console/..%2Fdocs%2Fdocs.js',
    '/console/constructor',
    '/console/sign.js',
    '/sign/index.html',
    '/sign/pdf.mjs',
    '/sign/pdf.worker.mjs.map',
    '/sign/NotoSans-Regular.ttf',
    '/sign/..%2Fconsole%2Fconsole.js',
  ])('GET /api%s is 404: only allow-listed files are served', async (route) => {
    const response = await env.api.request('GET', route);
    expectProblem(response, 404);
  });

  test.each([
    ['/console/consoleSession.js', 'src/web/console/consoleSession.js'],
    ['/console/api.js', 'src/web/shared/api.js'],
    ['/console/problems.js', 'src/web/shared/problems.js'],
    ['/sign/signingSession.js', 'src/web/sign/signingSession.js'],
    ['/sign/api.js', 'src/web/shared/api.js'],
    ['/sign/problems.js', 'src/web/shared/problems.js'],
  ])('GET /api%s serves a module of the page or of src/web/shared beside the page\'s own', async (route, file) => {
    const response = await fetch(`${env.service.apiUrl}${route}`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(Buffer.from(await response.arrayBuffer()).equals(await readFile(path.resolve(process.cwd(), file)))).toBe(true);
  });

  test.each(['/console/signingSession.js', '/sign/consoleSession.js', '/console/api-types.d.ts', '/sign/signElements.d.ts', '/sign/tsconfig.web.json'])(
    'GET /api%s is 404: a page serves only its own and the shared modules, never their type declarations',
    async (route) => {
      expectProblem(await env.api.request('GET', route), 404);
    },
  );

  test('the pages are public and answer only GET', async () => {
    for (const route of ['/docs', '/console', '/sign', '/openapi.json', '/docs/docs.js', '/sign/sign.js']) {
      expect((await env.api.request('GET', route)).status).toBe(200);
      expectProblem(await env.api.request('POST', route, { json: {} }), 405);
    }
  });
});
