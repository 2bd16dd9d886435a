/**
 * Helpers of the contract tests (tests/e2e/*.test.ts): settings changed for one test and restored,
 * a loopback Cloudflare Turnstile siteverify, a port where nothing listens, and the shapes the
 * contract fixes (timestamps, UUIDv7).
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resetConfig } from '../../src/lib/config.js';
import { resetServices } from '../../src/lib/services.js';
import { resetStorage } from '../../src/lib/storage/clients.js';
import type { ApiResponse } from './service.js';

/** ISO 8601 UTC with milliseconds (docs/api.md#conventions). */
export const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
/** A canonical UUID version 7 (RFC 9562 §5.7). */
export const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
/** A canonical UUID of any version. */
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** Forgets every cached setting, service and storage client, so the next request reads `process.env`. */
export function reloadSettings(): void {
  resetConfig();
  resetStorage();
  resetServices();
}

/**
 * Runs `body` with the environment variables in `settings` set (`undefined` deletes one), the
 * service's caches reset so the running test service sees them, and everything restored afterwards.
 */
export async function withSettings<T>(settings: Record<string, string | undefined>, body: () => Promise<T>): Promise<T> {
  const saved = Object.fromEntries(Object.keys(settings).map((name) => [name, process.env[name]]));
  const apply = (values: Record<string, string | undefined>) => {
    for (const [name, value] of Object.entries(values)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    reloadSettings();
  };
  apply(settings);
  try {
    return await body();
  } finally {
    apply(saved);
  }
}

/** A loopback port on which nothing listens (bound, then closed). */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** One verification request as siteverify received it. */
export interface SiteverifyRequest {
  contentType: string | undefined;
  secret: string | null;
  response: string | null;
  remoteip: string | null;
}

/**
 * How the fake answers: `protocol` speaks siteverify (success for {@link FakeSiteverify.passToken},
 * `invalid-input-response` for any other token); `hang` never answers; `nonsense` answers 200 with an
 * HTML page; `wrong-shape` answers 200 with JSON lacking a boolean `success`; `error` answers HTTP 500.
 */
export type SiteverifyMode = 'protocol' | 'hang' | 'nonsense' | 'wrong-shape' | 'error';

export interface FakeSiteverify {
  /** `http://127.0.0.1:<port>/turnstile/v0/siteverify` */
  url: string;
  /** The token the fake accepts in `protocol` mode. */
  passToken: string;
  mode: SiteverifyMode;
  requests: SiteverifyRequest[];
  close(): Promise<void>;
}

/**
 * A stand-in for Cloudflare's siteverify on 127.0.0.1 speaking its protocol
 * (https://developers.cloudflare.com/turnstile/get-started/server-side-validation/): `POST` of a form
 * (`secret`, `response`, `remoteip`) answered with JSON `{success, "error-codes", ...}`.
 */
export async function startFakeSiteverify(): Promise<FakeSiteverify> {
  const fake: Omit<FakeSiteverify, 'url' | 'close'> = { passToken: 'XXXX.DUMMY.TOKEN.PASS', mode: 'protocol', requests: [] };
  const server: Server = createServer((request, response) => {
    void readText(request).then((text) => {
      const form = new URLSearchParams(text);
      fake.requests.push({
        contentType: request.headers['content-type'],
        secret: form.get('secret'),
        response: form.get('response'),
        remoteip: form.get('remoteip'),
      });
      if (fake.mode === 'hang') return;
      if (fake.mode === 'error') {
        response.writeHead(500, { 'Content-Type': 'text/plain' }).end('internal error');
        return;
      }
      if (fake.mode === 'nonsense') {
        response.writeHead(200, { 'Content-Type': 'text/html' }).end('<html>Just a moment...</html>');
        return;
      }
      if (fake.mode === 'wrong-shape') {
        response.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ success: 'true', 'error-codes': [] }));
        return;
      }
      const success = request.method === 'POST' && form.get('secret') !== null && form.get('response') === fake.passToken;
      const body = success
        ? { success: true, challenge_ts: new Date().toISOString(), hostname: 'localhost', 'error-codes': [], action: '', cdata: '' }
        : { success: false, 'error-codes': ['invalid-input-response'] };
      response.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(fake, {
    url: `http://127.0.0.1:${port}/turnstile/v0/siteverify`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  });
}

async function readText(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request as AsyncIterable<Buffer>) chunks.push(chunk);
  return Buffer.concat(chunks).toString('utf8');
}

/** The envelope of a response without its SAS URLs (its own and each document's), which are signed anew on every response. */
export function withoutUrls(envelope: Record<string, unknown>): Record<string, unknown> {
  const { documentUrl: _documentUrl, signedUrl, documents, ...rest } = envelope;
  return {
    ...rest,
    signedUrl: signedUrl === null ? null : 'present',
    ...(Array.isArray(documents) ? { documents: documents.map(({ documentUrl, ...document }: Record<string, unknown>) => ({ ...document, documentUrl: documentUrl === null ? null : 'present' })) } : {}),
  };
}

/** The `rel="next"` target of a `Link` header, or `null`. */
export function nextLink(response: ApiResponse): string | null {
  const header = response.headers.get('link');
  if (header === null) return null;
  const match = /<([^>]+)>\s*;\s*rel="next"/.exec(header);
  return match === null ? null : match[1]!;
}
