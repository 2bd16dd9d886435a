/**
 * The sweeper under test, in a process of its own against the storage named by the environment (the
 * sweep suite gives each of its sides an Azurite of its own). Requests over IPC:
 * - `{type: 'seed', envelopes}`: writes that many `sent` envelopes of 10 owners straight through the
 *   repositories, each with the due-index entries a send records, all in the future: its expiry
 *   (`expiresAt`, 30 days ahead, table `dueExpiry`) and its next reminder (1 to 3 days ahead, table
 *   `dueReminders`). The same rows as
 *   `EnvelopeRepository.create` and `DueIndex.put`, written in entity-group transactions of up to 100
 *   (`createMany`, `putMany`, {@link SEED_TRANSACTIONS} in flight);
 * - `{type: 'sweep'}`: one `runSweep` with the real steps, timed; answers `{ms, report}`.
 */
import { randomUUID } from 'node:crypto';
import { newDraftEnvelope } from '../../src/lib/envelopes/createUpload.js';
import { newSigner, type AuditEvent, type EnvelopeRecord } from '../../src/lib/envelopes/model.js';
import { uuidv7 } from '../../src/lib/ids.js';
import { runSweep, type SweepReport } from '../../src/lib/sweeper/sweep.js';
import { EXPIRY_DUE_KIND, REMINDER_DUE_KIND } from '../../src/lib/envelopes/routing.js';
import { getServices } from '../../src/lib/services.js';
import type { DueEntry } from '../../src/lib/storage/dueIndex.js';
import { ensureStorage } from '../../src/lib/storage/setup.js';
import { failToParent, tellParent } from '../lib/child.js';
import { SEED_TRANSACTIONS } from '../lib/seed.js';

export interface SweepTiming {
  ms: number;
  report: SweepReport;
}

const DAY_MS = 86_400_000;

try {
  const services = getServices();
  await ensureStorage(services.storage, { allowedOrigins: ['*'] });
  const owners = Array.from({ length: 10 }, () => uuidv7());

  const seedSent = async (count: number): Promise<number> => {
    const now = new Date();
    const envelopes: { record: EnvelopeRecord; event: AuditEvent }[] = [];
    const dueEntries: DueEntry[] = [];
    for (let index = 0; index < count; index++) {
      const ownerId = owners[index % owners.length]!;
      const actor = { userId: ownerId, email: `bench-sweep-${ownerId}@example.com`, emailVerified: true, ip: '127.0.0.1', userAgent: 'bench-seed', apiKeyId: null, organizationId: ownerId, role: 'owner' as const };
      const draft = newDraftEnvelope({ actor, documentName: `contract-${index}.pdf`, now });
      const expiresAt = new Date(now.getTime() + 30 * DAY_MS).toISOString();
      const record: EnvelopeRecord = {
        ...draft.record,
        status: 'sent',
        sentAt: now.toISOString(),
        expiresAt,
        remindEveryDays: 3,
        signers: [newSigner({ id: randomUUID(), email: `signer-${index}@example.com`, name: `Signer ${index}`, role: 'signer' })],
      };
      envelopes.push({ record, event: draft.event });
      dueEntries.push(
        { kind: EXPIRY_DUE_KIND, dueAt: expiresAt, ownerId, id: record.id },
        { kind: REMINDER_DUE_KIND, dueAt: new Date(now.getTime() + (1 + (index % 3)) * DAY_MS).toISOString(), ownerId, id: record.id },
      );
    }
    // As a send does: the due entries first, then the envelopes (entity-group transactions of 100 rows).
    await services.dueIndex.putMany(dueEntries, { concurrency: SEED_TRANSACTIONS });
    await services.envelopes.createMany(envelopes, { concurrency: SEED_TRANSACTIONS });
    return count;
  };

  process.on('message', (message: { type?: string; id?: number; envelopes?: number }) => {
    const reply = (work: () => Promise<unknown>) =>
      work().then(
        (result) => tellParent({ type: 'reply', id: message.id ?? 0, result }),
        (error: unknown) => tellParent({ type: 'reply', id: message.id ?? 0, error: error instanceof Error ? error.message : String(error) }),
      );
    if (message.type === 'stop') process.exit(0);
    else if (message.type === 'seed') void reply(() => seedSent(message.envelopes ?? 0));
    else if (message.type === 'sweep') {
      void reply(async (): Promise<SweepTiming> => {
        const started = performance.now();
        const report = await runSweep({ services });
        return { ms: performance.now() - started, report };
      });
    }
  });
  tellParent({ type: 'ready' });
} catch (error) {
  failToParent(error);
}
