/**
 * A small stand-in for the Azure Functions host, for laptops and tests: serves the functions in
 * {@link registeredRoutes} over `node:http` under `/api`, matching routes case-insensitively with
 * `{param}` segments as the Functions host does, and answering CORS preflights for `ALLOWED_ORIGINS`.
 * Like the platform's front end, it appends the client address to `X-Forwarded-For`.
 */
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import functions, { type HttpResponseInit, type LogHandler } from '@azure/functions';
import { MAX_JSON_BODY_BYTES } from '../lib/http/body.js';
import { AppError } from '../lib/errors.js';
import { problemResponse } from '../lib/http/problem.js';
import type { RegisteredRoute } from '../lib/http/register.js';

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
}

const ROUTE_PREFIX = '/api/';

// @azure/functions is CommonJS, and Node's ES module loader cannot see these classes as named exports.
const { HttpRequest, HttpResponse, InvocationContext } = functions;
type HttpResponse = InstanceType<typeof HttpResponse>;

/** Creates (but does not start) an HTTP server for `routes`. */
export function createLocalHost(routes: readonly RegisteredRoute[], options: LocalHostOptions): http.Server {
  const compiled = routes.map(compileRoute);
  return http.createServer((incoming, outgoing) => {
    handle(incoming, compiled, options)
      .then((response) => send(outgoing, response, incoming, options))
      .catch((error: unknown) => {
        // Only a fault of this host itself lands here; handlers map their own errors.
        console.error('Local host failed to answer:', error instanceof Error ? error.message : String(error));
        if (!outgoing.headersSent) outgoing.writeHead(500, { 'Content-Type': 'text/plain' });
        outgoing.end();
      });
  });
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
  return { route, pattern: new RegExp(`^${source}/?$`, 'i'), parameterNames };
}

async function handle(incoming: http.IncomingMessage, routes: CompiledRoute[], options: LocalHostOptions): Promise<HttpResponse> {
  const url = new URL(incoming.url ?? '/', `http://${incoming.headers.host ?? '127.0.0.1'}`);
  const method = (incoming.method ?? 'GET').toUpperCase();
  if (!url.pathname.toLowerCase().startsWith(ROUTE_PREFIX)) return problem(new AppError('not_found', 'No such endpoint; the API lives under /api.'));
  const path = url.pathname.slice(ROUTE_PREFIX.length);

  const matches = routes.flatMap((candidate) => {
    const match = candidate.pattern.exec(path);
    return match === null ? [] : [{ candidate, match }];
  });
  if (matches.length === 0) return problem(new AppError('not_found', `No endpoint at ${url.pathname}.`));
  const allowed = [...new Set(matches.flatMap(({ candidate }) => candidate.route.methods))];
  if (method === 'OPTIONS' && incoming.headers.origin !== undefined) return preflight(allowed);
  const found = matches.find(({ candidate }) => candidate.route.methods.includes(method as never));
  if (found === undefined) {
    return problem(new AppError('method_not_allowed', `${method} is not allowed here; use ${allowed.join(', ')}.`), { Allow: allowed.join(', ') });
  }

  const declared = Number(incoming.headers['content-length'] ?? Number.NaN);
  if (Number.isFinite(declared) && declared > MAX_JSON_BODY_BYTES) return tooLarge();
  const body = await readBody(incoming);
  if (body === null) return tooLarge();

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
  const request = new HttpRequest({
    method,
    url: url.toString(),
    headers,
    query: Object.fromEntries(url.searchParams.entries()),
    params,
    ...(body.byteLength > 0 ? { body: { bytes: body } } : {}),
  });
  const context = new InvocationContext({
    invocationId: randomUUID(),
    functionName: found.candidate.route.name,
    ...(options.logHandler === undefined ? {} : { logHandler: options.logHandler }),
  });
  return new HttpResponse(await found.candidate.route.handler(request, context));
}

/** The request body, or `null` when it grows past the JSON limit (no API request carries more). */
async function readBody(incoming: http.IncomingMessage): Promise<Uint8Array | null> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of incoming as AsyncIterable<Buffer>) {
    total += chunk.byteLength;
    if (total > MAX_JSON_BODY_BYTES) return null;
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

function problem(error: AppError, headers: Record<string, string> = {}): HttpResponse {
  return new HttpResponse(problemResponse(error, headers));
}

function tooLarge(): HttpResponse {
  return problem(new AppError('payload_too_large', `The request body is larger than ${MAX_JSON_BODY_BYTES} bytes.`), { Connection: 'close' });
}

function preflight(methods: string[]): HttpResponse {
  const init: HttpResponseInit = {
    status: 204,
    headers: {
      'Access-Control-Allow-Methods': [...methods, 'OPTIONS'].join(', '),
      'Access-Control-Allow-Headers': 'Authorization, Content-Type, If-Match',
      'Access-Control-Max-Age': '3600',
      'X-Content-Type-Options': 'nosniff',
    },
  };
  return new HttpResponse(init);
}

async function send(outgoing: http.ServerResponse, response: HttpResponse, incoming: http.IncomingMessage, options: LocalHostOptions): Promise<void> {
  const headers: Record<string, string> = Object.fromEntries(response.headers.entries());
  const origin = incoming.headers.origin;
  if (origin !== undefined && (options.allowedOrigins.includes('*') || options.allowedOrigins.includes(origin))) {
    headers['Access-Control-Allow-Origin'] = options.allowedOrigins.includes('*') ? '*' : origin;
    headers['Access-Control-Expose-Headers'] = 'ETag, Link, Location, Retry-After, WWW-Authenticate';
    if (!options.allowedOrigins.includes('*')) headers.Vary = 'Origin';
  }
  const body = Buffer.from(await response.arrayBuffer());
  outgoing.writeHead(response.status, { ...headers, 'Content-Length': String(body.byteLength) });
  outgoing.end(incoming.method === 'HEAD' ? undefined : body);
}
