/**
 * The one error type of the domain. Library code throws `AppError(code, detail)`; the HTTP layer
 * turns it into an RFC 9457 problem response through the single table in `src/lib/http/problem.ts`.
 * Anything else that is thrown is a bug and becomes a 500 with a correlation id.
 */

/** Every way a request can fail that is not a bug, with the HTTP status it maps to (docs/api.md#conventions). */
export const errorStatus = {
  bad_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  /** Gone for good: a public link used up or past its expiry (docs/api.md#public-links). */
  gone: 410,
  precondition_failed: 412,
  payload_too_large: 413,
  unsupported_media_type: 415,
  unprocessable: 422,
  locked: 423,
  too_many_requests: 429,
  service_unavailable: 503,
  /** A fault of the service; only the problem serializer answers it, with a correlation id. */
  internal_error: 500,
} as const;

export type ErrorCode = keyof typeof errorStatus;

/** One field-level complaint, `path` in dotted form (`signers.0.email`), as in docs/api.md#conventions. */
export interface FieldError {
  path: string;
  message: string;
  /** A recipient's value: the field it was given for. */
  fieldId?: string;
  /** A recipient's value: the rule it breaks (`required`, `maxLength`...), listed in docs/api.md#errors. */
  rule?: string;
  /** The rule's parameters (`{max: 20}` for `maxLength`), listed with the rule in docs/api.md#errors. */
  params?: Record<string, string | number | string[]>;
  /** A bulk send's row (docs/api.md#bulk-send): its number, from 1, data rows only. */
  row?: number;
  /** A bulk send's row: what in the row is wrong (`recipients.0.email`, `prefill.Amount`; a CSV's column name). */
  field?: string;
  /** A bulk send's CSV: the column of the cell that is wrong, as the header names it. */
  column?: string;
}

export interface AppErrorOptions {
  /** Short, stable slug naming the specific problem (`document-encrypted`); becomes `urn:problem:<slug>`. Defaults to the code with dashes. */
  type?: string;
  /** Field-level complaints for validation failures. */
  errors?: FieldError[];
  /** Seconds, sent as `Retry-After` (429, 503). */
  retryAfterSeconds?: number;
  /** Extra response headers (`WWW-Authenticate` with an RFC 6750 error code). */
  headers?: Record<string, string>;
  /** Extension members of the problem body (RFC 9457 §3.2), such as `attemptsLeft`; never secrets. */
  extensions?: Record<string, string | number | boolean>;
  /** The underlying fault, kept for the log only: never sent to the client. */
  cause?: unknown;
}

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly detail: string;
  readonly type: string;
  readonly errors: FieldError[] | undefined;
  readonly retryAfterSeconds: number | undefined;
  readonly headers: Record<string, string>;
  readonly extensions: Record<string, string | number | boolean>;

  /**
   * @param code what kind of failure, which fixes the HTTP status
   * @param detail a sentence a person understands; sent to the client, so it must never contain
   *   secrets, storage error texts or another owner's data
   */
  constructor(code: ErrorCode, detail: string, options: AppErrorOptions = {}) {
    super(detail, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'AppError';
    this.code = code;
    this.detail = detail;
    this.type = problemTypeUri(options.type ?? code.replaceAll('_', '-'));
    this.errors = options.errors;
    this.retryAfterSeconds = options.retryAfterSeconds;
    this.headers = options.headers ?? {};
    this.extensions = options.extensions ?? {};
  }

  get status(): number {
    return errorStatus[this.code];
  }
}

/** The `type` member of a problem of `slug` (RFC 9457 §3.1.1): a URN, as no page documents it on the web. */
export function problemTypeUri(slug: string): string {
  return `urn:problem:${slug}`;
}

/** The slug of a problem `type` member made by {@link problemTypeUri}. */
export function problemSlugOf(type: string): string {
  return type.replace(/^urn:problem:/, '');
}

/** True when `value` is an {@link AppError}, optionally of the given code. */
export function isAppError(value: unknown, code?: ErrorCode): value is AppError {
  return value instanceof AppError && (code === undefined || value.code === code);
}

/**
 * Thrown when a setting is missing or invalid (`src/lib/config.ts`, `src/lib/sweepSchedule.ts`);
 * `message` is the one line to print. Here rather than beside the settings so that code that only
 * recognises it (the problem mapping) does not load zod.
 */
export class ConfigError extends Error {
  constructor(readonly setting: string, problem: string) {
    super(`Invalid setting ${setting}: ${problem}`);
    this.name = 'ConfigError';
  }
}
