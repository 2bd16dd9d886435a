/**
 * A small stand-in for the Azure Functions host, for laptops and tests: serves the functions in
 * {@link registeredRoutes} over `node:http` under `/api`, matching routes case-insensitively with
 * `{param}` segments as the Functions host does, and answering CORS preflights for `ALLOWED_ORIGINS`.
 * Like the platform's front end, it appends the client address to `X-Forwarded-For`.
 *
 * Per request it does no more than a handler needs (bench/README.md "Hot read"): handlers get a
 * {@link LocalHttpRequest}, which answers `method`, `url`, `headers`, `query` and `params` itself and
 * builds the `@azure/functions` `HttpRequest` (an undici `Request`) only when the body or `user` is
 * asked for; a handler's `HttpResponseInit` with a string or byte body and plain headers is written
 * as `new HttpResponse(init)` would answer it, without building that object (an undici `Response`
 * and a body stream, about 75 µs a response); anything else still goes through `HttpResponse`.
 */
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import functions, { type HttpRequestInit, type HttpRequestParams, type HttpRequestUser, type HttpResponseInit, type LogHandler } from '@azure/functions';
import { MAX_JSON_BODY_BYTES } from '../lib/http/body.js';
import { AppError } from '../lib/errors.js';
import { problemResponse } from '../lib/http/problem.js';
import type { RegisteredRoute } from '../lib/http/register.js';
import { problem as problemError } from '../lib/problems.js';

export interface LocalHostOptions {
  /** Origins allowed by CORS; `['*']` for any. */
  allowedOrigins: string[];
  /** Where `context.log` and friends go; default the console. */
  logHandler?: LogHandler;
}

interface CompiledRoute {
  route: RegisteredRoute;
  pattern: RegExp;
  parameterNames: string[];
  /** The route's first segment, lower-case, or `null` when it is a parameter. */
  firstSegment: string | null;
}

/**
 * The routes that can match a path, by the path's first segment (lower-case), in registration order:
 * those whose first segment is that literal, and those whose first segment is a parameter
 * (`anyFirstSegment`, also the candidates of any other path).
 */
interface RouteTable {
  byFirstSegment: Map<string, CompiledRoute[]>;
  anyFirstSegment: CompiledRoute[];
}

/**
 * A response as it goes on the wire: lower-case header names, as `HttpResponse` gives them. A Node
 * stream body (the download of a completed envelope, docs/api.md#download-a-completed-envelope) is
 * streamed as it is read, chunked, never held whole.
 */
interface OutgoingResponse {
  status: number;
  headers: Record<string, string>;
  body: string | Uint8Array | Readable | null;
}

const ROUTE_PREFIX = '/api/';

/**
 * How long an idle keep-alive connection stays open, milliseconds: 130 s, as the Functions host's
 * web server (Kestrel) keeps them. Node's default, 5 s, let clients reuse a connection this host was
 * closing at that moment: a client that sends a request as the server closes the idle connection gets
 * `ECONNRESET` (seen under load, where a client's own idle timer fires late). Node advertises the value
 * in `Keep-Alive: timeout=130`, and clients that honour it (fetch, undici) close idle connections
 * before the server does.
 */
export const KEEP_ALIVE_TIMEOUT_MS = 130_000;

// @azure/functions is CommonJS, and Node's ES module loader cannot see these classes as named exports.
const { HttpRequest, HttpResponse, InvocationContext } = functions;
type HttpRequest = InstanceType<typeof HttpRequest>;

/** Creates (but does not start) an HTTP server for `routes`. */
export function createLocalHost(routes: readonly RegisteredRoute[], options: LocalHostOptions): http.Server {
  const table = routeTable(routes.map(compileRoute));
  const server = http.createServer((incoming, outgoing) => {
    handle(incoming, table, options)
      .then((response) => send(outgoing, response, incoming, options))
      .catch((error: unknown) => {
        // Only a fault of this host itself lands here; handlers map their own errors.
        console.error('Local host failed to answer:', error instanceof Error ? error.message : String(error));
        if (!outgoing.headersSent) outgoing.writeHead(500, { 'Content-Type': 'text/plain' });
        outgoing.end();
      });
  });
  server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
  return server;
}

function compileRoute(route: RegisteredRoute): CompiledRoute {
  const parameterNames: string[] = [];
  const source = route.route
    .split('/')
    .map((segment) => {
      const parameter = /^\{([A-Za-z_][A-Za-z0-9_]*)(?::[^}?]+)?(\?)?\}$/.exec(segment);
      if (parameter === null) return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      parameterNames.push(parameter[1]!);
      return parameter[2] === '?' ? '([^/]*)' : '([^/]+)';
    })
    .join('/');
  const first = route.route.split('/')[0]!;
  return { route, pattern: new RegExp(`^${source}/?$`, 'i'), parameterNames, firstSegment: first.startsWith('{') ? null : first.toLowerCase() };
}

function routeTable(routes: CompiledRoute[]): RouteTable {
  const byFirstSegment = new Map<string, CompiledRoute[]>();
  for (const route of routes) {
    if (route.firstSegment !== null && !byFirstSegment.has(route.firstSegment)) {
      byFirstSegment.set(
        route.firstSegment,
        routes.filter((candidate) => candidate.firstSegment === null || candidate.firstSegment === route.firstSegment),
      );
    }
  }
  return { byFirstSegment, anyFirstSegment: routes.filter((route) => route.firstSegment === null) };
}

async function handle(incoming: http.IncomingMessage, table: RouteTable, options: LocalHostOptions): Promise<OutgoingResponse> {
  const url = new URL(incoming.url ?? '/', `http://${incoming.headers.host ?? '127.0.0.1'}`);
  const method = (incoming.method ?? 'GET').toUpperCase();
  if (!url.pathname.toLowerCase().startsWith(ROUTE_PREFIX)) return problem(problemError('notFound'));
  const path = url.pathname.slice(ROUTE_PREFIX.length);

  const slash = path.indexOf('/');
  const candidates = table.byFirstSegment.get((slash === -1 ? path : path.slice(0, slash)).toLowerCase()) ?? table.anyFirstSegment;
  const matches: { candidate: CompiledRoute; match: RegExpExecArray }[] = [];
  for (const candidate of candidates) {
    const match = candidate.pattern.exec(path);
    if (match !== null) matches.push({ candidate, match });
  }
  if (matches.length === 0) return problem(problemError('notFound', { detail: `No endpoint at ${url.pathname}.` }));
  const allowed = () => [...new Set(matches.flatMap(({ candidate }) => candidate.route.methods))];
  if (method === 'OPTIONS' && incoming.headers.origin !== undefined) return preflight(allowed());
  const found = matches.find(({ candidate }) => candidate.route.methods.includes(method as never));
  if (found === undefined) {
    const methods = allowed();
    return problem(problemError('methodNotAllowed', { detail: `${method} is not allowed here; use ${methods.join(', ')}.` }), { Allow: methods.join(', ') });
  }

  const declared = Number(incoming.headers['content-length'] ?? Number.NaN);
  // A function that takes a file says how large (docs/api.md#files-from-signers); the others take JSON.
  const maxBodyBytes = found.candidate.route.maxBodyBytes ?? MAX_JSON_BODY_BYTES;
  if (Number.isFinite(declared) && declared > maxBodyBytes) return tooLarge(maxBodyBytes);
  // RFC 9112 §6.3: a request with neither Content-Length nor Transfer-Encoding has no body.
  const bodyless = declared === 0 || (incoming.headers['content-length'] === undefined && incoming.headers['transfer-encoding'] === undefined);
  const body = bodyless ? null : await readBody(incoming, maxBodyBytes);
  if (body === undefined) return tooLarge(maxBodyBytes);

  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(incoming.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  const remote = incoming.socket.remoteAddress ?? '';
  headers['x-forwarded-for'] = headers['x-forwarded-for'] ? `${headers['x-forwarded-for']}, ${remote}` : remote;
  const params: Record<string, string> = {};
  found.candidate.parameterNames.forEach((name, index) => {
    params[name] = safeDecode(found.match[index + 1] ?? '');
  });
  const request = new LocalHttpRequest({
    method,
    url: url.toString(),
    headers,
    query: url.search === '' ? {} : Object.fromEntries(url.searchParams.entries()),
    params,
    ...(body !== null && body.byteLength > 0 ? { body: { bytes: body } } : {}),
  });
  const context = new InvocationContext({
    invocationId: randomUUID(),
    functionName: found.candidate.route.name,
    ...(options.logHandler === undefined ? {} : { logHandler: options.logHandler }),
  });
  return await toOutgoing(await found.candidate.route.handler(request, context));
}

/**
 * The request a handler gets from this host: an `HttpRequest` (the same members, the same answers)
 * that holds what `method`, `url`, `headers`, `query` and `params` need and builds the library's
 * `HttpRequest` from the same init only when the body, `user` or a copy is asked for.
 */
class LocalHttpRequest implements HttpRequest {
  readonly method: string;
  readonly url: string;
  readonly query: URLSearchParams;
  readonly params: HttpRequestParams;
  readonly #init: HttpRequestInit & { headers: Record<string, string> };
  #headers: Headers | undefined;
  #library: HttpRequest | undefined;

  constructor(init: HttpRequestInit & { method: string; url: string; headers: Record<string, string> }) {
    this.#init = init;
    this.method = init.method;
    this.url = init.url;
    this.query = new URLSearchParams(init.query);
    this.params = init.params ?? {};
  }

  get headers(): Headers {
    this.#headers ??= new Headers(this.#init.headers);
    return this.#headers;
  }

  get user(): HttpRequestUser | null {
    return this.#libraryRequest().user;
  }

  get body(): ReadableStream | null {
    return this.#libraryRequest().body;
  }

  get bodyUsed(): boolean {
    return this.#library?.bodyUsed ?? false;
  }

  arrayBuffer(): Promise<ArrayBuffer> {
    return this.#libraryRequest().arrayBuffer();
  }

  blob(): Promise<Blob> {
    return this.#libraryRequest().blob();
  }

  formData(): Promise<FormData> {
    return this.#libraryRequest().formData();
  }

  json(): Promise<unknown> {
    return this.#libraryRequest().json();
  }

  text(): Promise<string> {
    return this.#libraryRequest().text();
  }

  clone(): HttpRequest {
    return this.#libraryRequest().clone();
  }

  /** The library's `HttpRequest` of the same init, built once (its body is then read from it). */
  #libraryRequest(): HttpRequest {
    this.#library ??= new HttpRequest(this.#init);
    return this.#library;
  }
}

/** The request body, or `undefined` when it grows past `limit` bytes (the route's, else the JSON limit). */
async function readBody(incoming: http.IncomingMessage, limit: number): Promise<Uint8Array | undefined> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of incoming as AsyncIterable<Buffer>) {
    total += chunk.byteLength;
    if (total > limit) return undefined;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

function problem(error: AppError, headers: Record<string, string> = {}): Promise<OutgoingResponse> {
  return toOutgoing(problemResponse(error, headers));
}

function tooLarge(limit: number): Promise<OutgoingResponse> {
  return problem(problemError('payloadTooLarge', { detail: `The request body is larger than ${limit} bytes.` }), { Connection: 'close' });
}

function preflight(methods: string[]): Promise<OutgoingResponse> {
  return toOutgoing({
    status: 204,
    headers: {
      'Access-Control-Allow-Methods': [...methods, 'OPTIONS'].join(', '),
      'Access-Control-Allow-Headers': 'Authorization, Content-Type, If-Match, Idempotency-Key',
      'Access-Control-Max-Age': '3600',
      'X-Content-Type-Options': 'nosniff',
    },
  });
}

/** Statuses whose responses carry no body (the fetch standard's "null body status"). */
const NULL_BODY_STATUSES = new Set([204, 205, 304]);
/** A header name (RFC 9110 §5.1 token) and a value with no control characters and no surrounding blanks. */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const HEADER_VALUE = /^(?:[^\0-\x1f\x7f ]|[^\0-\x1f\x7f ][^\0-\x08\x0a-\x1f\x7f]*[^\0-\x1f\x7f ])?$/;

/**
 * What `new HttpResponse(init)` would send, as status, lower-case headers and body. A string or
 * byte body with a plain header object is converted here as `Response` does (header names lower-case,
 * a repeated name's values joined with `, `, `text/plain;charset=UTF-8` for a string body without a
 * `Content-Type`, no body for 204, 205 and 304); anything else (JSON bodies, streams, cookies,
 * `Headers` objects, unusual statuses or header values) goes through `HttpResponse` itself.
 */
async function toOutgoing(init: HttpResponseInit): Promise<OutgoingResponse> {
  const plain = plainResponse(init);
  if (plain !== undefined) return plain;
  const response = new HttpResponse(init);
  return { status: response.status, headers: Object.fromEntries(response.headers.entries()), body: new Uint8Array(await response.arrayBuffer()) };
}

function plainResponse(init: HttpResponseInit): OutgoingResponse | undefined {
  const status = init.status ?? 200;
  if (!Number.isInteger(status) || status < 200 || status > 599) return undefined;
  if (init.jsonBody !== undefined || (init.cookies !== undefined && init.cookies.length > 0)) return undefined;
  const source = init.body;
  if (source !== undefined && source !== null && typeof source !== 'string' && !(source instanceof Uint8Array) && !(source instanceof Readable)) return undefined;
  const given = init.headers;
  if (given !== undefined && (given === null || typeof given !== 'object' || Object.getPrototypeOf(given) !== Object.prototype)) return undefined;
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries((given ?? {}) as Record<string, unknown>)) {
    const key = name.toLowerCase();
    if (typeof value !== 'string' || !HEADER_NAME.test(name) || !HEADER_VALUE.test(value) || key === '__proto__') return undefined;
    headers[key] = Object.hasOwn(headers, key) ? `${headers[key]}, ${value}` : value;
  }
  const body = NULL_BODY_STATUSES.has(status) || source === undefined ? null : source;
  if (typeof body === 'string' && !Object.hasOwn(headers, 'content-type')) headers['content-type'] = 'text/plain;charset=UTF-8';
  return { status, headers, body };
}

function send(outgoing: http.ServerResponse, response: OutgoingResponse, incoming: http.IncomingMessage, options: LocalHostOptions): void {
  const headers: Record<string, string> = response.headers;
  const origin = incoming.headers.origin;
  if (origin !== undefined && (options.allowedOrigins.includes('*') || options.allowedOrigins.includes(origin))) {
    headers['Access-Control-Allow-Origin'] = options.allowedOrigins.includes('*') ? '*' : origin;
    headers['Access-Control-Expose-Headers'] = 'ETag, Link, Location, RateLimit, RateLimit-Policy, Retry-After, WWW-Authenticate, Idempotent-Replayed';
    if (!options.allowedOrigins.includes('*')) headers.Vary = 'Origin';
  }
  const body = response.body ?? '';
  if (body instanceof Readable) {
    outgoing.writeHead(response.status, headers);
    if (incoming.method === 'HEAD') {
      body.destroy();
      outgoing.end();
      return;
    }
    // A stream that fails mid-way ends the connection without its last chunk: the client sees a truncated answer, never a complete-looking one.
    pipeline(body, outgoing).catch((error: unknown) => {
      console.error('Local host: a streamed answer failed:', error instanceof Error ? error.message : String(error));
      outgoing.destroy();
    });
    return;
  }
  headers['Content-Length'] = String(typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength);
  outgoing.writeHead(response.status, headers);
  // A string body goes out in one write with the head.
  outgoing.end(incoming.method === 'HEAD' ? undefined : body);
}
