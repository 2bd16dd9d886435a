/**
 * Request bodies: media type, size and JSON syntax checked before the zod schema (docs/api.md#conventions).
 */
import type { HttpRequest } from '@azure/functions';
import type { z } from 'zod';
import { AppError, type FieldError } from '../errors.js';
import { problem } from '../problems.js';

/** Largest JSON request body, bytes (docs/api.md#conventions). */
export const MAX_JSON_BODY_BYTES = 1024 * 1024;

/**
 * Reads the body as JSON and validates it with `schema`.
 * @throws AppError 415 when the media type is not JSON, 413 when over {@link MAX_JSON_BODY_BYTES}
 *   (checked from `Content-Length` before reading, and while reading), 400 for malformed JSON or a
 *   body the schema refuses (each complaint in `errors`, unknown fields named).
 */
export async function readJsonBody<Schema extends z.ZodType>(request: HttpRequest, schema: Schema): Promise<z.infer<Schema>> {
  const mediaType = (request.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  if (mediaType !== 'application/json' && !/^application\/[a-z0-9.+-]+\+json$/.test(mediaType)) {
    throw problem('unsupportedMediaType');
  }
  const declared = Number(request.headers.get('content-length') ?? Number.NaN);
  if (Number.isFinite(declared) && declared > MAX_JSON_BODY_BYTES) throw tooLarge();
  const text = await readCapped(request);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw problem('malformedJson');
  }
  return parseWith(schema, value);
}

/** The request's media type, lower-case, without parameters (`text/csv`). */
export function mediaTypeOf(request: HttpRequest): string {
  return (request.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
}

/**
 * Reads a `text/csv` body (RFC 4180, UTF-8) as text, within the size of a JSON body.
 * @throws AppError 415 when the media type is not `text/csv`, 413 when over {@link MAX_JSON_BODY_BYTES}
 */
export async function readCsvBody(request: HttpRequest): Promise<string> {
  if (mediaTypeOf(request) !== 'text/csv') throw problem('unsupportedMediaType');
  const declared = Number(request.headers.get('content-length') ?? Number.NaN);
  if (Number.isFinite(declared) && declared > MAX_JSON_BODY_BYTES) throw tooLarge();
  return await readCapped(request);
}

/**
 * Validates `value` with `schema`.
 * @throws AppError 400 (`validation-failed`) listing every complaint as `{path, message}`
 */
export function parseWith<Schema extends z.ZodType>(schema: Schema, value: unknown, what = 'request body'): z.infer<Schema> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const errors: FieldError[] = result.error.issues.flatMap((issue) => {
    const base = issue.path.map(String);
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => ({ path: [...base, key].join('.'), message: 'is not a known field' }));
    }
    return [{ path: base.join('.') || '(root)', message: issue.message }];
  });
  const first = errors[0]!;
  throw problem('validationFailed', { detail: `The ${what} is invalid: ${first.path} ${first.message}.`, errors });
}

/**
 * Reads a body that is a file, as its bytes (docs/api.md#files-from-signers): refused by its declared
 * `Content-Length` before it is read, else as soon as it grows past `maxBytes`.
 * @param tooLarge the refusal of a body over `maxBytes` (a 413)
 * @throws what `tooLarge` makes
 */
export async function readFileBody(request: HttpRequest, maxBytes: number, tooLarge: () => Error): Promise<Uint8Array> {
  const declared = Number(request.headers.get('content-length') ?? Number.NaN);
  if (Number.isFinite(declared) && declared > maxBytes) throw tooLarge();
  if (request.body === null) return new Uint8Array(0);
  const chunks: Uint8Array[] = [];
  let total = 0;
  for await (const chunk of request.body as unknown as AsyncIterable<Uint8Array>) {
    total += chunk.byteLength;
    if (total > maxBytes) throw tooLarge();
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

async function readCapped(request: HttpRequest): Promise<string> {
  return new TextDecoder('utf-8', { fatal: false }).decode(await readFileBody(request, MAX_JSON_BODY_BYTES, tooLarge));
}

function tooLarge(): AppError {
  return problem('payloadTooLarge', { detail: `The request body is larger than ${MAX_JSON_BODY_BYTES} bytes.` });
}
