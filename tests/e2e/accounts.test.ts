/**
 * Accounts (docs/api.md#accounts) over real HTTP: Register (invitation codes, e-mail and password rules,
 * racing registrations), Login (credentials, throttling) and the access tokens it issues.
 */
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, test } from '@jest/globals';
import { SignJWT, decodeJwt, decodeProtectedHeader } from 'jose';
import { createInvitation } from '../../src/lib/auth/invitations.js';
import { getServices } from '../../src/lib/services.js';
import { ApiClient, expectProblem, serviceForFile, type TestService, type TestUser } from '../support/service.js';
import { UUID } from '../support/contract.js';

let env: TestService;
let api: ApiClient;
let user: TestUser;
serviceForFile((started) => ({ env, api, owner: user } = started));

const uniqueEmail = (label = 'user') => `${label}-${randomUUID()}@example.com`;
const PASSWORD = 'correct horse battery';

async function register(body: Record<string, unknown>) {
  return await api.request('POST', '/Register', { json: body });
}

async function login(email: string, password: string) {
  return await api.request('POST', '/Login', { json: { email, password } });
}

describe('POST /api/Register (docs/api.md#register)', () => {
  test('creates an account: 201 with message and userId, and the account can log in', async () => {
    const email = uniqueEmail();
    const response = await register({ email, password: PASSWORD, invitationCode: await env.invitation() });
    expect(response.status).toBe(201);
    expect(response.body).toEqual({ message: expect.any(String), userId: expect.stringMatching(UUID) });
    const loggedIn = await login(email, PASSWORD);
    expect(loggedIn.status).toBe(200);
    expect(loggedIn.body.user.userId).toBe(response.body.userId);
  });

  describe('invitation codes', () => {
    test('an invalid, an expired and a used-up code all get 403 with the same body', async () => {
      const invalid = await register({ email: uniqueEmail(), password: PASSWORD, invitationCode: `inv_${randomUUID()}` });

      const expired = await createInvitation({ invitations: getServices().invitations, expiresInSeconds: 60, now: new Date(Date.now() - 120_000) });
      const expiredAnswer = await register({ email: uniqueEmail(), password: PASSWORD, invitationCode: expired.code });

      const single = await env.invitation();
      expect((await register({ email: uniqueEmail(), password: PASSWORD, invitationCode: single })).status).toBe(201);
      const usedUp = await register({ email: uniqueEmail(), password: PASSWORD, invitationCode: single });

      for (const response of [invalid, expiredAnswer, usedUp]) expectProblem(response, 403);
      expect(expiredAnswer.text).toBe(invalid.text);
      expect(usedUp.text).toBe(invalid.text);
    });

    test('a code that expires a moment later works until then', async () => {
      const code = await env.invitation(1, 60);
      expect((await register({ email: uniqueEmail(), password: PASSWORD, invitationCode: code })).status).toBe(201);
    });

    test('the code is checked first: an invalid code with a registered e-mail gets 403, not 409', async () => {
      const invalid = await register({ email: uniqueEmail(), password: PASSWORD, invitationCode: 'inv_nothing' });
      const taken = await register({ email: user.email, password: PASSWORD, invitationCode: 'inv_nothing' });
      expectProblem(taken, 403);
      expect(taken.text).toBe(invalid.text);
    });

    test('a code created with more uses allows that many registrations', async () => {
      const code = await env.invitation(2);
      expect((await register({ email: uniqueEmail(), password: PASSWORD, invitationCode: code })).status).toBe(201);
      expect((await register({ email: uniqueEmail(), password: PASSWORD, invitationCode: code })).status).toBe(201);
      expectProblem(await register({ email: uniqueEmail(), password: PASSWORD, invitationCode: code }), 403);
    });

    test('two registrations racing for one single-use code give exactly one account', async () => {
      const code = await env.invitation();
      const emails = Array.from({ length: 4 }, () => uniqueEmail('racer'));
      const answers = await Promise.all(emails.map((email) => register({ email, password: PASSWORD, invitationCode: code })));
      expect(answers.filter((answer) => answer.status === 201)).toHaveLength(1);
      for (const answer of answers.filter((candidate) => candidate.status !== 201)) expectProblem(answer, 403);
      const logins = await Promise.all(emails.map((email) => login(email, PASSWORD)));
      expect(logins.filter((answer) => answer.status === 200)).toHaveLength(1);
    });
  });

  describe('e-mail addresses', () => {
    test('a login address of 254 non-ASCII characters (longer than a Table key as base64) gets 401, never 500', async () => {
      const login = await env.api.request('POST', '/Login', { json: { email: 'é'.repeat(254), password: PASSWORD } });
      expectProblem(login, 401);
    });

    test('an address already registered gets 409 and the invitation code is not consumed', async () => {
      const code = await env.invitation();
      const taken = await register({ email: user.email, password: PASSWORD, invitationCode: code });
      expectProblem(taken, 409);
      expect((await register({ email: uniqueEmail(), password: PASSWORD, invitationCode: code })).status).toBe(201);
    });

    test('the same address differently cased or padded is the same account (409)', async () => {
      const code = await env.invitation();
      const taken = await register({ email: `  ${user.email.toUpperCase()} `, password: PASSWORD, invitationCode: code });
      expectProblem(taken, 409);
    });

    test('two registrations racing for one address give one account; the loser\'s code stays usable', async () => {
      const email = uniqueEmail('same');
      const codes = [await env.invitation(), await env.invitation()];
      const answers = await Promise.all(codes.map((invitationCode) => register({ email, password: PASSWORD, invitationCode })));
      expect(answers.map((answer) => answer.status).sort()).toEqual([201, 409]);
      // Exactly one of the two codes was spent: the winner's.
      const reuse = await Promise.all(codes.map((invitationCode) => register({ email: uniqueEmail(), password: PASSWORD, invitationCode })));
      expect(reuse.map((answer) => answer.status).sort()).toEqual([201, 403]);
    });

    test('the address is trimmed and lower-cased', async () => {
      const local = `Mixed.Case-${randomUUID()}`;
      const response = await register({ email: `  ${local}@Example.COM  `, password: PASSWORD, invitationCode: await env.invitation() });
      expect(response.status).toBe(201);
      const loggedIn = await login(`${local.toLowerCase()}@example.com`, PASSWORD);
      expect(loggedIn.status).toBe(200);
      expect(loggedIn.body.user.email).toBe(`${local.toLowerCase()}@example.com`);
      expect((await login(`  ${local.toUpperCase()}@EXAMPLE.com `, PASSWORD)).status).toBe(200);
    });

    test.each([
      ['not an address', 'not-an-address'],
      ['no domain', 'someone@'],
      ['over 254 characters', `${'a'.repeat(64)}@${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(63)}.com`],
      ['a number', 42],
    ])('an invalid address (%s) gets 400', async (_case, email) => {
      const response = await register({ email, password: PASSWORD, invitationCode: await env.invitation() });
      expectProblem(response, 400);
      expect(response.body.errors).toContainEqual({ path: 'email', message: expect.any(String) });
    });
  });

  describe('passwords', () => {
    test.each([
      ['7 characters', 'short12'],
      ['37 × "é" (74 bytes of UTF-8)', 'é'.repeat(37)],
      ['73 ASCII bytes', 'a'.repeat(73)],
      ['4 emoji (8 UTF-16 units, 4 characters)', '🔒🔑🔒🔑'],
      ['not a string', 12345678],
    ])('a password of %s gets 400 and is never truncated', async (_case, password) => {
      const code = await env.invitation();
      const response = await register({ email: uniqueEmail(), password, invitationCode: code });
      expectProblem(response, 400);
      expect(response.body.errors).toContainEqual({ path: 'password', message: expect.any(String) });
    });

    test.each([
      ['8 characters', 'eight888'],
      ['36 × "é" (exactly 72 bytes)', 'é'.repeat(36)],
      ['72 ASCII bytes', 'a'.repeat(72)],
    ])('a password of %s is accepted', async (_case, password) => {
      const email = uniqueEmail();
      expect((await register({ email, password, invitationCode: await env.invitation() })).status).toBe(201);
      expect((await login(email, password)).status).toBe(200);
    });
  });

  test.each([
    ['email', { password: PASSWORD, invitationCode: 'inv_x' }],
    ['password', { email: 'a@example.com', invitationCode: 'inv_x' }],
    ['invitationCode', { email: 'a@example.com', password: PASSWORD }],
  ])('a missing %s gets 400 naming it', async (field, body) => {
    const response = await register(body);
    expectProblem(response, 400);
    expect(response.body.errors).toContainEqual({ path: field, message: expect.any(String) });
  });

  describe('the display name', () => {
    test("is optional, trimmed, and comes back as Login's user.name", async () => {
      const email = uniqueEmail('named');
      const invitationCode = await env.invitation();
      expect((await register({ email, password: PASSWORD, invitationCode, name: '  Ada Lovelace ' })).status).toBe(201);
      expect((await login(email, PASSWORD)).body.user).toEqual({ userId: expect.stringMatching(UUID), email, role: 'user', emailVerified: false, name: 'Ada Lovelace' });
    });

    test('of 200 characters (counted as characters, not UTF-16 units) is accepted', async () => {
      const email = uniqueEmail('long-name');
      const name = '😀'.repeat(200);
      expect((await register({ email, password: PASSWORD, invitationCode: await env.invitation(), name })).status).toBe(201);
      expect((await login(email, PASSWORD)).body.user.name).toBe(name);
    });

    test.each([
      ['empty', ''],
      ['only white space', '   '],
      ['201 characters', 'a'.repeat(201)],
      ['a control character', 'Ada\u0000Lovelace'],
      ['a C1 control character', 'Ada\u0085Lovelace'],
      ['a line separator', 'Ada\u2028Lovelace'],
      ['an unpaired surrogate', 'Ada \ud83d Lovelace'],
      ['not a string', 42],
    ])('%s gets 400 naming name, and creates no account (the code is not consumed)', async (_case, name) => {
      const email = uniqueEmail('bad-name');
      const invitationCode = await env.invitation();
      const response = await register({ email, password: PASSWORD, invitationCode, name });
      expectProblem(response, 400);
      expect(response.body.errors).toContainEqual({ path: 'name', message: expect.any(String) });
      expect((await register({ email, password: PASSWORD, invitationCode })).status).toBe(201);
    });
  });

  test('a malformed field (invitationCode as a number) gets 400', async () => {
    const response = await register({ email: uniqueEmail(), password: PASSWORD, invitationCode: 12345 });
    expectProblem(response, 400);
    expect(response.body.errors).toContainEqual({ path: 'invitationCode', message: expect.any(String) });
  });
});

describe('POST /api/Login (docs/api.md#login)', () => {
  test('answers 200 with token and user {userId, email, role, emailVerified}', async () => {
    const response = await login(user.email, user.password);
    expect(response.status).toBe(200);
    // Nobody opened this account's verification link (the suite does not require verified senders).
    expect(response.body).toEqual({ token: expect.any(String), user: { userId: user.userId, email: user.email, role: 'user', emailVerified: false, name: null } });
  });

  test.each([
    ['email', { password: 'whatever1' }],
    ['password', { email: 'a@example.com' }],
  ])('a missing %s gets 400', async (field, body) => {
    const response = await api.request('POST', '/Login', { json: body });
    expectProblem(response, 400);
    expect(response.body.errors).toContainEqual({ path: field, message: expect.any(String) });
  });

  /** A fresh account for tests that fail logins on purpose (each account has 5 failures before 429). */
  async function newAccount(): Promise<{ email: string; password: string }> {
    const email = uniqueEmail('login');
    expect((await register({ email, password: PASSWORD, invitationCode: await env.invitation() })).status).toBe(201);
    return { email, password: PASSWORD };
  }

  test('an unknown e-mail and a wrong password get identical 401 bodies', async () => {
    const account = await newAccount();
    const unknown = await login(uniqueEmail('ghost'), 'some password');
    const wrong = await login(account.email, 'some password');
    expectProblem(unknown, 401);
    expectProblem(wrong, 401);
    expect(unknown.text).toBe(wrong.text);
    expect(unknown.headers.get('www-authenticate')).toBe(wrong.headers.get('www-authenticate'));
  });

  test('an unknown e-mail takes about as long as a wrong password (a bcrypt comparison either way)', async () => {
    const timed = async (email: string) => {
      const start = performance.now();
      expect((await login(email, 'some password')).status).toBe(401);
      return performance.now() - start;
    };
    const account = await newAccount();
    // An unknown address waits as long as this instance's recent comparisons took (password.ts keeps
    // the last 15): first let those be comparisons made now, under whatever load the machine has now
    // (three wrong passwords for each of four other accounts: below the throttle).
    const others = await Promise.all(Array.from({ length: 4 }, () => newAccount()));
    for (const other of others) for (let run = 0; run < 3; run++) await timed(other.email);
    // Warm up, then compare the fastest of a few interleaved runs (4 failures: below the throttle). The
    // fastest, not the median: a run the loaded machine slowed says nothing of what the service does,
    // and a single slow comparison then made the wrong password's median twice the unknown one's.
    await timed(uniqueEmail('warm'));
    const unknown: number[] = [];
    const wrong: number[] = [];
    for (let run = 0; run < 4; run++) {
      unknown.push(await timed(uniqueEmail('ghost')));
      wrong.push(await timed(account.email));
    }
    // BCRYPT_COST=10: a comparison takes tens of milliseconds; skipping it would make the unknown case far faster.
    expect(Math.min(...unknown)).toBeGreaterThan(Math.min(...wrong) * 0.5);
  });

  test('an address with characters that Table Storage keys forbid gets 401, not a fault', async () => {
    for (const email of ['a/b#c?d\\e@example.com', 'ünïcödé@example.com']) {
      expectProblem(await login(email, 'some password'), 401);
    }
  });

  test('an address holding a control character or a bidirectional control gets 400 naming it (text rules)', async () => {
    for (const email of ['tab\tin@example.com', 'ada\u202E@example.com', 'ada@example.com\u2028']) {
      const response = await login(email, 'some password');
      expectProblem(response, 400);
      expect((response.body as { errors: { path: string }[] }).errors.map((error) => error.path)).toEqual(['email']);
    }
  });

  test('the password is not trimmed or case-folded', async () => {
    const account = await newAccount();
    expectProblem(await login(account.email, ` ${account.password}`), 401);
    expectProblem(await login(account.email, account.password.toUpperCase()), 401);
    expect((await login(account.email, account.password)).status).toBe(200);
  });

  describe('throttling', () => {
    test('after 5 failures the 6th attempt gets 429 with Retry-After, even with the right password', async () => {
      const account = await newAccount();
      for (let attempt = 1; attempt <= 5; attempt++) expectProblem(await login(account.email, 'wrong password'), 401);
      const throttled = await login(account.email, account.password);
      expectProblem(throttled, 429);
      const retryAfter = Number(throttled.headers.get('retry-after'));
      expect(Number.isInteger(retryAfter)).toBe(true);
      expect(retryAfter).toBeGreaterThan(0);
      expect(retryAfter).toBeLessThanOrEqual(900);
      // Seconds until the window (opened by the first failure, moments ago) closes.
      expect(retryAfter).toBeGreaterThan(870);
      expect(throttled.text).not.toContain(account.email);
      // And every attempt after that, right or wrong.
      expectProblem(await login(account.email, 'wrong password'), 429);
      expectProblem(await login(account.email.toUpperCase(), account.password), 429);
    });

    test('a success before the limit closes the window: five more failures are allowed', async () => {
      const account = await newAccount();
      for (let attempt = 1; attempt <= 4; attempt++) expectProblem(await login(account.email, 'wrong password'), 401);
      expect((await login(account.email, account.password)).status).toBe(200);
      for (let attempt = 1; attempt <= 5; attempt++) expectProblem(await login(account.email, 'wrong password'), 401);
      expectProblem(await login(account.email, account.password), 429);
    });

    test('parallel attempts get no more than 5 password checks: of 12 at once, 5 get 401 and 7 get 429', async () => {
      const account = await newAccount();
      const answers = await Promise.all(Array.from({ length: 12 }, () => login(account.email, 'wrong password')));
      expect(answers.map((answer) => answer.status).sort()).toEqual([...Array(5).fill(401), ...Array(7).fill(429)]);
      expectProblem(await login(account.email, account.password), 429);
    });

    test('unknown addresses are throttled the same way, so a 429 does not tell whether an account exists', async () => {
      const email = uniqueEmail('nobody');
      for (let attempt = 1; attempt <= 5; attempt++) expectProblem(await login(email, 'wrong password'), 401);
      expectProblem(await login(email, 'wrong password'), 429);
    });

    test('one account\'s failures do not throttle another account', async () => {
      const account = await newAccount();
      for (let attempt = 1; attempt <= 5; attempt++) expectProblem(await login(account.email, 'wrong password'), 401);
      expect((await login(user.email, user.password)).status).toBe(200);
    });
  });
});

describe('access tokens (docs/api.md#access-tokens)', () => {
  const secret = () => new TextEncoder().encode(process.env.JWT_SECRET!);
  let claims: ReturnType<typeof decodeJwt>;

  beforeAll(() => {
    claims = decodeJwt(user.token);
  });

  /** A token like the service's, signed with `key`, with `changes` applied to header and claims. */
  async function craft(options: { key?: Uint8Array; alg?: string; typ?: string | null; claims?: Record<string, unknown> } = {}): Promise<string> {
    const now = Math.floor(Date.now() / 1000);
    const payload: Record<string, unknown> = {
      sub: user.userId,
      email: user.email,
      role: 'user',
      iss: claims.iss,
      aud: claims.aud,
      iat: now,
      exp: now + 600,
      jti: randomUUID(),
      ...options.claims,
    };
    for (const [name, value] of Object.entries(payload)) if (value === undefined) delete payload[name];
    const header: { alg: string; typ?: string } = { alg: options.alg ?? 'HS256' };
    if (options.typ !== null) header.typ = options.typ ?? 'at+jwt';
    return await new SignJWT(payload).setProtectedHeader(header).sign(options.key ?? secret());
  }

  async function expectRejected(token: string): Promise<void> {
    const response = await api.request('GET', '/envelopes', { token });
    expectProblem(response, 401);
    expect(response.headers.get('www-authenticate')).toMatch(/^Bearer\b.*error="invalid_token"/);
  }

  test('is a JWT with header typ at+jwt and alg HS256, and claims sub, email, role, iss, aud, iat, exp, jti', async () => {
    const response = await login(user.email, user.password);
    const header = decodeProtectedHeader(response.body.token);
    expect(header).toEqual({ alg: 'HS256', typ: 'at+jwt' });
    const payload = decodeJwt(response.body.token);
    expect(payload).toEqual({
      sub: user.userId,
      email: user.email,
      role: 'user',
      iss: expect.any(String),
      aud: expect.anything(),
      iat: expect.any(Number),
      exp: expect.any(Number),
      jti: expect.any(String),
    });
    expect(payload.exp! - payload.iat!).toBe(3600);
    expect(Math.abs(payload.iat! - Date.now() / 1000)).toBeLessThan(30);
    expect(payload.jti).not.toBe(claims.jti);
  });

  test('a token crafted like the service\'s (the control case) is accepted', async () => {
    expect((await api.request('GET', '/envelopes', { token: await craft() })).status).toBe(200);
  });

  test('a token signed with another secret gets 401', async () => {
    await expectRejected(await craft({ key: new TextEncoder().encode('another secret of at least thirty-two bytes!!') }));
  });

  test('an unsigned token (alg none) gets 401', async () => {
    const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const payload = decodeJwt(await craft());
    await expectRejected(`${encode({ alg: 'none', typ: 'at+jwt' })}.${encode(payload)}.`);
  });

  test('a token signed with HS512 and the right secret gets 401 (only HS256)', async () => {
    await expectRejected(await craft({ alg: 'HS512' }));
  });

  test('an expired token gets 401', async () => {
    const now = Math.floor(Date.now() / 1000);
    await expectRejected(await craft({ claims: { iat: now - 7200, exp: now - 3600 } }));
  });

  test('a token expired less than 60 s ago is still accepted (clock skew)', async () => {
    const now = Math.floor(Date.now() / 1000);
    expect((await api.request('GET', '/envelopes', { token: await craft({ claims: { iat: now - 3600, exp: now - 20 } }) })).status).toBe(200);
  });

  test('a token for another audience gets 401', async () => {
    await expectRejected(await craft({ claims: { aud: 'another-api' } }));
  });

  test('a token from another issuer gets 401', async () => {
    await expectRejected(await craft({ claims: { iss: 'https://issuer.example.com' } }));
  });

  test.each(['exp', 'iat', 'sub'])('a token without %s gets 401', async (claim) => {
    await expectRejected(await craft({ claims: { [claim]: undefined } }));
  });

  test('a token without typ at+jwt gets 401', async () => {
    await expectRejected(await craft({ typ: null }));
    await expectRejected(await craft({ typ: 'JWT' }));
  });

  test('a token for a user that does not exist gets 401', async () => {
    await expectRejected(await craft({ claims: { sub: randomUUID(), email: uniqueEmail('gone') } }));
  });
});
