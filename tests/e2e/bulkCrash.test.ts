/**
 * A bulk job whose process dies mid-job ([docs/api.md#bulk-send](../../docs/api.md#bulk-send)): an
 * instance in a process of its own runs the job and is killed with SIGKILL right after the envelope
 * of its 40th row is made and sent, before the row is recorded (`SERVICE_CRASH_AT=bulk.rowMade`,
 * `SERVICE_CRASH_SKIP`, honoured only with `NODE_ENV=test`, `src/lib/crashPoint.ts`). Another
 * instance, started afterwards, takes the job over through the queue lease of the dead one's message:
 * the job completes with every row created once (one envelope per row, none twice, none lost, each
 * created and sent once by its audit trail), the counts right, and one invitation e-mail per person
 * at the suite's SMTP catcher. The test process's own service runs no queue functions, so only those
 * two instances run the job. The doomed instance runs only the job's queue (`bulk-jobs`): an e-mail
 * in a sender's hands when its process dies may go out twice, as
 * [docs/api.md#how-e-mail-is-sent](../../docs/api.md#how-e-mail-is-sent) says, and that window is
 * not what this test is about; the survivor sends every invitation. Own Azurite.
 */
import { afterAll, describe, expect, test } from '@jest/globals';
import { getServices } from '../../src/lib/services.js';
import { runSweep } from '../../src/lib/sweeper/sweep.js';
import { emailsTo, waitForEmails } from '../support/mail.js';
import { patience, waitUntil } from '../support/patience.js';
import { startServiceProcess } from '../support/serviceProcess.js';
import { auditTrail, outboxBatches } from '../support/signing.js';
import { activeOneRoleTemplate, ownAzuriteForFile, serviceForFile, type TestService, type TestUser } from '../support/service.js';

const azurite = ownAzuriteForFile();
let env: TestService;
let owner: TestUser;
serviceForFile((started) => ({ env, owner } = started), { triggers: false });
afterAll(async () => {
  await azurite.stop();
});

const ROWS = 120;
const CRASH_AFTER = 40;

describe('a bulk job whose process is killed mid-job', () => {
  test('resumes on another instance: no row twice, none lost, the counts right, one e-mail each', async () => {
    const templateId = await activeOneRoleTemplate(env.api, owner);
    const run = Date.now().toString(36);
    const people = Array.from({ length: ROWS }, (_, index) => ({ email: `crash${index}-${run}@example.com`, name: `Crash ${index}` }));
    const answer = await env.api.request('POST', `/templates/${templateId}/bulk`, { token: owner.token, json: { rows: people.map((person) => ({ recipients: [{ roleName: 'Client', ...person }] })) } });
    expect(answer.status).toBe(202);
    const jobId = answer.body.id as string;

    const doomed = await startServiceProcess({ TEST_SERVICE_TRIGGERS: 'true', TEST_SERVICE_QUEUES: 'bulk-jobs', SERVICE_CRASH_AT: 'bulk.rowMade', SERVICE_CRASH_SKIP: String(CRASH_AFTER) });
    // It dies on its own once the 41st envelope is made.
    await waitUntil(
      async () => {
        try {
          await fetch(`${doomed.apiUrl}/health`);
          return false;
        } catch {
          return true;
        }
      },
      patience(120_000),
      'the doomed instance to die mid-job',
      { everyMs: 200 },
    );
    await doomed.kill();
    const midway = (await env.api.request('GET', `/bulk/${jobId}`, { token: owner.token })).body;
    expect(midway.status).toBe('running');
    const rowsMidway = (await getServices().bulkJobs.rows(jobId)).map((row) => row.record);
    expect(rowsMidway.filter((row) => row.status === 'running').length).toBeGreaterThan(0);
    expect(rowsMidway.filter((row) => row.status === 'pending').length).toBeGreaterThan(0);

    const survivor = await startServiceProcess({ TEST_SERVICE_TRIGGERS: 'true' });
    try {
      const job = await waitUntil(
        async () => {
          const read = (await env.api.request('GET', `/bulk/${jobId}`, { token: owner.token })).body;
          return read.status === 'completed' ? read : undefined;
        },
        patience(240_000),
        'the job to complete on the surviving instance',
        { everyMs: 500 },
      );
      expect(job).toMatchObject({ total: ROWS, created: ROWS, failed: 0 });

      // Every row created once, each with an envelope of its own.
      const rows = (await getServices().bulkJobs.rows(jobId)).map((row) => row.record);
      expect(rows.map((row) => row.status)).toEqual(people.map(() => 'created'));
      const envelopeIds = rows.map((row) => row.envelopeId);
      expect(new Set(envelopeIds).size).toBe(ROWS);
      const listed = (await env.api.request('GET', '/envelopes', { token: owner.token })).body as { id: string; bulkJobId?: string; status: string; signers: { email: string }[] }[];
      const ofJob = listed.filter((envelope) => envelope.bulkJobId === jobId);
      expect(ofJob.map((envelope) => envelope.id).sort()).toEqual([...envelopeIds].sort());
      expect(ofJob.every((envelope) => envelope.status === 'sent')).toBe(true);
      expect(ofJob.map((envelope) => envelope.signers[0]!.email).sort()).toEqual(people.map((person) => person.email).sort());
      for (const id of envelopeIds) {
        const trail = await auditTrail(env.api, owner, id!);
        expect(trail.filter((event) => event.type === 'envelope.created')).toHaveLength(1);
        expect(trail.filter((event) => event.type === 'envelope.sent')).toHaveLength(1);
      }

      // One invitation each, once every outbox message has its final state (the sweeper dispatches a
      // batch the dead process committed but did not dispatch; run here as if its minute had passed).
      await waitUntil(
        async () => {
          const batches = (await Promise.all(envelopeIds.map(async (id) => await outboxBatches(owner.userId, id!)))).flat();
          const stored = await Promise.all(batches.map(async (batch) => (await getServices().outbox.read(owner.userId, batch.id))!));
          if (stored.some((batch) => batch.dispatchedAt === null || batch.states.some((state) => state === null))) {
            await runSweep({ services: getServices(), now: new Date(Date.now() + 2 * 60_000) });
            return false;
          }
          return stored.length >= ROWS;
        },
        patience(180_000),
        'every invitation of the job to be sent',
        { everyMs: 2000 },
      );
      for (const person of people) expect(await waitForEmails(person.email, { count: 1, timeoutMs: patience(30_000) })).toHaveLength(1);
      for (const person of people) expect(await emailsTo(person.email)).toHaveLength(1);
    } finally {
      await survivor.close();
    }
  }, patience(600_000));
});
