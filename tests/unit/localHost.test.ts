/**
 * The local host (src/local/host.ts) answers a handler's `HttpResponseInit` as the library's
 * `HttpResponse` would (it builds one only for the shapes it does not convert itself), and gives
 * handlers a request that answers like the library's `HttpRequest`, body included. Over real HTTP,
 * with handlers of this file (no storage).
 */
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import functions, { type HttpRequest, type HttpResponseInit } from '@azure/functions';
import type { RegisteredRoute } from '../../src/lib/http/register.js';
import { createLocalHost } from '../../src/local/host.js';

const { HttpResponse } = functions;

/** The answers under test, by name (`GET /api/answer/<name>`). */
const answers: Record<string, HttpResponseInit> = {
  'string body, no content type': { status: 200, body: 'hello' },
  'string body with a content type': { status: 201, body: '{"a":1}', headers: { 'Content-Type': 'application/json; charset=utf-8' } },
  'bytes body': { status: 200, body: new Uint8Array([0, 1, 2, 250]), headers: { 'content-type': 'application/octet-stream' } },
  'Buffer body': { body: Buffer.from('ünïcode', 'utf8') },
  'empty string body': { status: 200, body: '' },
  'no body, no status': {},
  '204 with a body': { status: 204, body: 'dropped', headers: { ETag: '"1"' } },
  '304 with a body': { status: 304, body: 'dropped' },
  'one name in two cases': { status: 200, body: 'x', headers: { 'X-Thing': 'a', 'x-thing': 'b' } },
  'values with inner blanks and quotes': { status: 200, body: 'x', headers: { 'WWW-Authenticate': 'Bearer error="invalid_token"', Link: '</a>; rel="next"' } },
  'a value with surrounding blanks': { status: 200, body: 'x', headers: { 'X-Padded': '  padded\t' } },
  'jsonBody': { status: 200, jsonBody: { a: [1, 2] } },
  'Headers object': { status: 200, body: 'x', headers: new Headers({ 'X-From-Headers': '1' }) },
  'header pairs': { status: 200, body: 'x', headers: [['X-Pair', '1']] },
  'cookies': { status: 200, body: 'x', cookies: [{ name: 'a', value: 'b' }] },
};

/** What `new HttpResponse(init)` holds, as the host would send it. */
async function expected(init: HttpResponseInit): Promise<{ status: number; headers: Record<string, string>; body: Buffer }> {
  const response = new HttpResponse(init);
  return { status: response.status, headers: Object.fromEntries(response.headers.entries()), body: Buffer.from(await response.arrayBuffer()) };
}

let seen: HttpRequest | undefined;
let seenBody: string | undefined;

const routes: RegisteredRoute[] = [
  {
    name: 'Answer',
    methods: ['GET'],
    authLevel: 'anonymous',
    route: 'answer/{name}',
    access: 'public',
    handler: async (request) => answers[request.params.name ?? ''] ?? { status: 404 },
  },
  {
    name: 'Echo',
    methods: ['GET', 'POST'],
    authLevel: 'anonymous',
    route: 'echo/{id}',
    access: 'public',
    handler: async (request) => {
      seen = request;
      seenBody = await request.text();
      return { status: 200, body: 'ok' };
    },
  },
  {
    name: 'EchoRoot',
    methods: ['DELETE'],
    authLevel: 'anonymous',
    route: '{anything}/{id}',
    access: 'public',
    handler: async () => ({ status: 200, body: 'param first' }),
  },
];

let server: ReturnType<typeof createLocalHost>;
let base: string;

beforeAll(async () => {
  server = createLocalHost(routes, { allowedOrigins: [] });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api`;
});
afterAll(async () => {
  await new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
});

describe('responses', () => {
  test.each(Object.keys(answers))('%s: as HttpResponse would send it', async (name) => {
    const want = await expected(answers[name]!);
    const response = await fetch(`${base}/answer/${encodeURIComponent(name)}`);
    expect(response.status).toBe(want.status);
    const got: Record<string, string> = {};
    response.headers.forEach((value, key) => {
      if (!['content-length', 'date', 'connection', 'keep-alive'].includes(key)) got[key] = value;
    });
    expect(got).toEqual(want.headers);
    const body = Buffer.from(await response.arrayBuffer());
    expect(body.equals(want.body)).toBe(true);
    if (!answers[name]!.status || ![204, 304].includes(answers[name]!.status!)) expect(response.headers.get('content-length')).toBe(String(want.body.byteLength));
  });

  test('HEAD gets the length of the body it does not get', async () => {
    const response = await fetch(`${base}/answer/${encodeURIComponent('string body, no content type')}`, { method: 'HEAD' });
    // HEAD is not among the route's methods: 405, with the problem's length and no body.
    expect(response.status).toBe(405);
    expect(Number(response.headers.get('content-length'))).toBeGreaterThan(0);
    expect(await response.text()).toBe('');
  });
});

describe('requests', () => {
  test('method, url, headers, query, params and the body as the library request gives them', async () => {
    const response = await fetch(`${base}/Echo/a%20b?x=1&y=2`, {
      method: 'POST',
      headers: { 'Content-Type': 'text/plain', 'X-Forwarded-For': '203.0.113.9', 'X-Custom': 'v' },
      body: 'the body',
    });
    expect(response.status).toBe(200);
    const request = seen!;
    expect(request.method).toBe('POST');
    expect(request.url).toBe(`${base}/Echo/a%20b?x=1&y=2`);
    expect(request.headers.get('x-custom')).toBe('v');
    expect(request.headers.get('x-forwarded-for')).toBe('203.0.113.9, 127.0.0.1');
    expect(Object.fromEntries(request.query.entries())).toEqual({ x: '1', y: '2' });
    expect(request.params).toEqual({ id: 'a b' });
    expect(seenBody).toBe('the body');
    expect(request.bodyUsed).toBe(true);
    expect(request.user).toBeNull();
  });

  test('a request without a body reads as empty, and its body stream is null', async () => {
    await fetch(`${base}/echo/1`);
    const request = seen!;
    expect(seenBody).toBe('');
    expect(request.body).toBeNull();
    expect(request.query.size).toBe(0);
  });

  test('a route whose first segment is a parameter matches any first segment; methods are checked across all matches', async () => {
    expect(await (await fetch(`${base}/echo/1`, { method: 'DELETE' })).text()).toBe('param first');
    expect(await (await fetch(`${base}/other/1`, { method: 'DELETE' })).text()).toBe('param first');
    const refused = await fetch(`${base}/other/1`);
    expect(refused.status).toBe(405);
    expect(refused.headers.get('allow')).toBe('DELETE');
    const both = await fetch(`${base}/echo/1`, { method: 'PUT' });
    expect(both.headers.get('allow')).toBe('GET, POST, DELETE');
  });
});
