/**
 * Access tokens under attack (RFC 8725, docs/api.md#access-tokens): only HS256 at+jwt tokens
 * with exp, iat, sub, the right issuer and audience pass, and only while the user exists.
 */
import { createHmac } from 'node:crypto';
import { describe, expect, test } from '@jest/globals';
import { SignJWT } from 'jose';
import { getServices } from '../../src/lib/services.js';
import { expectProblem, serviceForFile, type TestService, type TestUser } from '../support/service.js';

let env: TestService;
let user: TestUser;
const secret = () => Buffer.from(process.env.JWT_SECRET!, 'utf8');

serviceForFile((started) => ({ env, owner: user } = started));

const base64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** A JWT with any header, HMAC-SHA256-signed with the real secret (or unsigned). */
function handMade(header: Record<string, unknown>, claims: Record<string, unknown>, sign = true): string {
  const input = `${base64url(header)}.${base64url(claims)}`;
  return `${input}.${sign ? createHmac('sha256', secret()).update(input).digest('base64url') : ''}`;
}

function claims(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const now = Math.floor(Date.now() / 1000);
  return { sub: user.userId, email: user.email, role: 'user', iss: 'envelope-signing-service', aud: 'envelope-api', iat: now, exp: now + 600, jti: 'x', ...overrides };
}

async function expectRefused(token: string): Promise<void> {
  const response = await env.api.request('GET', '/envelopes', { token });
  expectProblem(response, 401);
  expect(response.headers.get('www-authenticate')).toContain('error="invalid_token"');
}

describe('tokens', () => {
  test('a well-formed token passes (the control for every refusal below)', async () => {
    expect((await env.api.request('GET', '/envelopes', { token: handMade({ alg: 'HS256', typ: 'at+jwt' }, claims()) })).status).toBe(200);
  });

  test.each([
    ['alg none', () => handMade({ alg: 'none', typ: 'at+jwt' }, claims(), false)],
    ['alg NONE', () => handMade({ alg: 'NONE', typ: 'at+jwt' }, claims(), false)],
    ['alg RS256 with the secret used as an HMAC key (algorithm confusion)', () => handMade({ alg: 'RS256', typ: 'at+jwt' }, claims())],
    ['no typ', () => handMade({ alg: 'HS256' }, claims())],
    ['typ JWT', () => handMade({ alg: 'HS256', typ: 'JWT' }, claims())],
    ['no exp', () => handMade({ alg: 'HS256', typ: 'at+jwt' }, claims({ exp: undefined }))],
    ['no iat', () => handMade({ alg: 'HS256', typ: 'at+jwt' }, claims({ iat: undefined }))],
    ['no sub', () => handMade({ alg: 'HS256', typ: 'at+jwt' }, claims({ sub: undefined }))],
    ['expired beyond the 60 s skew', () => handMade({ alg: 'HS256', typ: 'at+jwt' }, claims({ exp: Math.floor(Date.now() / 1000) - 61 }))],
    ['another issuer', () => handMade({ alg: 'HS256', typ: 'at+jwt' }, claims({ iss: 'someone' }))],
    ['another audience', () => handMade({ alg: 'HS256', typ: 'at+jwt' }, claims({ aud: 'other-api' }))],
    ['a subject that does not match the e-mail address', () => handMade({ alg: 'HS256', typ: 'at+jwt' }, claims({ sub: '01a200d3-9ff7-7344-8a5a-76f38c77e046' }))],
  ])('refuses %s', async (_name, make) => {
    await expectRefused(make());
  });

  test('refuses HS512 signed with the real secret', async () => {
    const token = await new SignJWT(claims()).setProtectedHeader({ alg: 'HS512', typ: 'at+jwt' }).sign(secret());
    await expectRefused(token);
  });

  test('tokens of a deleted user stop working', async () => {
    const doomed = await env.newUser();
    expect((await env.api.request('GET', '/envelopes', { token: doomed.token })).status).toBe(200);
    await getServices().users.delete(doomed.email);
    await expectRefused(doomed.token);
  });
});
