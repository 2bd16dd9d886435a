/**
 * A typed client from the served OpenAPI document ([docs/api.md#a-typed-client](../../docs/api.md#a-typed-client)):
 * openapi-typescript generates types from `GET /api/openapi.json` of a started service, and the
 * project's TypeScript (`tsc --noEmit --strict`) checks a program that, for every path and method of
 * the document, uses the parameters, the request body and every success response's content, each of a
 * type that is neither `unknown` nor `never`, without a cast; and passes values as an integrator would
 * (`limit: 10`, a template's use without `send`, a signer without `role`).
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import openapiTS, { astToString } from 'openapi-typescript';
import { patience } from '../support/patience.js';
import { startTestService, type TestService } from '../support/service.js';

const run = promisify(execFile);
const TSC = path.resolve('node_modules/typescript/bin/tsc');
const METHODS = ['get', 'put', 'post', 'patch', 'delete'] as const;

let env: TestService;
let dir: string;

beforeAll(async () => {
  env = await startTestService({ triggers: false });
  dir = await mkdtemp(path.join(os.tmpdir(), 'typed-client-'));
});
afterAll(async () => {
  await env?.close();
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

interface Operation {
  parameters?: { in: string }[];
  requestBody?: { content: Record<string, unknown> };
  responses: Record<string, { content?: Record<string, unknown> }>;
}

/** The program: one function per operation, using each of its request and success response types. */
function program(paths: Record<string, Record<string, unknown>>): { text: string; operations: number } {
  const lines = [
    "import type { paths } from './api.js';",
    '/** `true` only for a type a client can use: neither `unknown` (nor `any`) nor `never`. */',
    'type Usable<T> = 0 extends 1 & T ? false : [unknown] extends [T] ? false : [T] extends [never] ? false : true;',
    '',
  ];
  let operations = 0;
  for (const [route, item] of Object.entries(paths)) {
    const shared = (item.parameters as { in: string }[] | undefined) ?? [];
    for (const method of METHODS) {
      const operation = item[method] as Operation | undefined;
      if (operation === undefined) continue;
      const n = operations++;
      const op = `paths[${JSON.stringify(route)}][${JSON.stringify(method)}]`;
      lines.push(`// ${method.toUpperCase()} ${route}`, `type Op${n} = ${op};`);
      const places = new Set([...shared, ...(operation.parameters ?? [])].map((parameter) => parameter.in));
      for (const place of places) {
        lines.push(`export const params${n}${place}: Usable<NonNullable<Op${n}['parameters'][${JSON.stringify(place)}]>> = true;`);
      }
      for (const media of Object.keys(operation.requestBody?.content ?? {})) {
        lines.push(`export const body${n}_${media.replace(/\W/g, '_')}: Usable<NonNullable<Op${n}['requestBody']>['content'][${JSON.stringify(media)}]> = true;`);
      }
      for (const [status, response] of Object.entries(operation.responses)) {
        if (!/^2/.test(status)) continue;
        for (const media of Object.keys(response.content ?? {})) {
          const type = `Op${n}['responses'][${status}]['content'][${JSON.stringify(media)}]`;
          lines.push(`export const ok${n}_${status}_${media.replace(/\W/g, '_')}: Usable<${type}> = true;`);
          // The answer is usable as a value: read it into a variable of its own type.
          lines.push(`export function read${n}_${status}_${media.replace(/\W/g, '_')}(answer: ${type}): ${type} { const kept: ${type} = answer; return kept; }`);
        }
      }
      lines.push('');
    }
  }
  // Values an integrator writes, each checked against its generated type.
  lines.push(
    "export const listEnvelopes: NonNullable<paths['/envelopes']['get']['parameters']['query']> = { limit: 10, status: 'sent' };",
    "export const listTemplates: NonNullable<paths['/templates']['get']['parameters']['query']> = { limit: 100 };",
    "type UseBody = NonNullable<paths['/templates/{id}/envelopes']['post']['requestBody']>['content']['application/json'];",
    "export const useTemplate: UseBody = { recipients: [{ roleName: 'Tenant', email: 'ada@example.com', name: 'Ada Lovelace' }] };",
    "type UpdateBody = NonNullable<paths['/envelopes/{id}']['patch']['requestBody']>['content']['application/json'];",
    "export const addSigner: UpdateBody = { signers: [{ email: 'ada@example.com', name: 'Ada Lovelace' }] };",
    "export const voidWithReason: UpdateBody = { status: 'voided', voidedReason: 'The price changed.' };",
    "type Envelope = paths['/envelopes/{id}']['get']['responses'][200]['content']['application/json'];",
    "export function reasonOf(envelope: Envelope): string | null { return envelope.voidedReason; }",
    "export function pageSizeOf(envelopes: paths['/envelopes']['get']['responses'][200]['content']['application/json']): number { return envelopes.length; }",
  );
  return { text: lines.join('\n'), operations };
}

describe('a typed client generated with openapi-typescript from the served document', () => {
  test('type-checks with tsc --strict for every operation, its parameters, bodies and success responses, without casts', async () => {
    const served = await env.api.request('GET', '/openapi.json');
    expect(served.status).toBe(200);
    const document = served.body as { paths: Record<string, Record<string, unknown>> };
    // As docs/api.md says: defaults of request properties (`send`, `role`) stay optional.
    const ast = await openapiTS(served.text, { defaultNonNullable: false });
    await writeFile(path.join(dir, 'api.d.ts'), astToString(ast));
    const { text, operations } = program(document.paths);
    expect(operations).toBeGreaterThanOrEqual(40);
    expect(text).not.toMatch(/\bas\b/);
    await writeFile(path.join(dir, 'client.ts'), text);
    const checked = await run(process.execPath, [TSC, '--noEmit', '--strict', '--target', 'es2022', '--module', 'nodenext', '--moduleResolution', 'nodenext', 'client.ts'], { cwd: dir }).then(
      (result) => ({ code: 0, output: result.stdout + result.stderr }),
      (error: { code?: number; stdout?: string; stderr?: string }) => ({ code: error.code ?? 1, output: `${error.stdout ?? ''}${error.stderr ?? ''}` }),
    );
    expect(checked).toEqual({ code: 0, output: '' });
  }, patience(180_000));
});
