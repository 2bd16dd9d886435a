/**
 * Text the service accepts (docs/api.md#text-the-service-accepts) over real HTTP against real Azurite: each text that used to
 * reach storage and fail there with 500 (a signer name, a field label, a file name, a decline reason,
 * a webhook description holding U+2028; a file name holding an unpaired surrogate) is now refused with
 * 400 naming the field, and the refused request changes nothing. Links the service builds come from
 * `PUBLIC_BASE_URL`, never from the request's `Host`.
 */
import { request as httpRequest } from 'node:http';
import { describe, expect, test } from '@jest/globals';
import { corpusPdf, createEnvelopeWithDocument, expectProblem, serviceForFile, type ApiResponse, type TestService, type TestUser } from '../support/service.js';
import { auditTrail, emailsDispatched, sentEnvelope, signingTokenFor } from '../support/signing.js';

let env: TestService;
let owner: TestUser;
serviceForFile((started) => ({ env, owner } = started), { triggers: false });

const LINE_SEPARATOR = '\u2028';
const LONE_SURROGATE = '\uD800';
const ada = { id: '0190b2a4-0000-7000-8000-000000000001', email: 'ada@example.com', name: 'Ada Lovelace' };
const textField = (label: string) => ({ recipientId: ada.id, type: 'text', page: 1, x: 0.1, y: 0.1, width: 0.2, height: 0.1, label });

/** A 400 `validation-failed` whose `errors` name exactly `path`. */
function expectRefusedField(response: ApiResponse<any>, path: string): void {
  expectProblem(response, 400);
  expect(response.body.type).toBe('urn:problem:validation-failed');
  expect((response.body.errors as { path: string }[]).map((error) => error.path)).toEqual([path]);
}

/** The envelope and its audit trail as the owner reads them, to compare before and after a refusal. */
async function snapshot(id: string): Promise<{ etag: string | null; signers: unknown; fields: unknown; audit: unknown[] }> {
  const envelope = await env.api.request('GET', `/envelopes/${id}`, { token: owner.token });
  return { etag: envelope.headers.get('etag'), signers: envelope.body.signers, fields: envelope.body.fields, audit: await auditTrail(env.api, owner, id) };
}

async function envelopeCount(): Promise<number> {
  return (await env.api.request('GET', '/envelopes', { token: owner.token })).body.length;
}

describe('texts holding refused characters: 400 naming the field, nothing changed (docs/api.md#text-the-service-accepts)', () => {
  test('a signer name with U+2028', async () => {
    const id = await createEnvelopeWithDocument(env.api, owner, await corpusPdf('normal.pdf'));
    const before = await snapshot(id);
    const response = await env.api.request('PUT', `/envelopes/${id}`, { token: owner.token, json: { signers: [{ ...ada, name: `Ada${LINE_SEPARATOR}Lovelace` }] } });
    expectRefusedField(response, 'signers.0.name');
    expect(response.body.errors[0].message).toContain('U+2028');
    expect(await snapshot(id)).toEqual(before);
  });

  test('a field label with U+2028', async () => {
    const id = await createEnvelopeWithDocument(env.api, owner, await corpusPdf('normal.pdf'));
    expect((await env.api.request('PUT', `/envelopes/${id}`, { token: owner.token, json: { signers: [ada] } })).status).toBe(200);
    const before = await snapshot(id);
    const response = await env.api.request('PATCH', `/envelopes/${id}`, { token: owner.token, json: { fields: [textField(`Start${LINE_SEPARATOR}date`)] } });
    expectRefusedField(response, 'fields.0.label');
    expect(await snapshot(id)).toEqual(before);
  });

  test.each([
    ['U+2028', `con${LINE_SEPARATOR}tract.pdf`],
    ['an unpaired surrogate', `con${LONE_SURROGATE}tract.pdf`],
  ])('a file name with %s (GetUploadUrl): no envelope is created', async (_what, filename) => {
    const count = await envelopeCount();
    const response = await env.api.request('POST', '/GetUploadUrl', { token: owner.token, json: { filename, mimetype: 'application/pdf' } });
    expectRefusedField(response, 'filename');
    expect(await envelopeCount()).toBe(count);
  });

  test('a decline reason with U+2028: the recipient has not declined, and still can', async () => {
    const { id } = await sentEnvelope(env.api, owner, { signers: [{ email: 'bob@example.com', name: 'Bob Builder' }] });
    const token = await signingTokenFor(owner.userId, id, 'bob@example.com');
    await emailsDispatched(owner.userId, id);
    const before = await snapshot(id);
    const response = await env.api.request('POST', '/signing/decline', { token, json: { reason: `Wrong${LINE_SEPARATOR}date` } });
    expectRefusedField(response, 'reason');
    expect(await snapshot(id)).toEqual(before);
    expect((await env.api.request('POST', '/signing/decline', { token, json: { reason: 'Wrong date' } })).status).toBe(200);
  });

  test('a typed signature with U+2029', async () => {
    const { id } = await sentEnvelope(env.api, owner, { signers: [{ email: 'cy@example.com', name: 'Cy Signer' }] });
    const token = await signingTokenFor(owner.userId, id, 'cy@example.com');
    await emailsDispatched(owner.userId, id);
    const before = await snapshot(id);
    const response = await env.api.request('POST', '/signing/complete', { token, json: { consent: true, signature: { typed: 'Cy\u2029Signer' } } });
    expectRefusedField(response, 'signature');
    expect(await snapshot(id)).toEqual(before);
  });

  test('a webhook description with U+2028: no webhook is created', async () => {
    const response = await env.api.request('POST', '/webhooks', { token: owner.token, json: { url: 'https://93.184.215.14/hooks', description: `CRM${LINE_SEPARATOR}sync` } });
    expectRefusedField(response, 'description');
    expect((await env.api.request('GET', '/webhooks', { token: owner.token })).body).toEqual([]);
  });

  test('the same texts without the refused character are accepted', async () => {
    const ticket = await env.api.request('POST', '/GetUploadUrl', { token: owner.token, json: { filename: 'contract 😀.pdf', mimetype: 'application/pdf' } });
    expect(ticket.status).toBe(201);
    const updated = await env.api.request('PUT', `/envelopes/${ticket.body.envelopeId}`, { token: owner.token, json: { signers: [{ ...ada, name: 'Ada 😀 Lovelace' }], fields: [textField('Start date 😀')] } });
    expect(updated.status).toBe(200);
    expect(updated.body.signers[0].name).toBe('Ada 😀 Lovelace');
    const webhook = await env.api.request('POST', '/webhooks', { token: owner.token, json: { url: 'https://93.184.215.14/hooks', description: 'CRM sync 😀' } });
    expect(webhook.status).toBe(201);
    expect((await env.api.request('DELETE', `/webhooks/${webhook.body.id}`, { token: owner.token })).status).toBe(204);
  });
});

/** A request over node:http with a header value of raw bytes (latin-1, as HTTP/1.1 carries them). */
async function putWithUserAgent(url: string, userAgent: string, token: string, body: string): Promise<number> {
  return await new Promise((resolve, reject) => {
    const request = httpRequest(url, { method: 'PUT', headers: { 'User-Agent': userAgent, Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' } }, (response) => {
      response.resume();
      response.on('end', () => resolve(response.statusCode ?? 0));
    });
    request.on('error', reject);
    request.end(body);
  });
}

describe('texts that come in headers', () => {
  test('a User-Agent holding C1 control bytes (recorded in the audit trail) is no fault', async () => {
    const id = await createEnvelopeWithDocument(env.api, owner, null);
    const status = await putWithUserAgent(`${env.service.apiUrl}/envelopes/${id}`, 'agent\u0085\u0080\u009f/1.0', owner.token, JSON.stringify({ signers: [ada] }));
    expect(status).toBe(200);
    expect((await auditTrail(env.api, owner, id)).at(-1)).toMatchObject({ type: 'envelope.signers_replaced' });
  });
});

/** GET over node:http, whose `Host` header is whatever the caller says (fetch may not let one set it). */
async function getWithHost(url: string, host: string, token: string): Promise<{ status: number; link: string | undefined }> {
  return await new Promise((resolve, reject) => {
    const request = httpRequest(url, { headers: { Host: host, 'X-Forwarded-Host': host, Authorization: `Bearer ${token}` } }, (response) => {
      response.resume();
      response.on('end', () => resolve({ status: response.statusCode ?? 0, link: response.headers.link as string | undefined }));
    });
    request.on('error', reject);
    request.end();
  });
}

describe('links the service builds (docs/api.md#text-the-service-accepts)', () => {
  test('the list\'s Link header is built on PUBLIC_BASE_URL, whatever Host the request names', async () => {
    const user = await env.newUser();
    for (let index = 0; index < 2; index++) await createEnvelopeWithDocument(env.api, user, null);
    const answer = await getWithHost(`${env.service.apiUrl}/envelopes?limit=1&status=draft`, 'attacker.example:8443', user.token);
    expect(answer.status).toBe(200);
    expect(answer.link).toMatch(new RegExp(`^<${env.service.publicBaseUrl.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/api/envelopes\\?status=draft&limit=1&cursor=[A-Za-z0-9_-]+>; rel="next"$`));
    expect(answer.link).not.toContain('attacker');
  });
});
