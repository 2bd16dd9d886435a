/**
 * Functions load their handlers on first use (the cold start of bench/README.md): the Functions host imports every
 * `dist/src/functions/*.js` at start-up, so those files load nothing but `@azure/functions` and their
 * registration, and each handler, with zod, jose, the storage SDKs and the service's modules, loads
 * when its function first runs: once, however many first requests arrive together. A handler that
 * fails to load answers like any other fault (500 problem, logged with a correlation id) and is
 * tried again by the next request.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, describe, expect, test } from '@jest/globals';
import functions, { type HttpResponseInit } from '@azure/functions';
import { disableFunctionsHostRegistration, httpFunction, registeredRoutes, type PublicHandler } from '../../src/lib/http/register.js';
import { onFirstUse } from '../../src/lib/onFirstUse.js';
import { queueFunction, registeredQueueFunctions, type QueueHandler } from '../../src/lib/triggers/register.js';
import { FUNCTIONS_DIR } from '../../src/local/loadFunctions.js';
import { getStorage } from '../../src/lib/storage/clients.js';

disableFunctionsHostRegistration();

const scratch = mkdtempSync(path.join(tmpdir(), 'first-use-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/**
 * Imports `files` in a fresh Node process that records every module it resolves; answers the npm
 * packages and the service's own modules (relative to `dist/src`) that loaded.
 * @param then module code run after the imports (top-level await allowed)
 * @param env the child's environment; this process's by default
 */
function modulesLoadedByImporting(files: string[], then = '', env: NodeJS.ProcessEnv = process.env): { packages: string[]; own: string[] } {
  const log = path.join(scratch, `resolved-${Math.random().toString(36).slice(2)}.txt`);
  const hooks = `import { appendFileSync } from 'node:fs';
export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  appendFileSync(${JSON.stringify(log)}, result.url + '\\n');
  return result;
}`;
  const register = `import { register } from 'node:module'; register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(hooks)}`)});`;
  const importAll = `console.warn = () => undefined; for (const file of ${JSON.stringify(files.map((file) => pathToFileURL(file).href))}) await import(file); ${then}`;
  execFileSync(process.execPath, ['--import', `data:text/javascript,${encodeURIComponent(register)}`, '--input-type=module', '-e', importAll], { stdio: ['ignore', 'ignore', 'pipe'], env });
  const urls = readFileSync(log, 'utf8').split('\n').filter((url) => url.startsWith('file:'));
  const distSrc = path.resolve(FUNCTIONS_DIR, '..');
  const packages = new Set<string>();
  const own = new Set<string>();
  for (const file of urls.map((url) => fileURLToPath(url))) {
    const inModules = file.split(`${path.sep}node_modules${path.sep}`)[1];
    if (inModules !== undefined) {
      const parts = inModules.split(path.sep);
      packages.add(parts[0]!.startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0]!);
    } else if (file.startsWith(distSrc)) {
      own.add(path.relative(distSrc, file));
    }
  }
  return { packages: [...packages].sort(), own: [...own].sort() };
}

describe('importing the function files', () => {
  // The Functions host's `main` glob and `loadFunctions` take the folder's own .js files.
  const functionFiles = readdirSync(FUNCTIONS_DIR).filter((name) => name.endsWith('.js')).map((name) => path.join(FUNCTIONS_DIR, name));

  test('loads no package but @azure/functions, and no handler', () => {
    expect(functionFiles.length).toBeGreaterThan(25);
    const loaded = modulesLoadedByImporting(functionFiles);
    expect(loaded.packages).toEqual(['@azure/functions']);
    expect(loaded.own.filter((file) => !file.startsWith(`functions${path.sep}`))).toEqual([
      'lib/afterResponse.js',
      // Tests only (it does nothing unless NODE_ENV is test): where a crash test's process kills itself.
      'lib/crashPoint.js',
      'lib/errors.js',
      'lib/http/idempotency.js',
      'lib/http/problem.js',
      'lib/http/register.js',
      'lib/http/respond.js',
      'lib/lruCache.js',
      'lib/onFirstUse.js',
      // The problem catalogue: data only, read by the problem mapping every function has.
      'lib/problems.js',
      // The run a resumable creating request is in (node:async_hooks only; the ids come with the handler).
      'lib/resumableRun.js',
      'lib/storage/idempotentClaim.js',
      'lib/storage/queues.js',
      'lib/sweepSchedule.js',
      // The telemetry's front (docs/api.md#telemetry): no package; the SDK loads only when a setting asks for it.
      'lib/telemetry/index.js',
      'lib/telemetry/redact.js',
      'lib/triggers/register.js',
    ].map((file) => file.split('/').join(path.sep)));
  });

  test('the check above sees what a handler loads (so it can fail)', () => {
    const loaded = modulesLoadedByImporting([path.resolve(FUNCTIONS_DIR, '../handlers/GetEnvelope.js')]);
    expect(loaded.packages).toEqual(expect.arrayContaining(['zod', '@azure/data-tables', '@azure/storage-blob']));
    expect(loaded.own).toContain(path.join('lib', 'services.js'));
  });
});

describe('telemetry off (docs/api.md#telemetry)', () => {
  const isTelemetryPackage = (name: string) => name.startsWith('@opentelemetry/') || name === '@azure/monitor-opentelemetry' || name === '@azure/monitor-opentelemetry-exporter';
  const functionFiles = readdirSync(FUNCTIONS_DIR).filter((name) => name.endsWith('.js')).map((name) => path.join(FUNCTIONS_DIR, name));
  const withoutTelemetry = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('OTEL_') && name !== 'APPLICATIONINSIGHTS_CONNECTION_STRING'));
  // A first request through the registration, its handler and storage: what a cold start then serves.
  const firstRequest = `const functions = (await import('@azure/functions')).default;
const { registeredRoutes } = await import(${JSON.stringify(pathToFileURL(path.resolve(FUNCTIONS_DIR, '../lib/http/register.js')).href)});
const route = registeredRoutes.find((entry) => entry.name === 'Health');
await route.handler(new functions.HttpRequest({ method: 'GET', url: 'http://localhost/api/health' }), new functions.InvocationContext({ logHandler: () => undefined }));
process.exit(0);`;

  test('the first request loads nothing of OpenTelemetry: not the SDK, not the API', () => {
    const loaded = modulesLoadedByImporting(functionFiles, firstRequest, withoutTelemetry);
    // The request ran: its handler and the storage SDK loaded.
    expect(loaded.own).toContain(path.join('handlers', 'Health.js'));
    expect(loaded.packages).toContain('@azure/data-tables');
    expect(loaded.packages.filter(isTelemetryPackage)).toEqual([]);
    expect(loaded.own).not.toContain(path.join('lib', 'telemetry', 'sdk.js'));
  });

  test('with OTEL_EXPORTER_OTLP_ENDPOINT the same request starts the SDK (so the check above can fail)', () => {
    const loaded = modulesLoadedByImporting(functionFiles, firstRequest, { ...withoutTelemetry, OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9', OTEL_METRIC_EXPORT_INTERVAL: '600000' });
    expect(loaded.own).toContain(path.join('lib', 'telemetry', 'sdk.js'));
    expect(loaded.packages).toEqual(expect.arrayContaining(['@opentelemetry/api', '@opentelemetry/sdk-node']));
  });
});

function capture(): { context: InstanceType<typeof functions.InvocationContext>; logs: string[] } {
  const logs: string[] = [];
  const context = new functions.InvocationContext({ logHandler: (level, ...args) => logs.push(`${level}: ${args.map(String).join(' ')}`) });
  return { context, logs };
}

const request = () => new functions.HttpRequest({ method: 'GET', url: 'http://localhost/api/test' });

describe('a handler loaded on first use', () => {
  test('loads once for concurrent first requests, and answers each', async () => {
    let loads = 0;
    httpFunction('FirstUseOnce', {
      methods: ['GET'],
      authLevel: 'anonymous',
      route: 'first-use/once',
      access: 'public',
      loadHandler: async () => {
        loads += 1;
        await new Promise((resolve) => setTimeout(resolve, 20));
        return async (): Promise<HttpResponseInit> => ({ status: 200, body: 'ok' });
      },
    });
    const route = registeredRoutes.find((entry) => entry.name === 'FirstUseOnce')!;
    const answers = await Promise.all([1, 2, 3, 4].map(() => route.handler(request(), capture().context)));
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200]);
    expect((answers[0]!.headers as Record<string, string>)['x-content-type-options']).toBe('nosniff');
    expect(loads).toBe(1);
    await route.handler(request(), capture().context);
    expect(loads).toBe(1);
  });

  test('that fails to import answers a 500 problem, logged with its correlation id, and is tried again next time', async () => {
    const missing = pathToFileURL(path.join(scratch, 'NoSuchHandler.js')).href;
    let attempts = 0;
    httpFunction('FirstUseMissing', {
      methods: ['GET'],
      authLevel: 'anonymous',
      route: 'first-use/missing',
      access: 'public',
      loadHandler: async () => {
        attempts += 1;
        return ((await import(missing)) as { handler: PublicHandler }).handler;
      },
    });
    const route = registeredRoutes.find((entry) => entry.name === 'FirstUseMissing')!;
    const { context, logs } = capture();
    const answer = await route.handler(request(), context);
    expect(answer.status).toBe(500);
    expect((answer.headers as Record<string, string>)['content-type']).toMatch(/^application\/problem\+json/);
    const problem = JSON.parse(String(answer.body)) as { type: string; correlationId: string };
    expect(problem.type).toBe('urn:problem:internal-error');
    const logged = logs.filter((line) => line.includes(problem.correlationId));
    expect(logged).toHaveLength(1);
    expect(logged[0]).toMatch(/^error: .*NoSuchHandler\.js/);

    await route.handler(request(), capture().context);
    expect(attempts).toBe(2);
  });

  test('of a queue function that fails to import fails the invocation, so the host retries the message', async () => {
    const missing = pathToFileURL(path.join(scratch, 'NoSuchQueueHandler.js')).href;
    queueFunction('FirstUseQueue', {
      queueName: 'first-use',
      loadHandler: async () => ((await import(missing)) as { handler: QueueHandler }).handler,
    });
    const fn = registeredQueueFunctions.find((entry) => entry.name === 'FirstUseQueue')!;
    // The host triggers on a queue that exists; the handler loads under the message's lease, a copy
    // of the message on that queue (src/lib/triggers/register.ts).
    await getStorage().queueService.getQueueClient('first-use').createIfNotExists();
    await expect(fn.handler({}, capture().context)).rejects.toThrow(/NoSuchQueueHandler\.js/);
  });
});

describe('onFirstUse', () => {
  test('shares one load among concurrent callers and keeps its result', async () => {
    let loads = 0;
    const load = onFirstUse(async () => ({ value: ++loads }));
    const results = await Promise.all([load(), load(), load()]);
    expect(new Set(results).size).toBe(1);
    expect(await load()).toBe(results[0]);
    expect(loads).toBe(1);
  });

  test('forgets a failed load, so the next call tries again', async () => {
    let loads = 0;
    const load = onFirstUse(async () => {
      loads += 1;
      if (loads === 1) throw new Error('first load fails');
      return loads;
    });
    await expect(load()).rejects.toThrow('first load fails');
    await expect(load()).resolves.toBe(2);
    await expect(load()).resolves.toBe(2);
  });
});
