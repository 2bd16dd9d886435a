/**
 * The OpenAPI document (docs/api.md#the-openapi-document-and-the-pages): `GET /api/openapi.json` is a
 * valid OpenAPI 3.1 document, the committed `docs/openapi.json` is exactly what `npm run openapi`
 * writes, its paths are exactly the routes of `src/functions`, its security follows each route's
 * access, and its examples are accepted both by its own schemas and by the zod schemas the functions
 * validate requests with. (That every response matches it is checked by every end-to-end test, through
 * ApiClient.)
 *
 * And (docs/api.md#conventions) a client or gateway that validates requests against it accepts
 * exactly what the service accepts: tricky bodies and queries sent over HTTP, each judged by the
 * service and by the document's own schemas (ajv), must get the same verdict, apart from the rules the
 * document states in words only. (`tests/unit/schemas.test.ts` compares the document with the zod
 * schemas over every character and generated bodies.)
 */
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, test } from '@jest/globals';
import { Validator } from '@seriousme/openapi-schema-validator';
import fc from 'fast-check';
import type { z } from 'zod';
import { loginRequest, registerRequest } from '../../src/lib/auth/schemas.js';
import { listEnvelopesQuery, updateEnvelopeRequest, uploadRequest } from '../../src/lib/envelopes/schemas.js';
import { BEARER_AUTH, buildOpenApiDocument, serializeOpenApiDocument } from '../../src/lib/openapi/document.js';
import { SIGNING_AUTH } from '../../src/lib/openapi/recipients.js';
import { completeSigningRequest, declineSigningRequest } from '../../src/lib/recipients/schemas.js';
import type { RegisteredRoute } from '../../src/lib/http/register.js';
import { loadFunctions } from '../../src/local/loadFunctions.js';
import { OpenApiResponseValidator } from '../support/openapiValidator.js';
import { ApiClient, serviceForFile, type ApiResponse, type TestService, type TestUser } from '../support/service.js';

/**
 * Routes every role may call that refuse some role some requests, with 403 `forbidden-role`
 * (docs/api.md#list-envelopes: `scope=organization`; docs/api.md#what-members-share: another
 * member's envelope, its audit trail, its download and its attachments, to a sender; docs/api.md#templates-shared-in-an-organization:
 * another sender's private template).
 */
const REFUSED_BY_REQUEST: ReadonlySet<string> = new Set(['ListEnvelopes', 'GetEnvelope', 'GetAuditTrail', 'DownloadEnvelope', 'GetEnvelopeAttachment', 'ListEnvelopeAttachments', 'GetTemplate']);

type JsonObject = Record<string, any>;

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

let env: TestService;
let served: JsonObject;
let routes: readonly RegisteredRoute[];
serviceForFile(async (started) => {
  ({ env } = started);
  routes = await loadFunctions();
  const response = await env.api.request('GET', '/openapi.json');
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
  served = response.body as JsonObject;
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

  test('bearer and JWT-only routes require the bearer JWT scheme, signing routes the signing-token scheme, public routes nothing', () => {
    expect(served.components.securitySchemes[BEARER_AUTH]).toMatchObject({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' });
    expect(served.components.securitySchemes[SIGNING_AUTH]).toMatchObject({ type: 'http', scheme: 'bearer' });
    const operations = new Map(operationsOf(served));
    for (const route of routes) {
      for (const method of route.methods) {
        const operation = operations.get(`${method} /${route.route}`)!;
        const security = route.access === 'bearer' || route.access === 'jwt' ? [{ [BEARER_AUTH]: [] }] : route.access === 'signing' ? [{ [SIGNING_AUTH]: [] }] : [];
        expect([`${method} /${route.route}`, operation.security]).toEqual([`${method} /${route.route}`, security]);
        if (route.access !== 'public') expect(operation.responses['401'].headers['WWW-Authenticate'].required).toBe(true);
        // A route some role may not call says it answers 403 forbidden-role (docs/api.md#roles), and only such a route;
        // or a route every role calls that refuses a role some of its requests (docs/api.md#what-members-share: `scope=organization`).
        const someRoleRefused = route.access === 'bearer' || route.access === 'jwt' ? (route.roles ?? []).length < 4 || REFUSED_BY_REQUEST.has(route.name) : false;
        const forbidden = Object.keys(operation.responses['403']?.content['application/problem+json'].examples ?? {});
        expect([`${method} /${route.route}`, forbidden.includes('forbidden-role')]).toEqual([`${method} /${route.route}`, someRoleRefused]);
        // JWT-only routes say that an API key gets 403 jwt-required.
        if (route.access === 'jwt') expect(Object.keys(operation.responses['403'].content['application/problem+json'].examples)).toEqual(['jwt-required', ...(someRoleRefused ? ['forbidden-role'] : [])]);
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

  test('every operation has one tag, and every tag an operation uses is declared with its description', () => {
    const declared = (served.tags as { name: string; description: string }[]).map((tag) => tag.name);
    const used = new Set<string>();
    for (const [key, operation] of operationsOf(served)) {
      expect([key, (operation.tags as string[]).length]).toEqual([key, 1]);
      used.add((operation.tags as string[])[0]!);
    }
    expect([...used].filter((tag) => !declared.includes(tag))).toEqual([]);
    expect(declared.filter((tag) => !used.has(tag))).toEqual([]);
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

  const jsonType = {
    'Content-Type': 'application/json; charset=utf-8',
    'Cache-Control': 'no-store',
    'RateLimit-Policy': '"default";q=600;w=60',
    RateLimit: '"default";r=599;t=60',
  };

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

describe('a client validating against the document accepts exactly what the service accepts', () => {
  let user: TestUser;
  let check: OpenApiResponseValidator;
  beforeAll(async () => {
    user = await env.newUser();
    check = new OpenApiResponseValidator(served);
  });

  /**
   * The service's verdict on a request's form: refused with 400 (the schema, malformed JSON, a cursor),
   * 413 or 415 (a media type). Any other answer (2xx, or 401, 403, 409 for credentials, invitation
   * codes, the envelope's state) means the request passed every check of its form.
   */
  const refusedForForm = (response: ApiResponse) => [400, 413, 415].includes(response.status);
  const bodySchema = (route: string, method: string) => served.paths[route][method].requestBody.content['application/json'].schema as JsonObject;
  const documentAccepts = (schema: JsonObject, value: unknown) => check.validateValue(schema, value) === null;

  /**
   * What a case expects: `same` (the service and the document agree, whatever they say), or a rule
   * the document states in words only, where the service refuses with 400 naming it and the document
   * accepts.
   */
  type Expectation = 'same' | { beyond: RegExp };

  /** Both verdicts on one request, compared as `expectation` says; a line for each disagreement. */
  function judge(name: string, response: ApiResponse, accepted: boolean, expectation: Expectation): string[] {
    const refused = refusedForForm(response);
    if (expectation === 'same') {
      return refused === !accepted ? [] : [`${name}: the service answered ${response.status}, the document ${accepted ? 'accepts' : 'refuses'} (${response.text.slice(0, 200)})`];
    }
    const problem = response.body as { type?: string; errors?: { path: string; message: string }[] };
    const named = response.status === 400 && [problem.type ?? '', ...(problem.errors ?? []).map((error) => error.message)].some((text) => expectation.beyond.test(text));
    return named && accepted ? [] : [`${name}: expected the service to refuse for ${expectation.beyond} and the document to accept; got ${response.status} and ${accepted}`];
  }

  const emoji = '😀';
  const address = (length: number, unique: string) => `${unique}${'a'.repeat(64 - unique.length)}@${'b'.repeat(length - 64 - 1 - 4)}.com`;

  test('POST /api/Register', async () => {
    const schema = bodySchema('/Register', 'post');
    const cases: [string, (code: string, unique: string) => JsonObject, Expectation][] = [
      ['white space and capitals around the address', (code, unique) => ({ email: `  Ada.${unique}@Example.COM \t`, password: 'correct horse', invitationCode: code }), 'same'],
      ['an address of 254 characters', (code, unique) => ({ email: address(254, unique), password: 'correct horse', invitationCode: code }), 'same'],
      ['an address of 255 characters', (code, unique) => ({ email: address(255, unique), password: 'correct horse', invitationCode: code }), 'same'],
      ['U+212A KELVIN SIGN in the address', (code, unique) => ({ email: `\u212Aate.${unique}@example.com`, password: 'correct horse', invitationCode: code }), 'same'],
      ['a password of 8 emoji (32 bytes)', (code, unique) => ({ email: `${unique}@example.com`, password: emoji.repeat(8), invitationCode: code }), 'same'],
      ['a password of 4 emoji (8 UTF-16 code units)', (code, unique) => ({ email: `${unique}@example.com`, password: emoji.repeat(4), invitationCode: code }), 'same'],
      ['a password of 72 ASCII characters', (code, unique) => ({ email: `${unique}@example.com`, password: 'a'.repeat(72), invitationCode: code }), 'same'],
      ['a password of 73 ASCII characters', (code, unique) => ({ email: `${unique}@example.com`, password: 'a'.repeat(73), invitationCode: code }), 'same'],
      ['a password of 36 é (72 bytes)', (code, unique) => ({ email: `${unique}@example.com`, password: 'é'.repeat(36), invitationCode: code }), 'same'],
      ['a password of 37 é (74 bytes, 37 characters)', (code, unique) => ({ email: `${unique}@example.com`, password: 'é'.repeat(37), invitationCode: code }), { beyond: /^must be at most 72 bytes in UTF-8$/ }],
      ['an empty turnstileToken (no token)', (code, unique) => ({ email: `${unique}@example.com`, password: 'correct horse', invitationCode: code, turnstileToken: '' }), 'same'],
      ['an invitation code of another shape (403, not a form error)', (_code, unique) => ({ email: `${unique}@example.com`, password: 'correct horse', invitationCode: 'inv_nope' }), 'same'],
      ['an unknown field', (code, unique) => ({ email: `${unique}@example.com`, password: 'correct horse', invitationCode: code, role: 'admin' }), 'same'],
    ];
    const failures: string[] = [];
    const statuses = new Set<number>();
    for (const [name, make, expectation] of cases) {
      const body = make(await env.invitation(), `r${randomUUID().slice(0, 8)}`);
      const response = await env.api.request('POST', '/Register', { json: body });
      statuses.add(response.status);
      failures.push(...judge(name, response, documentAccepts(schema, body), expectation));
    }
    expect(failures).toEqual([]);
    // The cases reach both sides of every verdict: accounts created, forms refused, a code refused.
    expect([...statuses].sort()).toEqual([201, 400, 403]);
  });

  test('POST /api/Login', async () => {
    const schema = bodySchema('/Login', 'post');
    const cases: [string, JsonObject][] = [
      ['an address of 100 U+0130, each lower-cased into two characters', { email: 'İ'.repeat(100), password: 'x' }],
      ['an address of 254 é (508 bytes in UTF-8: longer than a Table key as base64)', { email: `${'é'.repeat(244)}@é.example`.slice(0, 254), password: 'x' }],
      ['an address of 255 characters', { email: 'İ'.repeat(255), password: 'x' }],
      ['an address of white space only', { email: ' \t ', password: 'x' }],
      ['a password of 1024 emoji', { email: `${randomUUID()}@example.com`, password: emoji.repeat(1024) }],
      ['a password of 1025 characters', { email: `${randomUUID()}@example.com`, password: 'a'.repeat(1025) }],
      ['the right credentials with white space and capitals around the address', { email: ` ${user.email.toUpperCase()} `, password: user.password }],
    ];
    const failures: string[] = [];
    const statuses = new Set<number>();
    for (const [name, body] of cases) {
      const response = await env.api.request('POST', '/Login', { json: body });
      statuses.add(response.status);
      failures.push(...judge(name, response, documentAccepts(schema, body), 'same'));
    }
    expect(failures).toEqual([]);
    expect([...statuses].sort()).toEqual([200, 400, 401]);
  });

  const upload = async (body: JsonObject) => await env.api.request('POST', '/GetUploadUrl', { token: user.token, json: body });

  test('POST /api/GetUploadUrl', async () => {
    const schema = bodySchema('/GetUploadUrl', 'post');
    const pdf = 'application/pdf';
    const cases: [string, JsonObject][] = [
      ['a plain name', { filename: 'contract.pdf', mimetype: pdf }],
      ['196 emoji and .PDF (200 characters, 396 code units)', { filename: `${emoji.repeat(196)}.PDF`, mimetype: pdf }],
      ['197 emoji and .pdf', { filename: `${emoji.repeat(197)}.pdf`, mimetype: pdf }],
      ['white space inside', { filename: 'a b .pdf', mimetype: pdf }],
      ['white space in front', { filename: '\u3000a.pdf', mimetype: pdf }],
      ['a C1 control character', { filename: 'a\u0085.pdf', mimetype: pdf }],
      ['a leading ..', { filename: '..a.pdf', mimetype: pdf }],
      ['a path separator', { filename: 'a\\b.pdf', mimetype: pdf }],
      ['.pdf alone', { filename: '.pdf', mimetype: pdf }],
      ['a PDF media type in capitals with white space and a parameter', { filename: 'a.pdf', mimetype: ' Application/PDF ; charset=binary' }],
      ['another media type (415)', { filename: 'a.pdf', mimetype: 'application/x-pdf' }],
      ['U+0130 in the media type (415)', { filename: 'a.pdf', mimetype: 'appl\u0130cation/pdf' }],
      ['a media type of 256 characters', { filename: 'a.pdf', mimetype: `application/pdf;${'a'.repeat(240)}` }],
    ];
    const failures: string[] = [];
    const statuses = new Set<number>();
    for (const [name, body] of cases) {
      const response = await upload(body);
      statuses.add(response.status);
      failures.push(...judge(name, response, documentAccepts(schema, body), 'same'));
    }
    expect(failures).toEqual([]);
    expect([...statuses].sort()).toEqual([201, 400, 415]);
  });

  test('POST /api/GetUploadUrl with generated file names and media types (fast-check)', async () => {
    const schema = bodySchema('/GetUploadUrl', 'post');
    const character = fc.constantFrom('a', '.', ' ', '\u3000', '/', '\\', '\u0000', '\u0085', 'é', emoji, '\ud800', 'P', 'd', 'F');
    const filename = fc
      .tuple(fc.array(character, { maxLength: 5 }), fc.constantFrom('.pdf', '.PDF', '.pdf ', '.txt', ''))
      .map(([characters, end]) => `${characters.join('')}${end}`);
    const mimetype = fc.constantFrom('application/pdf', 'APPLICATION/PDF;x', ' application/pdf', 'application/pdfx', 'text/plain', '');
    const failures: string[] = [];
    await fc.assert(
      fc.asyncProperty(filename, mimetype, async (name, type) => {
        const body = { filename: name, mimetype: type };
        failures.push(...judge(JSON.stringify(body), await upload(body), documentAccepts(schema, body), 'same'));
      }),
      { numRuns: 60, seed: 20261122 },
    );
    expect(failures).toEqual([]);
  });

  test('PUT and PATCH /api/envelopes/{id}', async () => {
    const schema = bodySchema('/envelopes/{id}', 'put');
    expect(bodySchema('/envelopes/{id}', 'patch')).toEqual(schema);
    const signer = (index: number, extra: JsonObject = {}) => ({ email: `s${index}@example.com`, name: `Signer ${index}`, ...extra });
    const signers = (count: number) => Array.from({ length: count }, (_, index) => signer(index));
    const cases: [string, JsonObject, Expectation][] = [
      ['null and {} entries, which are dropped', { signers: [null, {}, signer(1), null] }, 'same'],
      ['100 signers and dropped entries', { signers: [null, {}, ...signers(100), null] }, 'same'],
      ['101 signers and dropped entries', { signers: [null, ...signers(101)] }, 'same'],
      ['an array as an entry', { signers: [[]] }, 'same'],
      ['a name with white space and control characters around it', { signers: [signer(1, { name: '\tBob\n' })] }, 'same'],
      ['a NUL in a name', { signers: [signer(1, { name: 'Bo\u0000b' })] }, 'same'],
      ['a name of 200 emoji with white space around', { signers: [signer(1, { name: ` ${emoji.repeat(200)} ` })] }, 'same'],
      ['a name of 201 emoji', { signers: [signer(1, { name: emoji.repeat(201) })] }, 'same'],
      ['an id of 100 emoji', { signers: [signer(1, { id: emoji.repeat(100) })] }, 'same'],
      ['every role', { signers: ['signer', 'approver', 'viewer', 'cc'].map((role, index) => signer(index, { role })) }, 'same'],
      ['an unknown role', { signers: [signer(1, { role: 'owner' })] }, 'same'],
      ['an unknown field in a signer', { signers: [signer(1, { ownerId: 'me' })] }, 'same'],
      ['signers: null', { signers: null }, 'same'],
      ['the current status (a no-op)', { status: 'draft' }, 'same'],
      ['status completed (409: only complete completes)', { status: 'completed' }, 'same'],
      ['an unknown status', { status: 'archived' }, 'same'],
      ['an empty body', {}, 'same'],
      ['one address twice, in other capitals', { signers: [signer(1), { ...signer(2), email: ' S1@Example.com' }] }, { beyond: /^repeats the e-mail address of signer 0$/ }],
      ['one id twice', { signers: [signer(1, { id: 'x' }), signer(2, { recipientId: 'x' })] }, { beyond: /^repeats the id of signer 0$/ }],
      ['id and recipientId that differ', { signers: [signer(1, { id: 'x', recipientId: 'y' })] }, { beyond: /^must equal id when both are sent$/ }],
    ];
    const failures: string[] = [];
    const statuses = new Set<number>();
    for (const [index, [name, body, expectation]] of cases.entries()) {
      const created = await upload({ filename: 'a.pdf', mimetype: 'application/pdf' });
      const response = await env.api.request(index % 2 === 0 ? 'PUT' : 'PATCH', `/envelopes/${created.body.envelopeId}`, { token: user.token, json: body });
      statuses.add(response.status);
      failures.push(...judge(name, response, documentAccepts(schema, body), expectation));
    }
    expect(failures).toEqual([]);
    expect([...statuses].sort()).toEqual([200, 400, 409]);
  });

  test('GET /api/envelopes: limit, cursor and status', async () => {
    const parameters = new Map((served.paths['/envelopes'].get.parameters as JsonObject[]).map((parameter) => [parameter.name as string, parameter.schema as JsonObject]));
    const cases: [string, Record<string, string>, Expectation][] = [
      ['limit with leading zeros', { limit: '0050' }, 'same'],
      ['limit 100', { limit: '100' }, 'same'],
      ['limit 101', { limit: '101' }, 'same'],
      ['limit 1000', { limit: '1000' }, 'same'],
      ['limit 1.5', { limit: '1.5' }, 'same'],
      ['limit in letters', { limit: 'ten' }, 'same'],
      ['limit 0', { limit: '0' }, 'same'],
      ['limit in five digits', { limit: '01000' }, 'same'],
      ['limit with a sign', { limit: '+5' }, 'same'],
      ['a cursor of 201 characters', { cursor: 'A'.repeat(201) }, 'same'],
      ['a cursor that is not base64url', { cursor: 'not a cursor!' }, 'same'],
      ['a status in capitals', { status: 'Draft' }, 'same'],
      ['a status', { status: 'voided' }, 'same'],
      ['a cursor of the right shape that this service never issued', { cursor: 'QUJD' }, { beyond: /^urn:problem:invalid-cursor$/ }],
    ];
    const failures: string[] = [];
    const statuses = new Set<number>();
    for (const [name, query, expectation] of cases) {
      const response = await env.api.request('GET', `/envelopes?${new URLSearchParams(query).toString()}`, { token: user.token });
      statuses.add(response.status);
      // A query holds text: an integer parameter is written in decimal digits (RFC 3986 form style).
      const written = (schema: JsonObject, value: string): unknown => (schema.type === 'integer' && /^-?[0-9]+$/.test(value) ? Number(value) : value);
      const accepted = Object.entries(query).every(([parameter, value]) => documentAccepts(parameters.get(parameter)!, written(parameters.get(parameter)!, value)));
      failures.push(...judge(name, response, accepted, expectation));
    }
    expect(failures).toEqual([]);
    expect([...statuses].sort()).toEqual([200, 400]);
  });
});
