/**
 * Captcha (Cloudflare Turnstile, docs/api.md#captcha-cloudflare-turnstile) over real HTTP against a loopback siteverify that speaks
 * Cloudflare's protocol: invalid tokens refused (Login 401, Register 403), a missing token refused when
 * required, and siteverify down, slow or talking nonsense answered 503, never a pass; a public link's
 * start (docs/api.md#public-links) refused without a valid token, before its per-address limit.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, test } from '@jest/globals';
import { activeOneRoleTemplate, ApiClient, expectProblem, expectType, startTestService, type TestService, type TestUser } from '../support/service.js';
import { closedPort, reloadSettings, startFakeSiteverify, type FakeSiteverify } from '../support/contract.js';
import { patience } from '../support/patience.js';

const SECRET = '0x4AAAAAAA-test-secret-key';
const SETTINGS = ['TURNSTILE_SECRET_KEY', 'TURNSTILE_VERIFY_URL', 'TURNSTILE_REQUIRED', 'TURNSTILE_SITE_KEY'] as const;

let env: TestService;
let api: ApiClient;
let user: TestUser;
let siteverify: FakeSiteverify;
let saved: Record<string, string | undefined>;

/** Turns Turnstile on for the running service (`required` as given), pointing it at `url`. */
function useTurnstile(url: string, required = false): void {
  process.env.TURNSTILE_SECRET_KEY = SECRET;
  process.env.TURNSTILE_VERIFY_URL = url;
  process.env.TURNSTILE_REQUIRED = String(required);
  reloadSettings();
}

beforeAll(async () => {
  saved = Object.fromEntries(SETTINGS.map((name) => [name, process.env[name]]));
  env = await startTestService();
  api = env.api;
  user = await env.newUser();
  siteverify = await startFakeSiteverify();
});
afterEach(() => {
  for (const name of SETTINGS) {
    if (saved[name] === undefined) delete process.env[name];
    else process.env[name] = saved[name];
  }
  reloadSettings();
  siteverify.mode = 'protocol';
  siteverify.requests.length = 0;
});
afterAll(async () => {
  await siteverify.close();
  await env.close();
});

const PASSWORD = 'correct horse battery';

async function login(turnstileToken?: string) {
  return await api.request('POST', '/Login', { json: { email: user.email, password: user.password, ...(turnstileToken === undefined ? {} : { turnstileToken }) } });
}

async function register(turnstileToken?: string, invitationCode?: string) {
  return await api.request('POST', '/Register', {
    json: {
      email: `captcha-${randomUUID()}@example.com`,
      password: PASSWORD,
      invitationCode: invitationCode ?? (await env.invitation()),
      ...(turnstileToken === undefined ? {} : { turnstileToken }),
    },
  });
}

describe('without TURNSTILE_SECRET_KEY', () => {
  test('a turnstileToken is ignored and siteverify is not asked', async () => {
    useTurnstile(siteverify.url);
    delete process.env.TURNSTILE_SECRET_KEY;
    reloadSettings();
    expect((await login('anything')).status).toBe(200);
    expect((await register('anything')).status).toBe(201);
    expect(siteverify.requests).toEqual([]);
  });
});

describe('with TURNSTILE_SECRET_KEY (docs/api.md#captcha-cloudflare-turnstile)', () => {
  test('a valid token passes, and siteverify receives the secret, the token and the client IP as a form', async () => {
    useTurnstile(siteverify.url);
    expect((await login(siteverify.passToken)).status).toBe(200);
    expect((await register(siteverify.passToken)).status).toBe(201);
    expect(siteverify.requests).toEqual([
      { contentType: expect.stringMatching(/^application\/x-www-form-urlencoded/), secret: SECRET, response: siteverify.passToken, remoteip: '127.0.0.1' },
      { contentType: expect.stringMatching(/^application\/x-www-form-urlencoded/), secret: SECRET, response: siteverify.passToken, remoteip: '127.0.0.1' },
    ]);
  });

  test('an invalid token gets Login 401, even with the right password', async () => {
    useTurnstile(siteverify.url);
    const response = await login('XXXX.DUMMY.TOKEN.FAIL');
    expectProblem(response, 401);
    expect(response.body.type).not.toMatch(/invalid-credentials/);
    expect(siteverify.requests.map((request) => request.response)).toEqual(['XXXX.DUMMY.TOKEN.FAIL']);
  });

  test('an invalid token gets Register 403 and leaves the invitation code unused', async () => {
    useTurnstile(siteverify.url);
    const code = await env.invitation();
    expectProblem(await register('XXXX.DUMMY.TOKEN.FAIL', code), 403);
    expect((await register(siteverify.passToken, code)).status).toBe(201);
  });

  test('a missing token passes when TURNSTILE_REQUIRED is false', async () => {
    useTurnstile(siteverify.url, false);
    expect((await login()).status).toBe(200);
    expect((await register()).status).toBe(201);
    expect(siteverify.requests).toEqual([]);
  });

  test('a missing token counts as invalid when TURNSTILE_REQUIRED is true: Login 401, Register 403', async () => {
    useTurnstile(siteverify.url, true);
    expectProblem(await login(), 401);
    expectProblem(await register(), 403);
    expect((await login(siteverify.passToken)).status).toBe(200);
  });

  test('siteverify unreachable gets 503 with Retry-After, never a pass', async () => {
    useTurnstile(`http://127.0.0.1:${await closedPort()}/turnstile/v0/siteverify`);
    const loginAnswer = await login(siteverify.passToken);
    expectProblem(loginAnswer, 503);
    expect(Number(loginAnswer.headers.get('retry-after'))).toBeGreaterThan(0);
    expectProblem(await register(siteverify.passToken), 503);
  });

  test('siteverify answering HTTP 500 gets 503', async () => {
    useTurnstile(siteverify.url);
    siteverify.mode = 'error';
    expectProblem(await login(siteverify.passToken), 503);
    expectProblem(await register(siteverify.passToken), 503);
  });

  test.each(['nonsense', 'wrong-shape'] as const)('siteverify answering %s gets 503', async (mode) => {
    useTurnstile(siteverify.url);
    siteverify.mode = mode;
    expectProblem(await login(siteverify.passToken), 503);
    expectProblem(await register(siteverify.passToken), 503);
    expect(siteverify.requests).toHaveLength(2);
  });

  test('siteverify slower than 5 s gets 503 after about 5 s', async () => {
    useTurnstile(siteverify.url);
    siteverify.mode = 'hang';
    const started = performance.now();
    const response = await login(siteverify.passToken);
    const elapsed = performance.now() - started;
    expectProblem(response, 503);
    expect(response.text).not.toContain(SECRET);
    expect(elapsed).toBeGreaterThanOrEqual(4_900);
    // The 5 s bound plus room for a loaded machine's answer (TEST_TIME_SCALE stretches the room only).
    expect(elapsed).toBeLessThan(5_000 + patience(3_000));
    expect(siteverify.requests).toHaveLength(1);
  });
});

describe('a public link\'s start with TURNSTILE_SECRET_KEY (docs/api.md#public-links)', () => {
  test('a missing or bad token is 403 captcha-failed whatever TURNSTILE_REQUIRED says, checked before the per-address limit; the page gets the site key', async () => {
    const templateId = await activeOneRoleTemplate(api, user);
    const enabled = await api.request('PATCH', `/templates/${templateId}`, { token: user.token, json: { publicLink: { enabled: true, roleName: 'Client' } } });
    expect(enabled.status).toBe(200);
    const publicId = String(enabled.body.publicLink.url).split('/').pop()!;
    useTurnstile(siteverify.url, false);
    process.env.TURNSTILE_SITE_KEY = '0x4AAAAAAA-test-site-key';
    reloadSettings();
    const start = (turnstileToken?: string) =>
      api.request('POST', `/public/${publicId}/start`, { json: { name: 'Pat Public', email: `pat-${randomUUID()}@example.com`, ...(turnstileToken === undefined ? {} : { turnstileToken }) } });

    expect((await api.request('GET', `/public/${publicId}`)).body.turnstileSiteKey).toBe('0x4AAAAAAA-test-site-key');
    const page = await fetch(`${env.service.apiUrl}/sign/t/${publicId}`);
    expect(page.headers.get('content-security-policy')).toContain('script-src \'self\' https://challenges.cloudflare.com');
    expect(page.headers.get('content-security-policy')).toContain('frame-src https://challenges.cloudflare.com');

    expectType(await start(), 403, 'captcha-failed');
    expectType(await start('XXXX.DUMMY.TOKEN.FAIL'), 403, 'captcha-failed');
    for (let index = 0; index < 10; index++) expect((await start(siteverify.passToken)).status).toBe(202);
    expectType(await start(siteverify.passToken), 429, 'rate-limited');
    // Past the limit, a bad token is still answered as a bad token.
    expectType(await start('XXXX.DUMMY.TOKEN.FAIL'), 403, 'captcha-failed');
  });
});
