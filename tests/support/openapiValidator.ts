/**
 * Checks HTTP responses against the OpenAPI document (src/lib/openapi/document.ts): every response the
 * end-to-end tests receive through {@link ApiClient} passes through {@link checkResponse}, so the
 * document and the code cannot disagree without a test failing.
 *
 * For a documented operation the status must be one the operation lists, the media type one of its
 * content types, a JSON body must validate against its schema (ajv, JSON Schema draft 2020-12, the
 * dialect of OpenAPI 3.1) and every header marked `required` must be present and match its schema.
 * Answers of the host itself for paths or methods the document does not list (404, 405, 413, CORS
 * preflights) must still be problem details.
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { buildOpenApiDocument } from '../../src/lib/openapi/document.js';

// ajv-formats is CommonJS with `module.exports = plugin`: the default import is the plugin itself.
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

type JsonObject = Record<string, unknown>;

interface HeaderSpec {
  required?: boolean;
  schema?: JsonObject;
}

interface ResponseSpec {
  content?: Record<string, { schema?: JsonObject }>;
  headers?: Record<string, HeaderSpec>;
}

interface Operation {
  method: string;
  /** The path as the document writes it, e.g. `/envelopes/{id}`. */
  path: string;
  pattern: RegExp;
  responses: Record<string, ResponseSpec>;
}

/** What {@link checkResponse} looks at. */
export interface ObservedResponse {
  method: string;
  /** The full request URL (`http://127.0.0.1:1234/api/envelopes/...?...`). */
  url: string;
  status: number;
  headers: Headers;
  /** The body as text, and parsed when it is JSON. */
  text: string;
  body: unknown;
}

const SCHEMA_URI = 'urn:openapi:schema:';
const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/** A document's paths, methods and schemas, compiled once. */
export class OpenApiResponseValidator {
  private readonly ajv = new Ajv2020({ strict: true, allErrors: true, allowUnionTypes: true });
  private readonly operations: Operation[];
  private readonly compiled = new Map<object, ValidateFunction>();
  private readonly problemSchema: ValidateFunction;
  /** The server URL's path, `/api`. */
  private readonly basePath: string;

  constructor(document: JsonObject) {
    addFormats(this.ajv);
    const schemas = ((document.components as JsonObject | undefined)?.schemas ?? {}) as Record<string, JsonObject>;
    for (const [name, schema] of Object.entries(schemas)) this.ajv.addSchema(rewriteRefs(schema) as JsonObject, `${SCHEMA_URI}${name}`);
    this.problemSchema = this.ajv.getSchema(`${SCHEMA_URI}Problem`)!;
    this.basePath = new URL(((document.servers as { url: string }[])[0]!).url, 'http://host').pathname.replace(/\/$/, '');
    this.operations = Object.entries(document.paths as Record<string, Record<string, { responses: Record<string, ResponseSpec> }>>).flatMap(
      ([path, item]) =>
        Object.entries(item)
          .filter(([method]) => HTTP_METHODS.includes(method))
          .map(([method, operation]) => ({ method: method.toUpperCase(), path, pattern: pathPattern(path), responses: operation.responses })),
    );
  }

  /** The documented `(method, path)` pairs, e.g. `GET /envelopes/{id}`. */
  get operationKeys(): string[] {
    return this.operations.map(({ method, path }) => `${method} ${path}`);
  }

  /**
   * Every way `response` departs from the document, as sentences; empty when it matches.
   */
  check(response: ObservedResponse): string[] {
    const url = new URL(response.url);
    const method = response.method.toUpperCase();
    const lowerPath = url.pathname.toLowerCase();
    const base = this.basePath.toLowerCase();
    const path = lowerPath === base || lowerPath.startsWith(`${base}/`) ? url.pathname.slice(this.basePath.length) : url.pathname;
    const candidates = this.operations.filter((operation) => operation.pattern.test(path));
    const operation = candidates.find((candidate) => candidate.method === method);
    if (operation === undefined) return this.checkHostAnswer(method, path, candidates.length > 0, response);

    const where = `${method} ${operation.path} answered ${response.status}`;
    const spec = operation.responses[String(response.status)];
    if (spec === undefined) {
      return [`${where}, a status the document does not list for it (it lists ${Object.keys(operation.responses).join(', ')})`];
    }
    const problems: string[] = [];
    for (const [name, header] of Object.entries(spec.headers ?? {})) {
      const value = response.headers.get(name);
      if (value === null) {
        if (header.required) problems.push(`${where} without the required header ${name}`);
        continue;
      }
      if (header.schema !== undefined && !this.validator(header.schema)(value)) {
        problems.push(`${where} with header ${name}: ${JSON.stringify(value)} ${this.ajv.errorsText(this.validator(header.schema).errors, { dataVar: name })}`);
      }
    }
    const mediaType = (response.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
    if (spec.content === undefined) {
      if (response.text !== '') problems.push(`${where} with a body, which the document does not describe`);
      return problems;
    }
    const content = spec.content[mediaType];
    if (content === undefined) {
      problems.push(`${where} with Content-Type ${JSON.stringify(mediaType)}; the document lists ${Object.keys(spec.content).join(', ')}`);
      return problems;
    }
    if (content.schema !== undefined && isJson(mediaType)) {
      const validate = this.validator(content.schema);
      if (!validate(response.body)) problems.push(`${where} with a body that does not match the document: ${this.ajv.errorsText(validate.errors, { dataVar: 'body' })}`);
    }
    return problems;
  }

  /**
   * Validates `value` against a schema of the document (`#/components/schemas/...` references resolved).
   * @returns `null` when it matches, else ajv's complaints
   */
  validateValue(schema: JsonObject, value: unknown): string | null {
    const validate = this.validator(schema);
    return validate(value) ? null : this.ajv.errorsText(validate.errors, { dataVar: 'value' });
  }

  /** Answers for paths or methods the document does not list come from the host: problem details (or a CORS preflight). */
  private checkHostAnswer(method: string, path: string, pathKnown: boolean, response: ObservedResponse): string[] {
    if (method === 'OPTIONS' && pathKnown && response.status === 204 && response.text === '') return [];
    const where = `${method} ${path} (not in the document) answered ${response.status}`;
    if (![404, 405, 413].includes(response.status)) return [`${where}; only 404, 405 and 413 are expected there`];
    if (!(response.headers.get('content-type') ?? '').startsWith('application/problem+json')) return [`${where} without problem details`];
    // HEAD answers carry the headers of the answer without its body.
    if (method === 'HEAD') return [];
    return this.problemSchema(response.body) ? [] : [`${where} with a body that is not problem details: ${this.ajv.errorsText(this.problemSchema.errors, { dataVar: 'body' })}`];
  }

  private validator(schema: JsonObject): ValidateFunction {
    let validate = this.compiled.get(schema);
    if (validate === undefined) {
      validate = this.ajv.compile(rewriteRefs(schema) as JsonObject);
      this.compiled.set(schema, validate);
    }
    return validate;
  }
}

/** `/envelopes/{id}` → a case-insensitive pattern, as the Functions host matches routes. */
function pathPattern(path: string): RegExp {
  const source = path
    .split('/')
    .map((segment) => (/^\{[^}]+\}$/.test(segment) ? '[^/]+' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('/');
  return new RegExp(`^${source}/?$`, 'i');
}

/** `#/components/schemas/X` → the URI under which X was added to ajv. */
function rewriteRefs(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(rewriteRefs);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, inner]) => [
      key,
      key === '$ref' && typeof inner === 'string' ? inner.replace('#/components/schemas/', SCHEMA_URI) : rewriteRefs(inner),
    ]),
  );
}

function isJson(mediaType: string): boolean {
  return mediaType === 'application/json' || mediaType.endsWith('+json');
}

let shared: OpenApiResponseValidator | undefined;

/** The validator of the service's own document (built in this process, as `GET /api/openapi.json` serves it). */
export function serviceDocumentValidator(): OpenApiResponseValidator {
  shared ??= new OpenApiResponseValidator(buildOpenApiDocument());
  return shared;
}

/**
 * @throws Error listing how `response` departs from the service's OpenAPI document
 */
export function checkResponse(response: ObservedResponse): void {
  const problems = serviceDocumentValidator().check(response);
  if (problems.length > 0) {
    throw new Error(`The response does not match the OpenAPI document (docs/openapi.json):\n- ${problems.join('\n- ')}\nBody: ${response.text.slice(0, 2000)}`);
  }
}
