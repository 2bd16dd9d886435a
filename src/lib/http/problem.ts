/**
 * RFC 9457 problem details: the one mapping from anything thrown to an HTTP answer (docs/api.md#conventions).
 */
import { randomUUID } from 'node:crypto';
import type { HttpResponseInit, InvocationContext } from '@azure/functions';
import { AppError, ConfigError, errorStatus, type FieldError } from '../errors.js';
import { withStandardHeaders } from './respond.js';
import { problem, problemType } from '../problems.js';

/** The `title` of each status (its reason phrase, RFC 9110 §15). */
export const problemTitles: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  410: 'Gone',
  412: 'Precondition Failed',
  413: 'Content Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Content',
  423: 'Locked',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

/** The body of every error response (RFC 9457 §3, plus `errors` and `correlationId` extension members). */
export interface ProblemDetails {
  type: string;
  title: string;
  status: number;
  detail: string;
  errors?: FieldError[];
  correlationId?: string;
  /** Signer authentication (403 `authentication-failed`, 423): wrong codes still allowed. */
  attemptsLeft?: number;
  /** A purge that left the sealed PDF (409 `sealed-immutable`): when its immutability period ends (docs/api.md#sealed-pdfs-are-immutable). */
  immutableUntil?: string;
  /** A send refused because of one of several documents (docs/api.md#several-documents): the document's id. */
  documentId?: string;
  /** With `documentId`: the document's name. */
  documentName?: string;
}

/** A problem response for an {@link AppError}: status from the single code table, `Retry-After` where given. */
export function problemResponse(error: AppError, headers: Record<string, string> = {}): HttpResponseInit {
  const status = errorStatus[error.code];
  const body: ProblemDetails = { ...error.extensions, type: error.type, title: problemTitles[status] ?? 'Error', status, detail: error.detail };
  if (error.errors !== undefined) body.errors = error.errors;
  const extra: Record<string, string> = { ...error.headers, ...headers };
  if (error.retryAfterSeconds !== undefined) extra['Retry-After'] = String(Math.max(1, Math.ceil(error.retryAfterSeconds)));
  if (status === 401) extra['WWW-Authenticate'] ??= 'Bearer';
  return problemInit(status, body, extra);
}

/**
 * Turns any thrown value into a response. {@link AppError}s keep their status; a storage service that
 * cannot be reached becomes 503 with `Retry-After`; everything else is a bug: logged once with a
 * correlation id (never the request body), answered 500 with that id and nothing else.
 */
export function toProblemResponse(error: unknown, context: InvocationContext): HttpResponseInit {
  if (error instanceof AppError) {
    if (error.status >= 500) context.warn(`${error.code}: ${error.detail}`, describeCause(error.cause));
    return problemResponse(error);
  }
  if (isStorageUnreachable(error)) {
    context.warn('Storage is unreachable:', describeCause(error));
    return problemResponse(
      problem('storageUnavailable', { detail: 'Storage is unavailable right now; retry shortly.', retryAfterSeconds: 5 }),
    );
  }
  const correlationId = randomUUID();
  const summary = error instanceof ConfigError ? error.message : describeCause(error);
  context.error(`Unexpected error, correlation id ${correlationId}:`, summary);
  return problemInit(500, {
    type: problemType('internalError'),
    title: problemTitles[500]!,
    status: 500,
    detail: `An unexpected error occurred. Quote correlation id ${correlationId} when reporting it.`,
    correlationId,
  }, {});
}

function problemInit(status: number, body: ProblemDetails, headers: Record<string, string>): HttpResponseInit {
  return withStandardHeaders({
    status,
    body: JSON.stringify(body),
    headers: { 'Content-Type': 'application/problem+json; charset=utf-8', 'Cache-Control': 'no-store', ...headers },
  });
}

const unreachableCodes = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'REQUEST_SEND_ERROR']);

function isStorageUnreachable(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  const statusCode = (error as { statusCode?: unknown } | null)?.statusCode;
  return (typeof code === 'string' && unreachableCodes.has(code)) || statusCode === 503;
}

/**
 * A one-line description of a fault for the log: its name, code and message, with anything that looks
 * like a SAS signature or bearer token blanked out.
 */
export function describeCause(error: unknown): string {
  if (error === undefined) return '';
  const parts: string[] = [];
  if (error instanceof Error) {
    parts.push(error.name);
    const code = (error as { code?: unknown }).code;
    if (typeof code === 'string') parts.push(code);
    parts.push(error.message);
    if (error.stack) parts.push(error.stack.split('\n').slice(1, 6).join(' | '));
  } else {
    parts.push(String(error));
  }
  return redactSecrets(parts.join(' '));
}

/** Blanks SAS signatures (`sig=`), bearer tokens, JWT-shaped strings and API keys (`esk_...`) out of a log line. */
export function redactSecrets(text: string): string {
  return text
    .replace(/([?&]sig=)[^&\s"']+/gi, '$1REDACTED')
    .replace(/(Bearer\s+)[A-Za-z0-9._~+/=-]+/gi, '$1REDACTED')
    .replace(/eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*/g, 'JWT-REDACTED')
    .replace(/esk_[A-Za-z0-9_-]{8,}/g, 'esk_REDACTED');
}
