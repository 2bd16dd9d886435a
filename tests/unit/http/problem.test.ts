/**
 * The one mapping from anything thrown to an answer (docs/api.md#conventions): AppErrors keep their status, an
 * unreachable storage service is 503 with Retry-After, and anything else is a 500 that carries only a
 * correlation id, the same one the log line names.
 */
import { describe, expect, test } from '@jest/globals';
import functions from '@azure/functions';
import { AppError } from '../../../src/lib/errors.js';
import { toProblemResponse } from '../../../src/lib/http/problem.js';

function capture(): { context: InstanceType<typeof functions.InvocationContext>; logs: string[] } {
  const logs: string[] = [];
  const context = new functions.InvocationContext({ logHandler: (level, ...args) => logs.push(`${level}: ${args.map(String).join(' ')}`) });
  return { context, logs };
}

const body = (init: { body?: unknown }) => JSON.parse(String(init.body)) as Record<string, unknown>;

describe('toProblemResponse', () => {
  test('an unexpected fault is 500 with a correlation id in the body and the log, and nothing of the fault in the body', () => {
    const { context, logs } = capture();
    const fault = new TypeError('Cannot read properties of undefined (reading "secretThing")');
    const init = toProblemResponse(fault, context);
    expect(init.status).toBe(500);
    expect((init.headers as Record<string, string>)['content-type']).toMatch(/^application\/problem\+json/);
    const problem = body(init);
    expect(problem).toMatchObject({ type: 'urn:problem:internal-error', status: 500, correlationId: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    expect(problem.detail).toContain(problem.correlationId as string);
    expect(JSON.stringify(problem)).not.toContain('secretThing');
    expect(JSON.stringify(problem)).not.toContain('TypeError');
    expect(logs.filter((line) => line.includes(problem.correlationId as string))).toHaveLength(1);
    expect(logs.join('\n')).toContain('secretThing');
  });

  test('storage that cannot be reached is 503 with Retry-After, without the network error text', () => {
    const { context } = capture();
    const unreachable = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:10002'), { code: 'ECONNREFUSED' });
    const init = toProblemResponse(unreachable, context);
    expect(init.status).toBe(503);
    expect((init.headers as Record<string, string>)['retry-after']).toMatch(/^\d+$/);
    expect(String(init.body)).not.toContain('ECONNREFUSED');
  });

  test('an AppError keeps its status, type, field errors and headers', () => {
    const { context } = capture();
    const init = toProblemResponse(
      new AppError('too_many_requests', 'Slow down.', { type: 'login-throttled', retryAfterSeconds: 12.2, errors: [{ path: 'email', message: 'x' }] }),
      context,
    );
    expect(init.status).toBe(429);
    expect((init.headers as Record<string, string>)['retry-after']).toBe('13');
    expect(body(init)).toEqual({ type: 'urn:problem:login-throttled', title: 'Too Many Requests', status: 429, detail: 'Slow down.', errors: [{ path: 'email', message: 'x' }] });
    const unauthorized = toProblemResponse(new AppError('unauthorized', 'No token.'), context);
    expect((unauthorized.headers as Record<string, string>)['www-authenticate']).toBe('Bearer');
  });
});
