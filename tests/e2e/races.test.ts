/**
 * Races (docs/api.md#etags-and-if-match, docs/api.md#what-completion-does step 5): concurrent requests never lose
 * an update, never seal twice, and never leave a gap in the audit trail.
 */
import { createHash } from 'node:crypto';
import { describe, expect, test } from '@jest/globals';
import { getServices } from '../../src/lib/services.js';
import { corpusPdf, createEnvelopeWithDocument, serviceForFile, type TestService, type TestUser } from '../support/service.js';

let env: TestService;
let user: TestUser;
serviceForFile((started) => ({ env, owner: user } = started));

describe('concurrent updates of one envelope', () => {
  test('50 at once: each is applied or refused with 409/412, and every applied one is in the audit trail', async () => {
    const id = await createEnvelopeWithDocument(env.api, user, await corpusPdf('normal.pdf'));
    const responses = await Promise.all(
      Array.from({ length: 50 }, (_, index) =>
        env.api.request(index % 2 === 0 ? 'PUT' : 'PATCH', `/envelopes/${id}`, {
          token: user.token,
          json: { signers: [{ email: `signer${index}@example.com`, name: `Signer ${index}` }] },
        }),
      ),
    );
    const statuses = responses.map((response) => response.status);
    expect(statuses.every((status) => status === 200 || status === 409 || status === 412)).toBe(true);
    const applied = responses.filter((response) => response.status === 200);
    expect(applied.length).toBeGreaterThan(0);
    for (const [index, response] of responses.entries()) {
      if (response.status === 200) expect(response.body.signers[0].email).toBe(`signer${index}@example.com`);
    }

    const events = (await env.api.request('GET', `/envelopes/${id}/audit`, { token: user.token })).body as { sequence: number; type: string; details: { added: { email: string }[] } }[];
    expect(events.map((event) => event.sequence)).toEqual(events.map((_, index) => index + 1));
    const replaced = events.filter((event) => event.type === 'envelope.signers_replaced');
    expect(replaced).toHaveLength(applied.length);
    expect(new Set(replaced.map((event) => event.details.added[0]!.email))).toEqual(new Set(applied.map((response) => response.body.signers[0].email)));

    const final = await env.api.request('GET', `/envelopes/${id}`, { token: user.token });
    expect(final.headers.get('etag')).toBe(`"${1 + applied.length}"`);
  });

  test('with If-Match, of two writers from the same ETag exactly one wins and the other gets 412', async () => {
    const id = await createEnvelopeWithDocument(env.api, user, await corpusPdf('normal.pdf'));
    const etag = (await env.api.request('GET', `/envelopes/${id}`, { token: user.token })).headers.get('etag')!;
    const [first, second] = await Promise.all(
      ['a', 'b'].map((name) =>
        env.api.request('PUT', `/envelopes/${id}`, { token: user.token, headers: { 'If-Match': etag }, json: { signers: [{ email: `${name}@example.com`, name }] } }),
      ),
    );
    expect([first!.status, second!.status].sort()).toEqual([200, 412]);
  });
});

describe('concurrent completes', () => {
  test('two at once give one sealed blob, one hash and one completed event', async () => {
    const id = await createEnvelopeWithDocument(env.api, user, await corpusPdf('fill_form.pdf'));
    await env.api.request('PUT', `/envelopes/${id}`, { token: user.token, json: { signers: [{ email: 'a@example.com', name: 'A' }] } });
    const [first, second] = await Promise.all([1, 2].map(() => env.api.request('POST', `/envelopes/${id}/complete`, { token: user.token })));
    expect(first!.status).toBe(200);
    expect(second!.status).toBe(200);
    expect(first!.body.hash).toBe(second!.body.hash);

    const blobs: string[] = [];
    for await (const blob of getServices().storage.containers.sealed.listBlobsFlat({ prefix: `${id}/` })) blobs.push(blob.name);
    expect(blobs).toEqual([`${id}/contract.pdf`]);
    const sealed = await getServices().storage.containers.sealed.getBlockBlobClient(blobs[0]!).downloadToBuffer();
    expect(createHash('sha256').update(sealed).digest('hex')).toBe(first!.body.hash);

    const events = (await env.api.request('GET', `/envelopes/${id}/audit`, { token: user.token })).body as { type: string }[];
    expect(events.filter((event) => event.type === 'envelope.completed')).toHaveLength(1);
  });
});
