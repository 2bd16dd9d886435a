/**
 * Idempotency keys across a crash (docs/api.md#idempotency): an instance of the service in a process of
 * its own is killed with SIGKILL at a named point of `POST /api/templates/{id}/envelopes` with an
 * `Idempotency-Key` (`SERVICE_CRASH_AT`, honoured only with `NODE_ENV=test`, `src/lib/crashPoint.ts`):
 * after the key is claimed and before the envelope exists, and after the envelope is made and sent and
 * before the answer is kept. Retries with the same key, on the instances still running, then get 409
 * `idempotency-key-in-use` while the dead request's lease holds, and after it one 201 that every later
 * retry replays byte for byte; the owner has exactly one envelope from the template, created and sent
 * once, and its recipient gets one invitation e-mail (the suite's SMTP catcher). Own Azurite: the file
 * runs the sweeper by hand.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, test } from '@jest/globals';
import { getServices } from '../../src/lib/services.js';
import { runSweep } from '../../src/lib/sweeper/sweep.js';
import { idempotencyRowKey } from '../../src/lib/storage/idempotencyKeyRepository.js';
import { emailsTo, waitForEmails } from '../support/mail.js';
import { patience, waitUntil } from '../support/patience.js';
import { startServiceProcess } from '../support/serviceProcess.js';
import { auditTrail, outboxBatches } from '../support/signing.js';
import { activeOneRoleTemplate, expectType, ownAzuriteForFile, serviceForFile, type ApiClient, type ApiResponse, type TestService, type TestUser } from '../support/service.js';

const azurite = ownAzuriteForFile();
let env: TestService;
let owner: TestUser;
serviceForFile((started) => ({ env, owner } = started));
afterAll(async () => {
  await azurite.stop();
});

function useTemplate(api: ApiClient, templateId: string, key: string, email: string): Promise<ApiResponse<any>> {
  return api.request('POST', `/templates/${templateId}/envelopes`, { token: owner.token, headers: { 'Idempotency-Key': key }, json: { recipients: [{ roleName: 'Client', email, name: 'Cara Crash' }] } });
}

async function envelopesOf(templateId: string): Promise<{ id: string; status: string }[]> {
  const listed = await env.api.request('GET', '/envelopes', { token: owner.token });
  expect(listed.status).toBe(200);
  return (listed.body as { id: string; status: string; templateId: string | null }[]).filter((envelope) => envelope.templateId === templateId);
}

async function storedKey(key: string): Promise<Record<string, unknown> | null> {
  try {
    return await getServices().storage.tables.envelopes.getEntity<Record<string, unknown>>(owner.userId, idempotencyRowKey(key));
  } catch (error) {
    if ((error as { statusCode?: number }).statusCode === 404) return null;
    throw error;
  }
}

describe('a creating POST whose process is killed', () => {
  test.each([
    ['idempotency.claimed', 'after the key is claimed, before the envelope exists'],
    ['idempotency.answered', 'after the envelope is made and sent, before its answer is kept'],
  ])('at %s (%s): retries get one envelope, one answer, one e-mail', async (point) => {
    const templateId = await activeOneRoleTemplate(env.api, owner);
    const email = `crash-${randomUUID()}@example.com`;
    const key = randomUUID();
    const doomed = await startServiceProcess({ SERVICE_CRASH_AT: point });
    try {
      const lost = await useTemplate(doomed.api, templateId, key, email).catch((error: unknown) => error);
      expect(lost).toMatchObject({ name: 'TypeError', message: 'fetch failed' });
      await doomed.kill();
    } finally {
      await doomed.kill();
    }
    const claim = await storedKey(key);
    expect(claim).toMatchObject({ state: 'running', method: 'POST', path: `/api/templates/${templateId}/envelopes` });
    const left = await envelopesOf(templateId);
    if (point === 'idempotency.claimed') expect(left).toEqual([]);
    else expect(left).toMatchObject([{ status: 'sent' }]);

    // While the dead request's lease holds, the key is in use, on every instance.
    const inUse = await useTemplate(env.api, templateId, key, email);
    expectType(inUse, 409, 'idempotency-key-in-use');
    expect(inUse.headers.get('retry-after')).toBe('1');
    // Its lease passed (240 s, not waited out here): the next retry takes the claim over and finishes the work.
    await getServices().storage.tables.envelopes.updateEntity({ partitionKey: owner.userId, rowKey: idempotencyRowKey(key), leaseUntil: new Date(Date.now() - 1000).toISOString() }, 'Merge');
    const answered = await useTemplate(env.api, templateId, key, email);
    expect(answered.status).toBe(201);
    expect(answered.headers.get('idempotent-replayed')).toBeNull();
    expect(answered.body).toMatchObject({ status: 'sent', templateId, signers: [{ email }] });
    if (point === 'idempotency.answered') expect(answered.body.id).toBe(left[0]!.id);
    expect(answered.headers.get('location')).toBe(`/api/envelopes/${answered.body.id}`);

    // Every later retry, on this instance and on a fresh one, replays that answer byte for byte.
    const fresh = await startServiceProcess();
    try {
      for (const api of [env.api, fresh.api, env.api]) {
        const replayed = await useTemplate(api, templateId, key, email);
        expect(replayed.status).toBe(201);
        expect(replayed.headers.get('idempotent-replayed')).toBe('true');
        expect(replayed.text).toBe(answered.text);
        expect(replayed.headers.get('etag')).toBe(answered.headers.get('etag'));
        expect(replayed.headers.get('location')).toBe(answered.headers.get('location'));
      }
    } finally {
      await fresh.close();
    }
    expect(await storedKey(key)).toMatchObject({ state: 'done', status: 201 });

    // One envelope, created and sent once.
    expect(await envelopesOf(templateId)).toEqual([expect.objectContaining({ id: answered.body.id, status: 'sent' })]);
    const trail = await auditTrail(env.api, owner, answered.body.id);
    expect(trail.filter((event) => event.type === 'envelope.created')).toHaveLength(1);
    expect(trail.filter((event) => event.type === 'envelope.sent')).toHaveLength(1);

    // One invitation e-mail, once every outbox message has its final state (the sweeper dispatches
    // a batch whose process died before dispatching it; run here as if its minute had passed).
    await waitUntil(
      async () => {
        const batches = await Promise.all((await outboxBatches(owner.userId, answered.body.id)).map(async (batch) => (await getServices().outbox.read(owner.userId, batch.id))!));
        if (batches.some((batch) => batch.dispatchedAt === null)) await runSweep({ services: getServices(), now: new Date(Date.now() + 2 * 60_000) });
        return batches.length > 0 && batches.every((batch) => batch.states.every((state) => state !== null));
      },
      120_000,
      'every outbox message of the envelope to be sent',
      { everyMs: 1000 },
    );
    const invitations = await waitForEmails(email, { count: 1, timeoutMs: patience(60_000) });
    expect(invitations).toHaveLength(1);
    expect(await emailsTo(email)).toHaveLength(1);
  }, patience(240_000));
});
