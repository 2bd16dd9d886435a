/**
 * Messages between the main thread and a seal worker. Errors cross the thread boundary as plain
 * data (structured clone drops classes) and become an AppError or an Error again on arrival.
 */
import { AppError, isAppError, problemSlugOf } from '../errors.js';
import type { ErrorCode } from '../errors.js';
import type { WorkerJob, WorkerResult } from './types.js';

export interface SealRequest {
  id: number;
  job: WorkerJob;
}

export type SerializedError =
  | { kind: 'app'; code: ErrorCode; detail: string; type: string; retryAfterSeconds: number | undefined; cause: string | undefined }
  | { kind: 'fault'; name: string; message: string; stack: string | undefined; cause: string | undefined };

export type SealResponse = { id: number; ok: true; result: WorkerResult } | { id: number; ok: false; error: SerializedError };

function describe(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (value instanceof Error) {
    const inner = describe(value.cause);
    return `${value.name}: ${value.message}${inner === undefined ? '' : ` (cause: ${inner})`}`;
  }
  return String(value);
}

/** Turns anything thrown in the worker into data the main thread can rebuild. */
export function serializeError(error: unknown): SerializedError {
  if (isAppError(error)) {
    return {
      kind: 'app',
      code: error.code,
      detail: error.detail,
      type: problemSlugOf(error.type),
      retryAfterSeconds: error.retryAfterSeconds,
      cause: describe(error.cause),
    };
  }
  if (error instanceof Error) {
    return { kind: 'fault', name: error.name, message: error.message, stack: error.stack, cause: describe(error.cause) };
  }
  return { kind: 'fault', name: 'Error', message: String(error), stack: undefined, cause: undefined };
}

/** Rebuilds an error serialized by {@link serializeError}; the cause travels as text, for the log only. */
export function deserializeError(error: SerializedError): Error {
  const cause = error.cause === undefined ? undefined : new Error(error.cause);
  if (error.kind === 'app') {
    return new AppError(error.code, error.detail, {
      type: error.type,
      ...(error.retryAfterSeconds === undefined ? {} : { retryAfterSeconds: error.retryAfterSeconds }),
      ...(cause === undefined ? {} : { cause }),
    });
  }
  const fault = new Error(error.message, cause === undefined ? undefined : { cause });
  fault.name = error.name;
  if (error.stack !== undefined) fault.stack = error.stack;
  return fault;
}
