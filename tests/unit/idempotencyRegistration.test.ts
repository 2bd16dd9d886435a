/**
 * Idempotency keys come with the registration (`register.ts`): every owner `POST` honours
 * `Idempotency-Key` without its handler knowing, and the OpenAPI document says so; a function
 * whose answer holds a secret (`answerHoldsSecret: true`) refuses the header with 400
 * `idempotency-not-supported`, so the secret is never stored (docs/api.md#idempotency); every owner
 * `POST` must say whether its answer holds one.
 */
import { describe, expect, test } from '@jest/globals';
import functions from '@azure/functions';
import { disableFunctionsHostRegistration, httpFunction, registeredRoutes } from '../../src/lib/http/register.js';
import { buildOpenApiDocument } from '../../src/lib/openapi/document.js';
import { OPERATIONS_NEVER_OUTCOME_UNKNOWN, OPERATIONS_REFUSING_IDEMPOTENCY_KEYS } from '../../src/lib/openapi/idempotency.js';
import { loadFunctions } from '../../src/local/loadFunctions.js';

disableFunctionsHostRegistration();

let handlerRuns = 0;
httpFunction('IdempotencyRefused', {
  methods: ['POST'],
  authLevel: 'anonymous',
  route: 'test/idempotency-refused',
  access: 'bearer',
  roles: ['owner'],
  answerHoldsSecret: true,
  loadHandler: async () => async () => {
    handlerRuns++;
    return { status: 201, body: 'a secret' };
  },
});

function post(headers: Record<string, string>): InstanceType<typeof functions.HttpRequest> {
  return new functions.HttpRequest({ method: 'POST', url: 'http://localhost/api/test/idempotency-refused', headers, body: { string: '{}' } });
}

describe('answerHoldsSecret: true', () => {
  const route = () => registeredRoutes.find((entry) => entry.name === 'IdempotencyRefused')!;

  test('a request with Idempotency-Key gets 400 idempotency-not-supported and runs nothing', async () => {
    const answer = await route().handler(post({ 'Idempotency-Key': 'k-1', 'Content-Type': 'application/json' }), new functions.InvocationContext());
    expect(answer.status).toBe(400);
    expect(JSON.parse(String(answer.body))).toMatchObject({ type: 'urn:problem:idempotency-not-supported', status: 400 });
    expect(handlerRuns).toBe(0);
    expect(route().idempotency).toBe(false);
  });

  test('a request without it goes on to the guard as usual', async () => {
    const answer = await route().handler(post({ 'Content-Type': 'application/json' }), new functions.InvocationContext());
    expect(answer.status).toBe(401);
    expect(handlerRuns).toBe(0);
  });
});

describe('declaring answerHoldsSecret', () => {
  const declare = (name: string, options: { access: 'bearer' | 'jwt' | 'public'; answerHoldsSecret?: boolean; idempotency?: 'claim-in-transaction'; methods?: ('POST' | 'GET')[] }) => () =>
    httpFunction(name, {
      methods: options.methods ?? ['POST'],
      authLevel: 'anonymous',
      route: `test/${name}`,
      roles: ['owner'],
      loadHandler: async () => async () => ({ status: 204 }),
      ...options,
    } as Parameters<typeof httpFunction>[1]);

  test('an owner POST, API key or access token only, that does not say whether its answer holds a secret is not registered', () => {
    expect(declare('UndeclaredBearer', { access: 'bearer' })).toThrow('answerHoldsSecret');
    expect(declare('UndeclaredJwt', { access: 'jwt' })).toThrow('answerHoldsSecret');
    expect(declare('SecretClaimInTransaction', { access: 'bearer', answerHoldsSecret: true, idempotency: 'claim-in-transaction' })).toThrow('refuses Idempotency-Key');
    expect(registeredRoutes.map((entry) => entry.name)).not.toEqual(expect.arrayContaining(['UndeclaredBearer']));
    expect(registeredRoutes.map((entry) => entry.name)).not.toEqual(expect.arrayContaining(['UndeclaredJwt']));
    // A GET of an owner, or a public POST, never honours the header: nothing to declare.
    expect(declare('UndeclaredGet', { access: 'bearer', methods: ['GET'] })).not.toThrow();
    expect(declare('UndeclaredPublic', { access: 'public' })).not.toThrow();
  });
});

/** The service's owner POSTs whose answers hold a secret the client keeps: they must refuse Idempotency-Key. */
const SECRET_ANSWERS = ['CreateApiKey', 'CreateRecipientView', 'CreateWebhook'];

describe('the OpenAPI document and the registered functions', () => {
  test('every owner POST (access token or API key) declares whether its answer holds a secret; those that do refuse Idempotency-Key', async () => {
    const ownTests = new Set(['IdempotencyRefused', 'UndeclaredGet', 'UndeclaredPublic']);
    const routes = (await loadFunctions()).filter((entry) => !ownTests.has(entry.name) && (entry.access === 'bearer' || entry.access === 'jwt') && entry.methods.includes('POST'));
    for (const entry of routes) expect({ name: entry.name, answerHoldsSecret: typeof entry.answerHoldsSecret }).toEqual({ name: entry.name, answerHoldsSecret: 'boolean' });
    const secret = routes.filter((entry) => entry.answerHoldsSecret === true);
    expect(secret.map((entry) => entry.name).sort()).toEqual(SECRET_ANSWERS);
    for (const entry of secret) expect(entry.idempotency).toBe(false);
    expect([...OPERATIONS_REFUSING_IDEMPOTENCY_KEYS].sort()).toEqual(SECRET_ANSWERS);
  });

  test('each secret-holding owner POST answers 400 idempotency-not-supported to a request with Idempotency-Key, before anything runs', async () => {
    const routes = (await loadFunctions()).filter((entry) => SECRET_ANSWERS.includes(entry.name));
    expect(routes).toHaveLength(SECRET_ANSWERS.length);
    for (const entry of routes) {
      const request = new functions.HttpRequest({ method: 'POST', url: `http://localhost/api/${entry.route}`, headers: { 'Idempotency-Key': 'k-2', 'Content-Type': 'application/json' }, body: { string: '{}' } });
      const answer = await entry.handler(request, new functions.InvocationContext());
      expect({ name: entry.name, status: answer.status, type: JSON.parse(String(answer.body)).type }).toEqual({ name: entry.name, status: 400, type: 'urn:problem:idempotency-not-supported' });
    }
  });

  test('every owner POST takes Idempotency-Key and may answer Idempotent-Replayed; the functions that refuse it are those the document names', async () => {
    // The service's functions: what src/functions registers, without this file's own.
    const ownTests = new Set(['IdempotencyRefused', 'UndeclaredGet', 'UndeclaredPublic']);
    const routes = (await loadFunctions()).filter((entry) => !ownTests.has(entry.name) && (entry.access === 'bearer' || entry.access === 'jwt') && entry.methods.includes('POST'));
    expect(routes.map((entry) => entry.name)).toEqual(expect.arrayContaining(['GetUploadUrl', 'CompleteEnvelope', 'ResendInvitation', 'CreateWebhook', 'RedeliverWebhook', 'CreateApiKey']));
    const paths = buildOpenApiDocument().paths as Record<string, Record<string, any>>;
    for (const entry of routes) {
      const operation = paths[`/${entry.route}`]!.post;
      const refuses = entry.idempotency === false;
      expect(OPERATIONS_REFUSING_IDEMPOTENCY_KEYS.includes(operation.operationId)).toBe(refuses);
      if (refuses) {
        expect(Object.keys(operation.responses['400'].content['application/problem+json'].examples)).toContain('idempotency-not-supported');
        continue;
      }
      expect(operation.parameters).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'Idempotency-Key', in: 'header', required: false })]));
      // A creating endpoint whose retry after a crash replays or finishes its creation never answers outcome-unknown; every other one may.
      const conflicts = Object.keys(operation.responses['409'].content['application/problem+json'].examples);
      expect(OPERATIONS_NEVER_OUTCOME_UNKNOWN.includes(operation.operationId)).toBe(entry.idempotency === 'claim-in-transaction' || entry.idempotency === 'resumable');
      if (OPERATIONS_NEVER_OUTCOME_UNKNOWN.includes(operation.operationId)) {
        expect(conflicts).toContain('idempotency-key-in-use');
        expect(conflicts).not.toContain('idempotency-outcome-unknown');
      } else {
        expect(conflicts).toEqual(expect.arrayContaining(['idempotency-key-in-use', 'idempotency-outcome-unknown']));
      }
      expect(Object.keys(operation.responses['422'].content['application/problem+json'].examples)).toContain('idempotency-key-reused');
      for (const [status, response] of Object.entries(operation.responses as Record<string, any>)) {
        if (/^[24]/.test(status) && status !== '429') expect(Object.keys(response.headers ?? {})).toContain('Idempotent-Replayed');
      }
    }
  });
});
