/**
 * Operational hygiene: the log of a whole session, failures
 * included, never contains a password, an access or signing token, a SAS signature or an invitation code.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { resetConfig } from '../../src/lib/config.js';
import { redactSecrets } from '../../src/lib/http/problem.js';
import { resetServices } from '../../src/lib/services.js';
import { corpusPdf, createEnvelopeWithDocument, putToSas, startTestService, type TestService } from '../support/service.js';
import { sentEnvelope, signingTokenFor } from '../support/signing.js';

const captured: string[] = [];
const consoleMethods = ['log', 'info', 'warn', 'error', 'debug'] as const;
const originals = new Map<string, (...args: unknown[]) => void>();
let env: TestService;

beforeAll(async () => {
  for (const method of consoleMethods) {
    originals.set(method, console[method]);
    console[method] = (...args: unknown[]) => captured.push(args.map(String).join(' '));
  }
  // An unreachable timestamp authority makes completion fail with 503 and log its cause.
  process.env.TSA_URL = 'http://127.0.0.1:9/tsa';
  resetConfig();
  resetServices();
  env = await startTestService();
});

afterAll(async () => {
  await env.close();
  delete process.env.TSA_URL;
  resetConfig();
  resetServices();
  for (const method of consoleMethods) console[method] = originals.get(method)!;
});

describe('logs of a whole session', () => {
  test('hold no password, token, SAS signature or invitation code', async () => {
    const secrets: string[] = [];
    const code = await env.invitation();
    const email = `logs-${Date.now()}@example.com`;
    const password = 'a-password-that-must-not-leak';
    secrets.push(code, password);
    expect((await env.api.request('POST', '/Register', { json: { email, password, invitationCode: code } })).status).toBe(201);
    await env.api.request('POST', '/Register', { json: { email: `x${email}`, password, invitationCode: code } });
    await env.api.request('POST', '/Login', { json: { email, password: `${password}-wrong` } });
    secrets.push(`${password}-wrong`);
    const login = await env.api.request('POST', '/Login', { json: { email, password } });
    const token = login.body.token as string;
    secrets.push(token);
    await env.api.request('GET', '/envelopes', { token: `${token}x` });

    const user = { email, password, userId: login.body.user.userId, token };
    const id = await createEnvelopeWithDocument(env.api, user, await corpusPdf('normal.pdf'));
    const ticket = await env.api.request('POST', '/GetUploadUrl', { token, json: { filename: 'b.pdf', mimetype: 'application/pdf' } });
    await putToSas(ticket.body.uploadUrl, Buffer.from('not a pdf'));
    secrets.push(new URL(ticket.body.uploadUrl).searchParams.get('sig')!);
    await env.api.request('PUT', `/envelopes/${id}`, { token, json: { signers: [{ email: 'a@example.com', name: 'A' }] } });
    const failed = await env.api.request('POST', `/envelopes/${id}/complete`, { token });
    expect(failed.status).toBe(503);
    const envelope = await env.api.request('GET', `/envelopes/${id}`, { token });
    secrets.push(new URL(envelope.body.documentUrl).searchParams.get('sig')!);

    // A recipient's signing token (docs/api.md#sending-and-signing-order: never in a log line), used well and badly.
    const sent = await sentEnvelope(env.api, user, { signers: [{ email: 'signer@example.com', name: 'Signer', role: 'signer' }] });
    const signing = await signingTokenFor(user.userId, sent.id, 'signer@example.com');
    secrets.push(signing);
    expect((await env.api.request('GET', '/signing', { token: signing })).status).toBe(200);
    expect((await env.api.request('POST', '/signing/complete', { token: signing, json: { consent: false } })).status).toBe(400);
    expect((await env.api.request('GET', '/signing', { token: `${signing.slice(0, -1)}x` })).status).toBe(401);
    expect((await env.api.request('GET', `/envelopes/${sent.id}`, { token: signing })).status).toBe(401);
    expect((await env.api.request('POST', '/signing/decline', { token: signing, json: { reason: 'Not today.' } })).status).toBe(200);

    // An embedded signing view's URL and token, used well and once replaced, and a page load of the view.
    const embedded = await sentEnvelope(env.api, user, { signers: [{ email: 'embedded@example.com', name: 'Embedded', delivery: 'embedded' }] });
    const view = await env.api.request('POST', `/envelopes/${embedded.id}/recipients/${embedded.recipientIds[0]}/views`, { token, json: {} });
    expect(view.status).toBe(201);
    const viewToken = (view.body.url as string).split('#')[1]!;
    secrets.push(view.body.url, viewToken);
    expect((await env.api.request('GET', '/signing', { token: viewToken })).status).toBe(200);
    expect((await env.api.request('POST', `/envelopes/${embedded.id}/recipients/${embedded.recipientIds[0]}/views`, { token })).status).toBe(201);
    expect((await env.api.request('GET', '/signing', { token: viewToken })).status).toBe(401);
    expect((await env.api.request('POST', '/signing/reassign', { token: viewToken, json: { email: 'x@example.com', name: 'X', reason: 'r' } })).status).toBe(401);

    // An API key (docs/api.md#api-keys: never logged), used well, where only a JWT is accepted, and once deleted.
    const created = await env.api.request('POST', '/apikeys', { token, json: { name: 'logs' } });
    const apiKey = created.body.key as string;
    secrets.push(apiKey, apiKey.slice(12));
    expect((await env.api.request('GET', '/envelopes', { token: apiKey })).status).toBe(200);
    expect((await env.api.request('POST', `/envelopes/${id}/complete`, { token: apiKey })).status).toBe(503);
    expect((await env.api.request('GET', '/apikeys', { token: apiKey })).status).toBe(403);
    expect((await env.api.request('DELETE', `/apikeys/${created.body.id}`, { token })).status).toBe(204);
    expect((await env.api.request('GET', '/envelopes', { token: apiKey })).status).toBe(401);

    const log = captured.join('\n');
    expect(log).toContain('timestamp');
    for (const secret of secrets) expect(log).not.toContain(secret);
    expect(log).not.toMatch(/sig=[A-Za-z0-9%+/=]{20,}/);
    expect(log).not.toMatch(/\$2[aby]\$\d\d\$/);
  });
});

describe('redactSecrets', () => {
  test('blanks SAS signatures, bearer tokens and JWTs', () => {
    const line = redactSecrets(
      'PUT https://acct.blob.core.windows.net/documents/x.pdf?sv=2026-04-06&sig=abc%2Bdef%3D&se=1 Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln and eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ5In0.c2ln key=esk_q3Jx9vLmT0bW8cYh2nKd5sQe7uRf1aZp4iGo6xVwEyM',
    );
    expect(line).not.toContain('q3Jx9vLmT0bW8cYh2nKd5sQe7uRf1aZp4iGo6xVwEyM');
    expect(line).not.toContain('abc%2Bdef');
    expect(line).not.toContain('eyJzdWIiOiJ4In0');
    expect(line).not.toContain('eyJzdWIiOiJ5In0');
    expect(line).toContain('sig=REDACTED');
    expect(line).toContain('esk_REDACTED');
  });
});
