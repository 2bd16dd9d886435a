/**
 * Property-based fuzzing over real HTTP (docs/api.md#errors): generated bodies,
 * headers, paths and tokens thrown at every endpoint. Whatever arrives: never a 5xx, every error is
 * problem+json whose `status` matches, and no answer carries a stack trace, a storage error text, a
 * password hash, a secret, or another owner's data.
 */
import { describe, expect, test } from '@jest/globals';
import fc from 'fast-check';
import { SignJWT } from 'jose';
import { corpusPdf, createEnvelopeWithDocument, serviceForFile, type ApiResponse, type TestService, type TestUser } from '../support/service.js';

let env: TestService;
let owner: TestUser;
let other: TestUser;
let otherEnvelopeId: string;
let ownEnvelopeId: string;
serviceForFile(async (started) => {
  ({ env, owner } = started);
  other = await env.newUser();
  otherEnvelopeId = await createEnvelopeWithDocument(env.api, other, await corpusPdf('normal.pdf'), 'secret-other-owner.pdf');
  await env.api.request('PUT', `/envelopes/${otherEnvelopeId}`, { token: other.token, json: { signers: [{ email: 'hidden-signer@example.com', name: 'Hidden Signer' }] } });
  ownEnvelopeId = await createEnvelopeWithDocument(env.api, owner, await corpusPdf('normal.pdf'));
  wronglySigned = await makeWronglySigned();
});

/**
 * What an answer must never contain. `asOther`: the request carried the other owner's own token, so
 * their data may legitimately appear.
 */
function assertSafe(response: ApiResponse, asOther = false): void {
  expect(response.status).toBeLessThan(500);
  const text = response.text;
  if (response.status >= 400) {
    expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    const body = response.body as { status?: unknown; type?: unknown; title?: unknown; detail?: unknown };
    expect(body.status).toBe(response.status);
    expect(typeof body.type).toBe('string');
    expect(typeof body.detail).toBe('string');
    // Storage error texts (Azure's error codes and XML) never reach a client.
    expect(text).not.toMatch(/RestError|TableServiceError|<\?xml|ResourceNotFound|AuthenticationFailed|devstoreaccount1/);
  }
  expect(text).not.toMatch(/\n\s+at \S+ \(/);
  expect(text).not.toMatch(/\$2[aby]\$\d\d\$/);
  expect(text).not.toContain(process.env.JWT_SECRET!);
  expect(text).not.toContain(process.env.SEAL_P12_BASE64!.slice(0, 40));
  if (asOther) return;
  expect(text).not.toContain(other.userId);
  expect(text).not.toContain(other.email);
  expect(text).not.toContain('hidden-signer@example.com');
  expect(text).not.toContain('secret-other-owner');
}

const jsonValue = fc.jsonValue({ maxDepth: 3 });
const objectWithKnownKeys = fc.dictionary(
  fc.constantFrom('email', 'password', 'invitationCode', 'turnstileToken', 'filename', 'mimetype', 'signers', 'status', 'ownerId', 'id', 'hash', '__proto__', 'constructor'),
  fc.oneof(jsonValue, fc.array(fc.dictionary(fc.constantFrom('id', 'recipientId', 'email', 'name', 'role'), jsonValue), { maxLength: 3 })),
);
const body = fc.oneof(
  jsonValue.map((value) => JSON.stringify(value)),
  objectWithKnownKeys.map((value) => JSON.stringify(value)),
  fc.string({ maxLength: 200 }),
  fc.constant('{"email":'),
  fc.constant(''),
);
const contentType = fc.constantFrom('application/json', 'application/json; charset=utf-8', 'text/plain', 'application/x-www-form-urlencoded', 'application/problem+json', '', 'APPLICATION/JSON');

let wronglySigned: string[] = [];

/**
 * Tokens signed with the real secret but wrong in one way or another: algorithm, type, audience, or
 * naming the other owner with a forged subject.
 */
async function makeWronglySigned(): Promise<string[]> {
  const secret = new TextEncoder().encode(process.env.JWT_SECRET!);
  const variants = [
    { alg: 'HS512', typ: 'at+jwt', aud: 'envelope-api' },
    { alg: 'HS256', typ: 'JWT', aud: 'envelope-api' },
    { alg: 'HS256', typ: 'at+jwt', aud: 'someone-else' },
  ];
  return await Promise.all(
    variants.map((variant) =>
      new SignJWT({ email: other.email, role: 'user' })
        .setProtectedHeader({ alg: variant.alg, typ: variant.typ })
        .setSubject(other.userId)
        .setIssuer('envelope-signing-service')
        .setAudience(variant.aud)
        .setIssuedAt()
        .setExpirationTime('1h')
        .sign(secret),
    ),
  );
}

function tokens(): fc.Arbitrary<string | undefined> {
  return fc.oneof(
    fc.constant(undefined),
    fc.constant(owner.token),
    fc.constant(other.token),
    fc.string({ maxLength: 80 }),
    fc.constantFrom('eyJhbGciOiJub25lIiwidHlwIjoiYXQrand0In0.eyJzdWIiOiJ4In0.', `${owner.token.slice(0, -2)}AA`, ...wronglySigned),
  );
}

const paths = (): fc.Arbitrary<string> =>
  fc.oneof(
    fc.constantFrom('/Register', '/Login', '/GetUploadUrl', '/envelopes', '/health', '/verify/abc', '/REGISTER', '/envelopes/', '/nothing'),
    fc.constantFrom(ownEnvelopeId, otherEnvelopeId, 'not-a-uuid', '00000000-0000-0000-0000-000000000000', '%2e%2e', '..%2F..%2Fsealed', '%ZZ', 'a'.repeat(300))
      .chain((id) => fc.constantFrom(`/envelopes/${id}`, `/envelopes/${id}/complete`, `/envelopes/${id}/audit`, `/verify/${id}`)),
    fc.webPath().map((path) => `/envelopes${path}`),
    fc.constantFrom('limit=0', 'limit=1001', 'limit=abc', 'status=bogus', 'cursor=%00', 'cursor=ZW52ZWxvcGVf', 'limit=1&cursor=' + 'A'.repeat(500), 'limit=5&status=draft').map((query) => `/envelopes?${query}`),
  );

describe('fuzzing every endpoint', () => {
  test('generated requests never get a 5xx or an unsafe answer', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD'),
        paths(),
        tokens(),
        body,
        contentType,
        async (method, path, token, payload, type) => {
          const headers: Record<string, string> = {};
          if (type !== '') headers['Content-Type'] = type;
          const response = await env.api.request(method, path, {
            ...(token === undefined ? {} : { token }),
            headers,
            ...(method === 'GET' || method === 'HEAD' ? {} : { body: payload }),
          });
          if (method !== 'HEAD') assertSafe(response, token === other.token);
          else expect(response.status).toBeLessThan(500);
        },
      ),
      { numRuns: 300 },
    );
  });

  test('generated headers (If-Match, Authorization schemes, X-Forwarded-For, User-Agent) never get a 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(fc.string({ maxLength: 40 }), fc.constantFrom('*', '"1"', 'W/"1"', '"1", "2"', '')),
        fc.oneof(fc.constant(`Bearer ${owner.token}`), fc.string({ maxLength: 60 }), fc.constantFrom('Basic dXNlcjpwYXNz', 'Bearer', 'bearer  x', `BEARER ${owner.token}`)),
        fc.oneof(fc.ipV4(), fc.ipV6(), fc.string({ maxLength: 30 })),
        fc.string({ maxLength: 100 }),
        async (ifMatch, authorization, forwardedFor, agent) => {
          const clean = (value: string) => value.replace(/[^\x20-\x7e]/g, '');
          const response = await env.api.request('PATCH', `/envelopes/${ownEnvelopeId}`, {
            headers: { 'If-Match': clean(ifMatch), Authorization: clean(authorization), 'X-Forwarded-For': clean(forwardedFor), 'User-Agent': clean(agent) },
            json: { signers: [{ email: 'fuzz@example.com', name: 'Fuzz' }] },
          });
          assertSafe(response);
        },
      ),
      { numRuns: 150 },
    );
  });
});
