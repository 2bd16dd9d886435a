/**
 * Field patterns over real HTTP, against the pattern engine's fixed memory (docs/api.md#pattern-limits):
 * hundreds of distinct valid patterns saved by several owners leave every later owner's valid pattern
 * accepted and every recipient's valid value accepted (200, never 500); a pattern too complex for the
 * engine is refused (400 on the field's `pattern`) in the service's own words, never the engine's text.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { createEnvelopeWithDocument, expectProblem, startTestService, type ApiResponse, type TestService, type TestUser } from '../support/service.js';
import { sentEnvelope, signingTokenFor } from '../support/signing.js';

let env: TestService;

beforeAll(async () => {
  env = await startTestService();
});
afterAll(async () => {
  await env.close();
});

const ada = { email: 'ada@example.com', name: 'Ada Lovelace', role: 'signer' };
const box = (index: number, extra: Record<string, unknown>) => ({ type: 'text', page: 1, x: 0.1, y: 0.01 + 0.0019 * index, width: 0.3, height: 0.0015, ...extra });

/** PUTs `patterns` as text fields (one each, all for one signer) on a new draft envelope of `owner`. */
async function putPatterns(owner: TestUser, patterns: string[]): Promise<ApiResponse<any>> {
  const id = await createEnvelopeWithDocument(env.api, owner, null);
  const recipientId = randomUUID();
  return await env.api.request('PUT', `/envelopes/${id}`, {
    token: owner.token,
    json: { signers: [{ id: recipientId, ...ada }], fields: patterns.map((pattern, index) => ({ recipientId, ...box(index, { pattern, required: false }) })) },
  });
}

/** The engine's words that must never reach a client. */
const ENGINE_TEXT = /enlarge|memory|abort|emscripten|wasm|INITIAL_MEMORY|RuntimeError|unicode mode/i;

describe('patterns and the engine memory', () => {
  test('600 distinct valid patterns of several owners: a new owner\'s valid pattern is accepted, and its recipient\'s valid value', async () => {
    const owners = await Promise.all([1, 2, 3].map(() => env.newUser()));
    // Distinct, valid, of moderate size each: 3 owners × 2 envelopes × 100 patterns.
    let serial = 0;
    for (const owner of owners) {
      for (let round = 0; round < 2; round++) {
        const patterns = Array.from({ length: 100 }, () => {
          serial += 1;
          return `(?:[A-Za-z]{1,20}|\\d{1,10})-${serial}-(?:x|y|z){1,5}[a-f0-9]{0,16}`;
        });
        const saved = await putPatterns(owner, patterns);
        expect(saved.status).toBe(200);
      }
    }
    expect(serial).toBe(600);

    const newcomer = await env.newUser();
    const { id, envelope } = await sentEnvelope(env.api, newcomer, { signers: [ada], fields: [{ recipient: 0, ...box(0, { pattern: '[A-Z]{2}[0-9]{6}', label: 'Ref' }) }] });
    const token = await signingTokenFor(newcomer.userId, id, ada.email);
    const fieldId = envelope.fields[0].id;
    const refused = await env.api.request('POST', '/signing/complete', { token, json: { consent: true, values: [{ fieldId, value: 'AB12345' }] } });
    expectProblem(refused, 400);
    expect(refused.body.errors).toEqual([expect.objectContaining({ path: 'values.0.value', message: expect.stringMatching(/must match the pattern/) })]);
    const completed = await env.api.request('POST', '/signing/complete', { token, json: { consent: true, values: [{ fieldId, value: 'AB123456' }] } });
    expect(completed.status).toBe(200);
  });

  test('a pattern too complex for the engine → 400 on its pattern, in the service\'s words; the next valid pattern is accepted', async () => {
    const owner = await env.newUser();
    for (const pattern of ['\\pL{1000}', '[^a]{1000}[^b]{1000}', '(?:\\p{Greek}|.){1000}']) {
      const response = await putPatterns(owner, [pattern]);
      expectProblem(response, 400);
      expect(response.body.errors).toEqual([expect.objectContaining({ path: 'fields.0.pattern', message: expect.stringMatching(/is too complex/) })]);
      expect(response.text).not.toMatch(ENGINE_TEXT);
    }
    const syntax = await putPatterns(owner, ['(a']);
    expectProblem(syntax, 400);
    expect(syntax.body.errors).toEqual([expect.objectContaining({ path: 'fields.0.pattern', message: expect.stringMatching(/not a valid regular expression \(RE2 syntax\): it has a \( without its \)/) })]);
    expect(syntax.text).not.toMatch(/\^\(\?:/); // never the anchoring the service adds
    expect((await putPatterns(owner, ['[A-Z]{2}[0-9]{6}'])).status).toBe(200);
  });
});
