/**
 * The signing guard (docs/api.md#order-of-checks-and-answers): signer authentication is applied by the
 * registration of every `signing` route, right after the token, so that no signing route can forget
 * it. The expectation table below names every signing route with the rule it must follow: a new
 * signing route without an entry fails here. Over real HTTP, for every signing route of
 * `registeredRoutes`: a link locked by wrong codes answers 423 `authentication-locked`; a recipient
 * that has not entered its code answers 403 `authentication-required`, except on the routes declared
 * `signingAuthentication: 'before'` (the restricted view, entering the code, asking for a one-time
 * code); neither refusal changes anything.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { RegisteredRoute } from '../../src/lib/http/register.js';
import { loadFunctions } from '../../src/local/loadFunctions.js';
import { expectProblem, startTestService, type ApiResponse, type TestService, type TestUser } from '../support/service.js';
import { auditTrail, emailsDispatched, sentEnvelope, signingTokenFor, storedEnvelope } from '../support/signing.js';

const ACCESS_CODE = 'guard-harbour-77';

interface Rule {
  /** `'before'`: the route serves a recipient that has not entered its code yet; `'after'`: 403 until it has. */
  signingAuthentication: 'before' | 'after';
  /** A body the route accepts, so that only the guard can refuse the request. */
  body?: () => unknown;
  /** For a `'before'` route: the answer to a recipient with an access code it has not entered, [status, problem type or null]. */
  beforeAuthentication?: [number, string | null];
}

/** Every signing route, by function name. A signing route missing here makes the first test fail. */
const rules: Record<string, Rule> = {
  GetSigningView: { signingAuthentication: 'before', beforeAuthentication: [200, null] },
  SendSigningCode: { signingAuthentication: 'before', beforeAuthentication: [409, 'urn:problem:authentication-method-mismatch'] },
  AuthenticateSigning: { signingAuthentication: 'before', body: () => ({ code: ACCESS_CODE }), beforeAuthentication: [200, null] },
  GetSigningDisclosure: { signingAuthentication: 'after' },
  CompleteSigning: { signingAuthentication: 'after', body: () => ({ consent: true, values: [] }) },
  DeclineSigning: { signingAuthentication: 'after', body: () => ({ reason: 'Not for me.' }) },
  UploadSigningAttachment: { signingAuthentication: 'after' },
  ReassignSigning: { signingAuthentication: 'after', body: () => ({ email: `carol-${randomUUID()}@example.com`, name: 'Carol Jones', reason: 'Carol signs for us.' }) },
};

let env: TestService;
let owner: TestUser;
let signingRoutes: RegisteredRoute[];

beforeAll(async () => {
  env = await startTestService();
  owner = await env.newUser();
  signingRoutes = (await loadFunctions()).filter((route) => route.access === 'signing');
});
afterAll(async () => {
  await env?.close();
});

/** The rule of a route; throws for a signing route the table does not cover. */
function ruleOf(route: RegisteredRoute): Rule {
  const rule = rules[route.name];
  if (rule === undefined) throw new Error(`signing route ${route.name} (${route.route}) has no entry in the expectation table`);
  return rule;
}

/** Every method of every signing route, `'before'` routes last, with GET /api/signing first among them. */
function requests(): { route: RegisteredRoute; method: string; rule: Rule }[] {
  const all = signingRoutes.flatMap((route) => route.methods.map((method) => ({ route, method, rule: ruleOf(route) })));
  const order = (entry: { route: RegisteredRoute; rule: Rule }) => (entry.rule.signingAuthentication === 'after' ? 0 : entry.route.name === 'GetSigningView' ? 1 : entry.route.name === 'AuthenticateSigning' ? 3 : 2);
  return all.sort((a, b) => order(a) - order(b));
}

function send(token: string, route: RegisteredRoute, method: string, rule: Rule): Promise<ApiResponse<any>> {
  const body = rule.body?.();
  return env.api.request(method, `/${route.route}`, { token, ...(body === undefined ? (method === 'GET' ? {} : { json: {} }) : { json: body }) });
}

/** A sent envelope that allows reassignment, its signer with an access code and a signature field; a second signer keeps it from completing. */
async function guardedEnvelope(): Promise<{ id: string; token: string; email: string }> {
  const email = `guarded-${randomUUID()}@example.com`;
  const { id } = await sentEnvelopeAllowingReassign([
    { email, name: 'Guarded Signer', authentication: { method: 'accessCode', code: ACCESS_CODE } },
    { email: `other-${randomUUID()}@example.com`, name: 'Other Signer' },
  ]);
  return { id, token: await signingTokenFor(owner.userId, id, email), email };
}

/** Sends a new envelope with `allowReassign: true` (a setting, set with the send), a signature field for the last signer (so that the first completes with no values). */
async function sentEnvelopeAllowingReassign(signers: Record<string, unknown>[]): Promise<{ id: string }> {
  const { id } = await sentEnvelope(env.api, owner, {
    signers,
    fields: [{ recipient: signers.length - 1, type: 'signature', page: 1, x: 0.1, y: 0.7, width: 0.3, height: 0.06 }],
    settings: { allowReassign: true },
  });
  return { id };
}

describe('the expectation table', () => {
  test('covers exactly the registered signing routes, each registered with the rule the table names', () => {
    expect(signingRoutes.length).toBeGreaterThan(0);
    expect(signingRoutes.map((route) => route.name).sort()).toEqual(Object.keys(rules).sort());
    for (const route of signingRoutes) expect([route.name, route.signingAuthentication]).toEqual([route.name, ruleOf(route).signingAuthentication]);
  });
});

describe('every signing route over HTTP', () => {
  test('a link locked by wrong codes: 423 authentication-locked on every route, with a body each would accept; nothing changes', async () => {
    const { id, token } = await guardedEnvelope();
    for (let attempt = 1; attempt <= 5; attempt++) {
      const wrong = await env.api.request('POST', '/signing/authenticate', { token, json: { code: `wrong-${attempt}` } });
      expect(wrong.status).toBe(attempt < 5 ? 403 : 423);
    }
    await emailsDispatched(owner.userId, id);
    const before = await storedEnvelope(owner.userId, id);
    const trail = await auditTrail(env.api, owner, id);
    for (const { route, method, rule } of requests()) {
      const answer = await send(token, route, method, rule);
      expectProblem(answer, 423);
      expect([route.name, method, answer.body.type, answer.body.attemptsLeft]).toEqual([route.name, method, 'urn:problem:authentication-locked', 0]);
    }
    expect(await storedEnvelope(owner.userId, id)).toEqual(before);
    expect(await auditTrail(env.api, owner, id)).toEqual(trail);
  });

  test('before the code: 403 authentication-required on every route not declared pre-authentication, changing nothing; the declared ones answer', async () => {
    const { id, token } = await guardedEnvelope();
    await emailsDispatched(owner.userId, id);
    const before = await storedEnvelope(owner.userId, id);
    const trail = await auditTrail(env.api, owner, id);
    const after = requests().filter(({ rule }) => rule.signingAuthentication === 'after');
    expect(after.length).toBeGreaterThan(0);
    for (const { route, method, rule } of after) {
      const answer = await send(token, route, method, rule);
      expectProblem(answer, 403);
      expect([route.name, method, answer.body.type, answer.body.attemptsLeft]).toEqual([route.name, method, 'urn:problem:authentication-required', 5]);
    }
    expect(await storedEnvelope(owner.userId, id)).toEqual(before);
    expect(await auditTrail(env.api, owner, id)).toEqual(trail);

    for (const { route, method, rule } of requests().filter(({ rule }) => rule.signingAuthentication === 'before')) {
      const answer = await send(token, route, method, rule);
      expect([route.name, method, answer.status, answer.status >= 400 ? answer.body.type : null]).toEqual([route.name, method, ...rule.beforeAuthentication!]);
    }
    // The last of them entered the code: the recipient is authenticated now, and acts.
    expect((await env.api.request('GET', '/signing', { token })).body.authentication).toEqual({ method: 'accessCode', verified: true, attemptsLeft: 5 });
    expect((await env.api.request('POST', '/signing/decline', { token, json: { reason: 'Not for me.' } })).status).toBe(200);
  });
});
