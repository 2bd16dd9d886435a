/**
 * End-to-end test support: the API on the local host over real HTTP against the suite's Azurite, and
 * a small client that speaks to it as any HTTP client would.
 */
import { afterAll, beforeAll, expect } from '@jest/globals';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { createInvitation } from '../../src/lib/auth/invitations.js';
import { getServices } from '../../src/lib/services.js';
import { startAzurite, type RunningAzurite } from '../../src/local/azurite.js';
import { startService, type RunningService, type StartServiceOptions } from '../../src/local/service.js';
import { checkResponse } from './openapiValidator.js';

import { CORPUS_DIR } from './corpus.js';
import { patience } from './patience.js';

export { CORPUS_DIR };

export async function corpusPdf(name: string): Promise<Buffer> {
  return await readFile(path.join(CORPUS_DIR, name));
}

export interface ApiResponse<T = unknown> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface RequestOptions {
  token?: string;
  json?: unknown;
  /** Raw body, sent as is. */
  body?: string | Uint8Array;
  headers?: Record<string, string>;
}

/**
 * An HTTP client of the API. Every response is checked against the OpenAPI document
 * (`tests/support/openapiValidator.ts`): a status, header or body the document does not describe
 * makes the request throw, so every end-to-end test also proves the document right.
 */
export class ApiClient {
  constructor(readonly apiUrl: string) {}

  async request<T = any>(method: string, route: string, options: RequestOptions = {}): Promise<ApiResponse<T>> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.token !== undefined) headers.Authorization = `Bearer ${options.token}`;
    let body: string | Uint8Array | undefined = options.body;
    if (options.json !== undefined) {
      headers['Content-Type'] ??= 'application/json';
      body = JSON.stringify(options.json);
    }
    const response = await fetch(`${this.apiUrl}${route}`, { method, headers, ...(body === undefined ? {} : { body }) });
    const text = await response.text();
    let parsed: unknown = text;
    if (text !== '' && /json/.test(response.headers.get('content-type') ?? '')) parsed = JSON.parse(text);
    checkResponse({ method, url: response.url, status: response.status, headers: response.headers, text, body: parsed });
    return { status: response.status, headers: response.headers, body: parsed as T, text };
  }
}

export interface TestUser {
  email: string;
  password: string;
  userId: string;
  token: string;
}

export interface TestService {
  service: RunningService;
  api: ApiClient;
  /** A new invitation code (one use unless told otherwise). */
  invitation(uses?: number, expiresInSeconds?: number): Promise<string>;
  /** Registers and logs in a new user with a unique address. */
  /** Registers (with `name` as the display name, when given) and logs in a new account. */
  newUser(options?: { name?: string }): Promise<TestUser>;
  close(): Promise<void>;
}

/**
 * How often an idle queue is polled in the tests, at most, ms: a test that waits for an e-mail or an
 * event waits for the next poll of its queue, and the local host's 1 s (`host.json`, capped) made
 * that wait half a second on average, many times per file.
 */
export const TEST_MAX_POLLING_INTERVAL_MS = 250;

/**
 * Starts the API on a free port. Call in `beforeAll`, close in `afterAll`.
 * @param options of the local host (for example shorter queue polling); the port is always a free one.
 *   Idle queues are polled every {@link TEST_MAX_POLLING_INTERVAL_MS} at most unless `queueSettings` says otherwise.
 */
export async function startTestService(options: Omit<StartServiceOptions, 'port'> = {}): Promise<TestService> {
  const queueSettings = { maxPollingIntervalMs: TEST_MAX_POLLING_INTERVAL_MS, ...options.queueSettings };
  const service = await startService({ ...options, queueSettings, port: 0 });
  const api = new ApiClient(service.apiUrl);
  const invitation = async (uses = 1, expiresInSeconds?: number) =>
    (await createInvitation({ invitations: getServices().invitations, uses, ...(expiresInSeconds === undefined ? {} : { expiresInSeconds }) })).code;
  return {
    service,
    api,
    invitation,
    async newUser(options: { name?: string } = {}) {
      const email = `user-${randomUUID()}@example.com`;
      const password = `pw-${randomUUID()}`;
      const registered = await api.request('POST', '/Register', { json: { email, password, invitationCode: await invitation(), ...options } });
      if (registered.status !== 201) throw new Error(`register failed: ${registered.status} ${registered.text}`);
      const loggedIn = await api.request('POST', '/Login', { json: { email, password } });
      if (loggedIn.status !== 200) throw new Error(`login failed: ${loggedIn.status} ${loggedIn.text}`);
      return { email, password, userId: registered.body.userId, token: loggedIn.body.token };
    },
    close: () => service.close(),
  };
}

/**
 * Gives the test file an in-memory Azurite of its own, started in a `beforeAll` (call this before the
 * file's other hooks). Call the returned `stop` last in the file's `afterAll`, after its services
 * closed: it stops the Azurite and gives the suite's connection string back (jest runs `afterAll`
 * hooks in the order they are declared, so this does not register one).
 * A file that changes settings a background function acts on (the sweeper's completions, the
 * deliveries queue) needs one: every test process's timer and queue functions poll the suite's
 * shared Azurite, each with its own settings, and would act on this file's envelopes.
 */
export function ownAzuriteForFile(): { stop: () => Promise<void> } {
  let azurite: RunningAzurite | undefined;
  const saved = process.env.STORAGE_CONNECTION_STRING;
  beforeAll(async () => {
    azurite = await startAzurite();
    process.env.STORAGE_CONNECTION_STRING = azurite.connectionString;
  });
  return {
    async stop() {
      await azurite?.stop();
      process.env.STORAGE_CONNECTION_STRING = saved;
    },
  };
}

/** An HTTP answer read to its end. */
/** What {@link serviceForFile} started: the service, its API client and a registered owner. */
export interface FileService {
  env: TestService;
  api: ApiClient;
  owner: TestUser;
}

/**
 * The set-up of a test file that talks to the API: starts the service and registers an owner before
 * the file's tests (`ready` receives them, and may prepare more), and closes the service after them.
 * @param options of the local host, as {@link startTestService} takes them
 */
export function serviceForFile(ready: (started: FileService) => unknown, options: Omit<StartServiceOptions, 'port'> & { ownerName?: string } = {}): void {
  let env: TestService | undefined;
  beforeAll(async () => {
    const { ownerName, ...serviceOptions } = options;
    env = await startTestService(serviceOptions);
    await ready({ env, api: env.api, owner: await env.newUser(ownerName === undefined ? {} : { name: ownerName }) });
  });
  afterAll(async () => {
    await env?.close();
  });
}

/**
 * Starts a service of the current describe block (or file) with `settings` in the environment before
 * its tests, and closes it and gives the environment back after them: for tests of settings that the
 * suite's other services must not see (limits, quotas).
 * @returns `env()`, the started service (only once the block's `beforeAll` ran)
 */
export function serviceWithSettings(settings: Record<string, string>): { env: () => TestService } {
  let env: TestService | undefined;
  const saved: Record<string, string | undefined> = {};
  beforeAll(async () => {
    for (const [name, value] of Object.entries(settings)) {
      saved[name] = process.env[name];
      process.env[name] = value;
    }
    env = await startTestService();
  }, patience(60_000));
  afterAll(async () => {
    await env?.close();
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  });
  return { env: () => env! };
}

export interface FetchedAnswer {
  status: number;
  headers: Headers;
  text: string;
}

/**
 * `fetch`, reading the answer's body to its end. Use it where a test looks at the status or headers
 * only: a body left unread holds its connection open (to the Azurite that the whole run shares, which
 * never closes it), and an open connection keeps a Jest worker from exiting at the end of the run.
 */
export async function fetchAnswer(url: string | URL, init?: RequestInit): Promise<FetchedAnswer> {
  const response = await fetch(url, init);
  return { status: response.status, headers: response.headers, text: await response.text() };
}

/** PUTs `bytes` to an upload SAS URL as a browser or curl would. */
export async function putToSas(uploadUrl: string, bytes: Uint8Array, contentType = 'application/pdf'): Promise<FetchedAnswer> {
  return await fetchAnswer(uploadUrl, { method: 'PUT', headers: { 'x-ms-blob-type': 'BlockBlob', 'Content-Type': contentType }, body: bytes });
}

/** Creates an envelope for `user` and uploads `bytes` as its document. */
export async function createEnvelopeWithDocument(api: ApiClient, user: TestUser, bytes: Uint8Array | null, filename = 'contract.pdf'): Promise<string> {
  const ticket = await api.request('POST', '/GetUploadUrl', { token: user.token, json: { filename, mimetype: 'application/pdf' } });
  if (ticket.status !== 201) throw new Error(`GetUploadUrl failed: ${ticket.status} ${ticket.text}`);
  if (bytes !== null) {
    const put = await putToSas(ticket.body.uploadUrl, bytes);
    if (put.status !== 201) throw new Error(`upload failed: ${put.status} ${put.text}`);
  }
  return ticket.body.envelopeId;
}

/**
 * An active template of `user` with one role (`client`, named Client) and a signature field for it,
 * made over the API from the corpus's `normal.pdf` (docs/api.md#templates). Returns its id.
 */
export async function activeOneRoleTemplate(api: ApiClient, user: TestUser): Promise<string> {
  const created = await api.request('POST', '/templates', { token: user.token, json: { name: 'Crash', filename: 'crash.pdf', mimetype: 'application/pdf' } });
  expect(created.status).toBe(201);
  const id = created.body.template.id as string;
  expect((await putToSas(created.body.uploadUrl, await corpusPdf('normal.pdf'))).status).toBe(201);
  const updated = await api.request('PATCH', `/templates/${id}`, {
    token: user.token,
    json: { roles: [{ id: 'client', name: 'Client' }], fields: [{ roleId: 'client', type: 'signature', page: 1, x: 0.1, y: 0.8, width: 0.3, height: 0.08 }], status: 'active' },
  });
  expect(updated.status).toBe(200);
  return id;
}

/** Problem details as docs/api.md#conventions requires (RFC 9457). */
export function expectProblem(response: ApiResponse, status: number): void {
  const body = response.body as { type?: unknown; title?: unknown; status?: unknown; detail?: unknown };
  if (response.status !== status) throw new Error(`expected ${status}, got ${response.status}: ${response.text}`);
  if (!(response.headers.get('content-type') ?? '').startsWith('application/problem+json')) {
    throw new Error(`expected application/problem+json, got ${response.headers.get('content-type')}`);
  }
  if (typeof body.type !== 'string' || typeof body.title !== 'string' || body.status !== status || typeof body.detail !== 'string' || body.detail === '') {
    throw new Error(`not a problem details body: ${response.text}`);
  }
}

/** {@link expectProblem}, and its `type` is `urn:problem:<type>`. */
export function expectType(response: ApiResponse, status: number, type: string): void {
  expectProblem(response, status);
  expect((response.body as { type: string }).type).toBe(`urn:problem:${type}`);
}
