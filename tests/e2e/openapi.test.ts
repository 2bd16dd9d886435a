/**
 * The OpenAPI document (issue: API reference and console, items 1 and 2): `GET /api/openapi.json` is a
 * valid OpenAPI 3.1 document, the committed `docs/openapi.json` is exactly what `npm run openapi`
 * writes, its paths are exactly the routes of `src/functions`, its security follows each route's
 * access, and its examples are accepted both by its own schemas and by the zod schemas the functions
 * validate requests with. (That every response matches it is checked by every end-to-end test, through
 * ApiClient.)
 */
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { Validator } from '@seriousme/openapi-schema-validator';
import type { z } from 'zod';
import { loginRequest, registerRequest } from '../../src/lib/auth/schemas.js';
import { listEnvelopesQuery, updateEnvelopeRequest, uploadRequest } from '../../src/lib/envelopes/schemas.js';
import { BEARER_AUTH, buildOpenApiDocument, serializeOpenApiDocument } from '../../src/lib/openapi/document.js';
import { SIGNING_AUTH } from '../../src/lib/openapi/recipients.js';
import { completeSigningRequest, declineSigningRequest } from '../../src/lib/recipients/schemas.js';
import type { RegisteredRoute } from '../../src/lib/http/register.js';
import { loadFunctions } from '../../src/local/loadFunctions.js';
import { OpenApiResponseValidator } from '../support/openapiValidator.js';
import { ApiClient, startTestService, type TestService } from '../support/service.js';

type JsonObject = Record<string, any>;

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

let env: TestService;
let served: JsonObject;
let routes: readonly RegisteredRoute[];

beforeAll(async () => {
  env = await startTestService();
  routes = await loadFunctions();
  const response = await env.api.request('GET', '/openapi.json');
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
  served = response.body as JsonObject;
});
afterAll(async () => {
  await env.close();
});

/** Every operation of a document as [`METHOD /path`, operation]. */
function operationsOf(document: JsonObject): [string, JsonObject][] {
  return Object.entries(document.paths as Record<string, JsonObject>).flatMap(([route, item]) =>
    Object.entries(item)
      .filter(([method]) => METHODS.includes(method))
      .map(([method, operation]) => [`${method.toUpperCase()} ${route}`, operation as JsonObject] as [string, JsonObject]),
  );
}

async function validateOpenApi(document: JsonObject): Promise<{ valid: boolean; version: string; errors: unknown }> {
  const validator = new Validator();
  const result = await validator.validate(structuredClone(document));
  return { valid: result.valid, version: validator.version, errors: result.errors };
}

describe('GET /api/openapi.json', () => {
  test('is a valid OpenAPI 3.1 document (@seriousme/openapi-schema-validator)', async () => {
    expect(served.openapi).toBe('3.1.0');
    const result = await validateOpenApi(served);
    expect(result.errors).toBeUndefined();
    expect(result).toMatchObject({ valid: true, version: '3.1' });
  });

  test('the validator refuses a broken copy (so the check above can fail)', async () => {
    const broken = structuredClone(served);
    delete broken.paths['/Register'].post.responses;
    broken.components.securitySchemes[BEARER_AUTH].type = 'password';
    expect((await validateOpenApi(broken)).valid).toBe(false);
  });

  test('is the document the generator builds, and docs/openapi.json is exactly what `npm run openapi` writes', async () => {
    expect(served).toEqual(buildOpenApiDocument());
    const committed = await readFile(path.resolve(process.cwd(), 'docs/openapi.json'), 'utf8');
    // On failure: run `npm run openapi` and commit docs/openapi.json.
    expect(committed).toBe(serializeOpenApiDocument(served));
  });
});

describe('the document describes exactly the functions of src/functions', () => {
  test('its paths and methods are the registered routes and methods, the same set', () => {
    const registered = routes.flatMap((route) => route.methods.map((method) => `${method} /${route.route}`)).sort();
    expect(operationsOf(served).map(([key]) => key).sort()).toEqual(registered);
  });

  test('bearer routes require the bearer JWT scheme, signing routes the signing-token scheme, public routes nothing', () => {
    expect(served.components.securitySchemes[BEARER_AUTH]).toMatchObject({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' });
    expect(served.components.securitySchemes[SIGNING_AUTH]).toMatchObject({ type: 'http', scheme: 'bearer' });
    const operations = new Map(operationsOf(served));
    for (const route of routes) {
      for (const method of route.methods) {
        const operation = operations.get(`${method} /${route.route}`)!;
        const security = route.access === 'bearer' ? [{ [BEARER_AUTH]: [] }] : route.access === 'signing' ? [{ [SIGNING_AUTH]: [] }] : [];
        expect([`${method} /${route.route}`, operation.security]).toEqual([`${method} /${route.route}`, security]);
        if (route.access !== 'public') expect(operation.responses['401'].headers['WWW-Authenticate'].required).toBe(true);
      }
    }
  });

  test('every operation has an id, a summary, a success answer and 500 as problem details', () => {
    const ids = new Set<string>();
    for (const [key, operation] of operationsOf(served)) {
      expect([key, typeof operation.operationId, typeof operation.summary]).toEqual([key, 'string', 'string']);
      ids.add(operation.operationId);
      expect([key, Object.keys(operation.responses).some((status) => /^2\d\d$/.test(status))]).toEqual([key, true]);
      expect([key, Object.keys(operation.responses['500'].content)]).toEqual([key, ['application/problem+json']]);
      for (const [status, response] of Object.entries(operation.responses as Record<string, JsonObject>)) {
        if (Number(status) >= 400) expect([key, status, response.content['application/problem+json']?.schema]).toEqual([key, status, { $ref: '#/components/schemas/Problem' }]);
      }
    }
    expect(ids.size).toBe(operationsOf(served).length);
  });
});

describe('examples', () => {
  const validator = () => new OpenApiResponseValidator(served);

  /** Every media-type example of the document: [where, schema, value]. */
  function examples(): [string, JsonObject, unknown][] {
    const found: [string, JsonObject, unknown][] = [];
    const collect = (where: string, content: Record<string, JsonObject> | undefined) => {
      for (const [mediaType, media] of Object.entries(content ?? {})) {
        if ('example' in media) found.push([`${where} ${mediaType}`, media.schema, media.example]);
        for (const [name, example] of Object.entries((media.examples ?? {}) as Record<string, JsonObject>)) found.push([`${where} ${mediaType} (${name})`, media.schema, example.value]);
      }
    };
    for (const [key, operation] of operationsOf(served)) {
      collect(`${key} request`, operation.requestBody?.content);
      for (const [status, response] of Object.entries(operation.responses as Record<string, JsonObject>)) collect(`${key} ${status}`, response.content);
    }
    return found;
  }

  test('every request body and success response has an example', () => {
    const where = new Set(examples().map(([place]) => place.split(' ').slice(0, 3).join(' ')));
    for (const [key, operation] of operationsOf(served)) {
      if (operation.requestBody !== undefined) expect(where).toContain(`${key} request`);
      for (const [status, response] of Object.entries(operation.responses as Record<string, JsonObject>)) {
        if (/^2/.test(status) && response.content?.['application/json'] !== undefined && key !== 'GET /openapi.json') expect(where).toContain(`${key} ${status}`);
      }
    }
  });

  test('every example matches its schema in the document', () => {
    const check = validator();
    const failures = examples().flatMap(([where, schema, value]) => {
      const complaint = check.validateValue(schema, value);
      return complaint === null ? [] : [`${where}: ${complaint}`];
    });
    expect(failures).toEqual([]);
    expect(examples().length).toBeGreaterThan(20);
  });

  test('every error example is problem details with its response\'s status', () => {
    const errorExamples = examples().filter(([where]) => / [45]\d\d application\/problem\+json/.test(where));
    expect(errorExamples.length).toBeGreaterThan(30);
    for (const [where, , value] of errorExamples) {
      const status = Number(/ ([45]\d\d) /.exec(where)![1]);
      expect([where, (value as JsonObject).status, (value as JsonObject).type]).toEqual([where, status, expect.stringMatching(/^urn:problem:[a-z-]+$/)]);
    }
  });

  test('a value that breaks a schema is refused (so the check above can fail)', () => {
    const check = validator();
    const envelope = served.paths['/envelopes/{id}'].get.responses['200'].content['application/json'];
    expect(check.validateValue(envelope.schema, envelope.example)).toBeNull();
    expect(check.validateValue(envelope.schema, { ...envelope.example, blobName: 'leaked/field.pdf' })).toMatch(/additional properties/);
    expect(check.validateValue(envelope.schema, { ...envelope.example, status: 'archived' })).toMatch(/allowed values/);
  });

  test('request examples are accepted by the zod schemas that validate requests', () => {
    const bodies: [string, z.ZodType][] = [
      ['/Register', registerRequest],
      ['/Login', loginRequest],
      ['/GetUploadUrl', uploadRequest],
      ['/envelopes/{id}', updateEnvelopeRequest],
      ['/signing/complete', completeSigningRequest],
      ['/signing/decline', declineSigningRequest],
    ];
    for (const [route, schema] of bodies) {
      for (const operation of Object.values(served.paths[route] as Record<string, JsonObject>)) {
        const media = operation.requestBody?.content?.['application/json'];
        if (media === undefined) continue;
        const values = 'example' in media ? [media.example] : Object.values(media.examples as Record<string, JsonObject>).map((example) => example.value);
        expect(values.length).toBeGreaterThan(0);
        for (const value of values) expect([route, schema.safeParse(value).success]).toEqual([route, true]);
      }
    }
    const query = Object.fromEntries(
      (served.paths['/envelopes'].get.parameters as JsonObject[]).filter((parameter) => parameter.schema.examples).map((parameter) => [parameter.name, parameter.schema.examples[0]]),
    );
    expect(listEnvelopesQuery.safeParse(query).success).toBe(true);
  });
});

describe('ApiClient checks every response against the document', () => {
  /** Runs `body` against a loopback server that answers every request with `status`, `headers` and `text`. */
  async function withFakeApi(status: number, headers: Record<string, string>, text: string, body: (api: ApiClient) => Promise<void>): Promise<void> {
    const server = createServer((_request, response) => response.writeHead(status, headers).end(text));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      await body(new ApiClient(`http://127.0.0.1:${(server.address() as AddressInfo).port}/api`));
    } finally {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    }
  }

  const jsonType = { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store' };

  test('refuses a body that departs from the schema', async () => {
    await withFakeApi(200, jsonType, JSON.stringify([{ id: 'not-a-uuid' }]), async (api) => {
      await expect(api.request('GET', '/envelopes')).rejects.toThrow(/GET \/envelopes answered 200 with a body that does not match/);
    });
  });

  test('refuses a status the operation does not list', async () => {
    await withFakeApi(418, { 'Content-Type': 'application/problem+json' }, JSON.stringify({ type: 'urn:x', title: 'x', status: 418, detail: 'x' }), async (api) => {
      await expect(api.request('GET', '/health')).rejects.toThrow(/a status the document does not list/);
    });
  });

  test('refuses a response without a required header', async () => {
    await withFakeApi(200, { 'Content-Type': 'application/json' }, '[]', async (api) => {
      await expect(api.request('GET', '/envelopes')).rejects.toThrow(/without the required header Cache-Control/);
    });
  });

  test('accepts what the document describes', async () => {
    await withFakeApi(200, jsonType, '[]', async (api) => {
      expect((await api.request('GET', '/envelopes')).body).toEqual([]);
    });
  });
});
