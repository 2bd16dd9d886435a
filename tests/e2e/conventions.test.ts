/**
 * Conventions of every endpoint (docs/api.md#conventions) over real HTTP: JSON bodies (media type, syntax, size,
 * unknown fields), problem details, `WWW-Authenticate`, cache and sniffing headers, timestamps, ids and
 * routing.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, test } from '@jest/globals';
import { ApiClient, corpusPdf, createEnvelopeWithDocument, expectProblem, putToSas, serviceForFile, type ApiResponse, type TestService, type TestUser } from '../support/service.js';
import { ISO_MS, UUID, UUID_V7 } from '../support/contract.js';

let env: TestService;
let api: ApiClient;
let user: TestUser;
let pdf: Buffer;
serviceForFile(async (started) => {
  ({ env, api, owner: user } = started);
  pdf = await corpusPdf('normal.pdf');
});

const MIB = 1024 * 1024;

async function newDraft(): Promise<string> {
  return await createEnvelopeWithDocument(api, user, null);
}

describe('request bodies (docs/api.md#conventions)', () => {
  test('a body sent with another media type gets 415', async () => {
    const id = await newDraft();
    const bodies: [string, string, string][] = [
      ['POST', '/Login', JSON.stringify({ email: user.email, password: user.password })],
      ['POST', '/GetUploadUrl', JSON.stringify({ filename: 'a.pdf', mimetype: 'application/pdf' })],
      ['PUT', `/envelopes/${id}`, JSON.stringify({ signers: [] })],
    ];
    for (const [method, route, body] of bodies) {
      const response = await api.request(method, route, { token: user.token, body, headers: { 'Content-Type': 'text/plain' } });
      expectProblem(response, 415);
    }
  });

  test('a body sent without Content-Type gets 415', async () => {
    const response = await api.request('POST', '/Login', { body: JSON.stringify({ email: user.email, password: user.password }) });
    expectProblem(response, 415);
  });

  test('application/json with a charset parameter is accepted', async () => {
    const response = await api.request('POST', '/Login', {
      json: { email: user.email, password: user.password },
      headers: { 'Content-Type': 'application/json; charset=utf-8' },
    });
    expect(response.status).toBe(200);
  });

  test.each([
    ['truncated JSON', '{"email": "a@example.com", "password": '],
    ['single quotes', "{'email': 'a@example.com'}"],
    ['an empty body', ''],
  ])('malformed JSON (%s) gets 400', async (_case, body) => {
    const response = await api.request('POST', '/Login', { body, headers: { 'Content-Type': 'application/json' } });
    expectProblem(response, 400);
    expect(response.body.type).toMatch(/malformed-json/);
  });

  test('a JSON body over 1 MiB gets 413 (Content-Length declared)', async () => {
    const body = JSON.stringify({ email: user.email, password: 'x'.repeat(MIB) });
    const response = await api.request('POST', '/Login', { body, headers: { 'Content-Type': 'application/json' } });
    expectProblem(response, 413);
  });

  test('a chunked JSON body over 1 MiB gets 413', async () => {
    const chunk = new TextEncoder().encode('x'.repeat(64 * 1024));
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent === 0) controller.enqueue(new TextEncoder().encode('{"email":"a@example.com","password":"'));
        if (sent > MIB + 64 * 1024) {
          controller.enqueue(new TextEncoder().encode('"}'));
          controller.close();
          return;
        }
        controller.enqueue(chunk);
        sent += chunk.byteLength;
      },
    });
    const response = await fetch(`${api.apiUrl}/Login`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: stream,
      duplex: 'half',
    } as RequestInit);
    expect(response.status).toBe(413);
    expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  });

  test('a JSON body just under 1 MiB is read and judged on its content (400, not 413)', async () => {
    const body = JSON.stringify({ email: user.email, password: 'x'.repeat(MIB - 200) });
    expect(Buffer.byteLength(body)).toBeLessThanOrEqual(MIB);
    const response = await api.request('POST', '/Login', { body, headers: { 'Content-Type': 'application/json' } });
    expectProblem(response, 400);
    expect(response.body.errors).toEqual([{ path: 'password', message: expect.any(String) }]);
  });

  test.each(['ownerId', 'id', 'createdAt', 'hash', 'status2'])('an unknown field (%s) in an update gets 400 naming it, and changes nothing', async (field) => {
    const id = await newDraft();
    const before = await api.request('GET', `/envelopes/${id}`, { token: user.token });
    const response = await api.request('PUT', `/envelopes/${id}`, { token: user.token, json: { signers: [], [field]: 'x' } });
    expectProblem(response, 400);
    expect(response.body.detail).toContain(field);
    expect(response.body.errors).toContainEqual({ path: field, message: expect.any(String) });
    const after = await api.request('GET', `/envelopes/${id}`, { token: user.token });
    expect(after.headers.get('etag')).toBe(before.headers.get('etag'));
    expect(after.body.ownerId).toBe(user.userId);
  });

  test('an unknown field in Register (role) gets 400 naming it and creates no account', async () => {
    const email = `admin-${Date.now()}@example.com`;
    const code = await env.invitation();
    const response = await api.request('POST', '/Register', { json: { email, password: 'long enough', invitationCode: code, role: 'admin' } });
    expectProblem(response, 400);
    expect(response.body.detail).toContain('role');
    const login = await api.request('POST', '/Login', { json: { email, password: 'long enough' } });
    expectProblem(login, 401);
    // The code was not consumed by the refused request.
    expect((await api.request('POST', '/Register', { json: { email, password: 'long enough', invitationCode: code } })).status).toBe(201);
  });

  test('an unknown field in GetUploadUrl gets 400 naming it', async () => {
    const response = await api.request('POST', '/GetUploadUrl', {
      token: user.token,
      json: { filename: 'a.pdf', mimetype: 'application/pdf', ownerId: 'someone-else' },
    });
    expectProblem(response, 400);
    expect(response.body.detail).toContain('ownerId');
  });

  test('a JSON body that is not an object gets 400', async () => {
    for (const body of ['[]', 'null', '"text"', '42']) {
      const response = await api.request('POST', '/Login', { body, headers: { 'Content-Type': 'application/json' } });
      expectProblem(response, 400);
    }
  });
});

describe('problem details (docs/api.md#conventions, RFC 9457)', () => {
  test('every error is application/problem+json with type, title, status and detail, and no internals', async () => {
    const id = await newDraft();
    const responses: [ApiResponse<any>, number][] = [
      [await api.request('POST', '/Login', { json: {} }), 400],
      [await api.request('GET', '/envelopes'), 401],
      [await api.request('POST', '/Register', { json: { email: 'x@example.com', password: 'long enough', invitationCode: 'inv_nope' } }), 403],
      [await api.request('GET', `/envelopes/${randomUUID()}`, { token: user.token }), 404],
      [await api.request('DELETE', `/envelopes/${id}/audit`, { token: user.token }), 405],
      [await api.request('PATCH', `/envelopes/${id}`, { token: user.token, json: { status: 'sent' } }), 409],
      [await api.request('PUT', `/envelopes/${id}`, { token: user.token, json: { signers: [] }, headers: { 'If-Match': '"999"' } }), 412],
      [await api.request('POST', '/Login', { body: '{}', headers: { 'Content-Type': 'text/plain' } }), 415],
    ];
    for (const [response, status] of responses) {
      expectProblem(response, status);
      expect(response.body.type).toMatch(/^(urn:problem:|https?:\/\/)/);
      expect(response.text).not.toMatch(/\n\s+at |node_modules|RestError|StorageError|ECONNREFUSED|stack/i);
      expect(response.text).not.toContain(process.env.JWT_SECRET!);
    }
  });

  test('validation failures list each complaint with its path', async () => {
    const id = await newDraft();
    const response = await api.request('PUT', `/envelopes/${id}`, {
      token: user.token,
      json: { signers: [{ email: 'ok@example.com', name: 'Ok' }, { email: 'not-an-address', name: '' }] },
    });
    expectProblem(response, 400);
    expect(response.body.errors).toEqual(
      expect.arrayContaining([
        { path: 'signers.1.email', message: expect.any(String) },
        { path: 'signers.1.name', message: expect.any(String) },
      ]),
    );
  });
});

describe('401 and WWW-Authenticate (docs/api.md#conventions, RFC 6750)', () => {
  test('without a token: 401 with WWW-Authenticate: Bearer and no error code', async () => {
    const response = await api.request('GET', '/envelopes');
    expectProblem(response, 401);
    const challenge = response.headers.get('www-authenticate') ?? '';
    expect(challenge).toMatch(/^Bearer\b/);
    expect(challenge).not.toContain('error=');
  });

  test('with a token that is not valid: 401 with error="invalid_token"', async () => {
    for (const token of ['not-a-jwt', `${user.token.slice(0, -4)}AAAA`]) {
      const response = await api.request('GET', '/envelopes', { token });
      expectProblem(response, 401);
      expect(response.headers.get('www-authenticate')).toMatch(/^Bearer\b.*error="invalid_token"/);
    }
  });

  test('the same token with a valid signature is accepted', async () => {
    expect((await api.request('GET', '/envelopes', { token: user.token })).status).toBe(200);
  });

  test('the Bearer scheme is matched case-insensitively', async () => {
    const response = await api.request('GET', '/envelopes', { headers: { Authorization: `bearer ${user.token}` } });
    expect(response.status).toBe(200);
  });
});

describe('response headers (docs/api.md#conventions)', () => {
  test('Cache-Control: no-store on Login, GetUploadUrl, GetEnvelope and complete', async () => {
    const login = await api.request('POST', '/Login', { json: { email: user.email, password: user.password } });
    expect(login.status).toBe(200);
    const ticket = await api.request('POST', '/GetUploadUrl', { token: user.token, json: { filename: 'a.pdf', mimetype: 'application/pdf' } });
    expect(ticket.status).toBe(201);
    const id = ticket.body.envelopeId as string;
    const put = await putToSas(ticket.body.uploadUrl, pdf);
    expect(put.status).toBe(201);
    const get = await api.request('GET', `/envelopes/${id}`, { token: user.token });
    expect(get.status).toBe(200);
    await api.request('PUT', `/envelopes/${id}`, { token: user.token, json: { signers: [{ email: 'a@example.com', name: 'A' }] } });
    const complete = await api.request('POST', `/envelopes/${id}/complete`, { token: user.token });
    expect(complete.status).toBe(200);
    for (const response of [login, ticket, get, complete]) expect(response.headers.get('cache-control')).toBe('no-store');
  });

  test('Cache-Control: no-store on every other response that carries a signed URL (update, list)', async () => {
    const id = await newDraft();
    const responses = [
      await api.request('PUT', `/envelopes/${id}`, { token: user.token, json: { signers: [] } }),
      await api.request('PATCH', `/envelopes/${id}`, { token: user.token, json: { signers: [] } }),
      await api.request('GET', '/envelopes', { token: user.token }),
    ];
    for (const response of responses) {
      expect(response.status).toBe(200);
      expect(response.headers.get('cache-control')).toBe('no-store');
    }
  });

  test('X-Content-Type-Options: nosniff on every response, success or error', async () => {
    const id = await newDraft();
    const responses = [
      await api.request('GET', '/health'),
      await api.request('POST', '/Login', { json: { email: user.email, password: user.password } }),
      await api.request('POST', '/Login', { json: { email: user.email, password: 'wrong password' } }),
      await api.request('GET', `/envelopes/${id}`, { token: user.token }),
      await api.request('GET', '/envelopes', { token: user.token }),
      await api.request('GET', `/envelopes/${id}/audit`, { token: user.token }),
      await api.request('GET', '/envelopes'),
      await api.request('GET', '/no/such/endpoint'),
      await api.request('DELETE', `/envelopes/${id}`, { token: user.token }),
      await api.request('OPTIONS', '/envelopes', { headers: { Origin: 'https://app.example.com', 'Access-Control-Request-Method': 'GET' } }),
    ];
    for (const response of responses) expect(response.headers.get('x-content-type-options')).toBe('nosniff');
  });

  test('JSON responses are application/json; charset=utf-8', async () => {
    const response = await api.request('GET', '/envelopes', { token: user.token });
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
  });
});

describe('timestamps and identifiers (docs/api.md#conventions)', () => {
  test('timestamps are ISO 8601 UTC with milliseconds', async () => {
    const id = await createEnvelopeWithDocument(api, user, pdf);
    await api.request('PUT', `/envelopes/${id}`, { token: user.token, json: { signers: [{ email: 'a@example.com', name: 'A' }] } });
    await api.request('POST', `/envelopes/${id}/complete`, { token: user.token });
    const envelope = await api.request('GET', `/envelopes/${id}`, { token: user.token });
    for (const field of ['createdAt', 'updatedAt', 'completedAt']) expect(envelope.body[field]).toMatch(ISO_MS);
    const audit = await api.request('GET', `/envelopes/${id}/audit`, { token: user.token });
    for (const event of audit.body as { at: string }[]) expect(event.at).toMatch(ISO_MS);
  });

  test('envelope ids are UUID version 7, in creation order', async () => {
    const ids: string[] = [];
    for (let index = 0; index < 3; index++) ids.push(await newDraft());
    for (const id of ids) expect(id).toMatch(UUID_V7);
    expect([...ids].sort()).toEqual(ids);
  });

  test('user and signer ids are UUIDs', async () => {
    expect(user.userId).toMatch(UUID);
    const id = await newDraft();
    const updated = await api.request('PUT', `/envelopes/${id}`, { token: user.token, json: { signers: [{ email: 'a@example.com', name: 'A' }] } });
    expect(updated.body.signers[0].id).toMatch(UUID);
  });
});

describe('routing (docs/api.md#conventions)', () => {
  test('paths match case-insensitively', async () => {
    const id = await newDraft();
    const register = await api.request('POST', '/register', { json: {} });
    expectProblem(register, 400);
    const login = await api.request('POST', '/LOGIN', { json: { email: user.email, password: user.password } });
    expect(login.status).toBe(200);
    const envelope = await api.request('GET', `/ENVELOPES/${id}`, { token: user.token });
    expect(envelope.status).toBe(200);
    expect(envelope.body.id).toBe(id);
    const ticket = await api.request('POST', '/getuploadurl', { token: user.token, json: { filename: 'a.pdf', mimetype: 'application/pdf' } });
    expect(ticket.status).toBe(201);
    const upper = await fetch(`${api.apiUrl.replace(/\/api$/, '/API')}/Envelopes`, { headers: { Authorization: `Bearer ${user.token}` } });
    expect(upper.status).toBe(200);
  });

  test('an unknown path gets a 404 problem', async () => {
    for (const route of ['/no/such/endpoint', '/envelopes/x/y/z', '/Registers']) {
      expectProblem(await api.request('GET', route), 404);
    }
    const outside = await fetch(api.apiUrl.replace(/\/api$/, '/other'));
    expect(outside.status).toBe(404);
    expect(outside.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  });

  test('a method the path does not take gets a 405 problem with Allow', async () => {
    const id = await newDraft();
    const cases: [string, string, string[]][] = [
      ['POST', `/envelopes/${id}`, ['GET', 'PUT', 'PATCH', 'DELETE']],
      ['DELETE', `/envelopes/${id}/audit`, ['GET']],
      ['GET', '/Register', ['POST']],
      ['GET', '/Login', ['POST']],
      ['PUT', '/envelopes', ['GET']],
      ['GET', `/envelopes/${id}/complete`, ['POST']],
    ];
    for (const [method, route, allowed] of cases) {
      const response = await api.request(method, route, { token: user.token });
      expectProblem(response, 405);
      const allow = (response.headers.get('allow') ?? '').split(',').map((value) => value.trim());
      expect(allow.sort()).toEqual([...allowed].sort());
    }
  });
});
