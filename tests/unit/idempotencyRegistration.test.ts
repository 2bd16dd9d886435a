/**
 * Idempotency keys come with the registration (`register.ts`): every owner `POST` honours
 * `Idempotency-Key` without its handler knowing, and the OpenAPI document says so; a function
 * registered with `idempotency: false` refuses the header with 400 `idempotency-not-supported`
 * (CONTRACT §14.2: `POST /api/apikeys`, whose answer holds a secret that is never stored).
 */
import { describe, expect, test } from '@jest/globals';
import functions from '@azure/functions';
import { disableFunctionsHostRegistration, httpFunction, registeredRoutes } from '../../src/lib/http/register.js';
import { buildOpenApiDocument } from '../../src/lib/openapi/document.js';
import { OPERATIONS_REFUSING_IDEMPOTENCY_KEYS } from '../../src/lib/openapi/idempotency.js';
import { loadFunctions } from '../../src/local/loadFunctions.js';

disableFunctionsHostRegistration();

let handlerRuns = 0;
httpFunction('IdempotencyRefused', {
  methods: ['POST'],
  authLevel: 'anonymous',
  route: 'test/idempotency-refused',
  access: 'bearer',
  idempotency: false,
  loadHandler: async () => async () => {
    handlerRuns++;
    return { status: 201, body: 'a secret' };
  },
});

function post(headers: Record<string, string>): InstanceType<typeof functions.HttpRequest> {
  return new functions.HttpRequest({ method: 'POST', url: 'http://localhost/api/test/idempotency-refused', headers, body: { string: '{}' } });
}

describe('idempotency: false', () => {
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

describe('the OpenAPI document and the registered functions', () => {
  test('every owner POST takes Idempotency-Key and may answer Idempotent-Replayed; the functions that refuse it are those the document names', async () => {
    // The service's functions: what src/functions registers, without this file's own.
    const routes = (await loadFunctions()).filter((entry) => entry.name !== 'IdempotencyRefused' && entry.access === 'bearer' && entry.methods.includes('POST'));
    expect(routes.map((entry) => entry.name)).toEqual(expect.arrayContaining(['GetUploadUrl', 'CompleteEnvelope', 'ResendInvitation', 'CreateWebhook', 'RedeliverWebhook']));
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
      expect(Object.keys(operation.responses['409'].content['application/problem+json'].examples)).toEqual(
        expect.arrayContaining(['idempotency-key-in-use', 'idempotency-outcome-unknown']),
      );
      expect(Object.keys(operation.responses['422'].content['application/problem+json'].examples)).toContain('idempotency-key-reused');
      for (const [status, response] of Object.entries(operation.responses as Record<string, any>)) {
        if (/^[24]/.test(status) && status !== '429') expect(Object.keys(response.headers ?? {})).toContain('Idempotent-Replayed');
      }
    }
  });
});
