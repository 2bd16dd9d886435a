/**
 * E-mails from the outbox to the mail server, end to end on the local host (docs/api.md#e-mail, docs/api.md#the-sweeper):
 * a batch written in a change's transaction, dispatched to the `outbox-email` queue, sent by the
 * `SendEmail` queue function through a real SMTP server, once, retried by the queue when the
 * server refuses, `failed` and in the poison queue after 5 dequeues; a dispatch that fails after the
 * transaction is repaired by the `Sweep` timer function, also when an earlier version recorded its due
 * entry in the single due-index table it had (`dueIndex`).
 *
 * This file runs its own Azurite (the queues of the suite's Azurite are consumed by every test
 * process's service) and its own SMTP server: `smtp-server` refusing the recipients a test names, and
 * relaying every accepted message unchanged to the suite's mail catcher, where the helpers read it.
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { QueueClient } from '@azure/storage-queue';
import nodemailer from 'nodemailer';
import { SMTPServer } from 'smtp-server';
import { afterResponse } from '../../src/lib/afterResponse.js';
import { Change, commitChange } from '../../src/lib/envelopes/change.js';
import { queuedToday, readQuotaRowsAhead } from '../../src/lib/envelopes/dailyQuota.js';
import { newDraftEnvelope } from '../../src/lib/envelopes/createUpload.js';
import { SYSTEM_ACTOR } from '../../src/lib/envelopes/model.js';
import { uuidv7 } from '../../src/lib/ids.js';
import type { EmailMessage, OutboxBatch } from '../../src/lib/notifications/outbox.js';
import { patience, waitUntil } from '../support/patience.js';
import { OUTBOX_DUE_KIND, OUTBOX_MAX_REDISPATCHES, OutboxStore } from '../../src/lib/notifications/outboxRepository.js';
import { newLinkSalt, signingLinkKey, signingToken, tokenSha256 } from '../../src/lib/envelopes/signingLinks.js';
import { OUTBOX_UNCLAIMED_SECONDS, redispatchDueOutbox, runSweep } from '../../src/lib/sweeper/sweep.js';
import { createServices, getServices, type Services } from '../../src/lib/services.js';
import { DueIndex } from '../../src/lib/storage/dueIndex.js';
import { QUEUES } from '../../src/lib/storage/queues.js';
import { startAzurite, type RunningAzurite } from '../../src/local/azurite.js';
import { startService, type RunningService } from '../../src/local/service.js';
import { emailsTo, signingLinkIn, waitForEmail } from '../support/mail.js';

const SETTINGS = ['STORAGE_CONNECTION_STRING', 'SMTP_URL', 'SWEEP_SCHEDULE'] as const;
const saved = Object.fromEntries(SETTINGS.map((name) => [name, process.env[name]]));

let azurite: RunningAzurite;
let smtp: SMTPServer;
let service: RunningService;
let services: Services;
/** RCPT TO attempts per address, accepted or not. */
const attempts = new Map<string, number>();
/** Address → how many attempts the SMTP server refuses (451) before accepting; Infinity refuses for good. */
const refusals = new Map<string, number>();

beforeAll(async () => {
  azurite = await startAzurite();
  const relay = nodemailer.createTransport(saved.SMTP_URL!);
  smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onRcptTo(address, _session, callback) {
      const count = (attempts.get(address.address) ?? 0) + 1;
      attempts.set(address.address, count);
      if (count <= (refusals.get(address.address) ?? 0)) {
        callback(Object.assign(new Error('Try again later'), { responseCode: 451 }));
      } else callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const envelope = { from: session.envelope.mailFrom === false ? '' : session.envelope.mailFrom.address, to: session.envelope.rcptTo.map((entry) => entry.address) };
        relay.sendMail({ envelope, raw: Buffer.concat(chunks) }).then(() => callback(), (error: Error) => callback(error));
      });
    },
  });
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
  Object.assign(process.env, {
    STORAGE_CONNECTION_STRING: azurite.connectionString,
    SMTP_URL: `smtp://127.0.0.1:${(smtp.server.address() as AddressInfo).port}`,
    SWEEP_SCHEDULE: '*/1 * * * * *',
  });
  service = await startService({
    port: 0,
    logHandler: () => undefined,
    queueSettings: { visibilityTimeoutSeconds: 1, minPollingIntervalMs: 25, maxPollingIntervalMs: 200 },
  });
  services = getServices();
});

afterAll(async () => {
  await service?.close();
  await new Promise<void>((resolve) => smtp.close(() => resolve()));
  await azurite?.stop();
  for (const name of SETTINGS) {
    if (saved[name] === undefined) delete process.env[name];
    else process.env[name] = saved[name];
  }
});

async function queueLength(name: string): Promise<number> {
  return (await services.storage.queueService.getQueueClient(name).getProperties()).approximateMessagesCount ?? 0;
}

interface Scenario {
  batch: OutboxBatch;
  message: EmailMessage;
  ownerId: string;
  envelopeId: string;
  recipientId: string;
}

/**
 * A draft envelope with one recipient whose `lastEmail` is a queued invitation, and the outbox batch
 * of that invitation, committed in one transaction as a change would (but not dispatched).
 */
async function committedInvitation({ createdAt = new Date(), outbox = services.outbox }: { createdAt?: Date; outbox?: OutboxStore } = {}): Promise<Scenario> {
  const ownerId = randomUUID();
  const { record, event } = newDraftEnvelope({ actor: { userId: ownerId, email: 'owner@example.com', emailVerified: true, ip: null, userAgent: null, apiKeyId: null, organizationId: ownerId, role: 'owner' as const }, documentName: 'Lease <2026>.pdf', now: createdAt });
  await services.envelopes.create(record, event);
  const recipientId = randomUUID();
  const batchId = uuidv7();
  const message: EmailMessage = {
    kind: 'email',
    type: 'invitation',
    envelopeId: record.id,
    recipientId,
    to: { email: `ada-${randomUUID()}@example.com`, name: 'Ada Lovelace' },
    documentName: record.documentName,
    ownerEmail: 'owner@example.com',
    expiresAt: '2031-01-01T00:00:00.000Z',
    reason: null,
    declinedBy: null,
    linkSalt: newLinkSalt(),
  };
  const stored = (await services.envelopes.read(ownerId, record.id))!;
  await services.envelopes.replace(
    stored,
    { ...stored.record, signers: [{
      id: recipientId, email: message.to.email, name: 'Ada Lovelace', role: 'signer', routingOrder: 1, status: 'sent', actedAt: null, declineReason: null,
      lastEmail: { type: 'invitation', status: 'queued', at: createdAt.toISOString(), batchId }, link: null, invitedAt: createdAt.toISOString(), remindersSent: 0,
    }] },
    [],
  );
  const batch: OutboxBatch = { id: batchId, ownerId, envelopeId: record.id, createdAt: createdAt.toISOString(), messages: [message] };
  await services.storage.tables.envelopes.submitTransaction([await outbox.prepare(batch)]);
  return { batch, message, ownerId, envelopeId: record.id, recipientId };
}

async function lastEmailOf(scenario: Scenario) {
  return (await services.envelopes.read(scenario.ownerId, scenario.envelopeId))!.record.signers[0]!.lastEmail;
}

describe('an outbox e-mail', () => {
  test('is sent once dispatched, with a signing link recorded before it went out; its state and the lastEmail become sent', async () => {
    const scenario = await committedInvitation();
    expect(await services.outbox.dispatch(scenario.batch)).toBe(true);
    const email = await waitForEmail(scenario.message.to.email);
    expect(email.subject).toBe('Please review and sign: Lease <2026>.pdf');
    const { token, url } = signingLinkIn(email);
    expect(url).toBe(`${process.env.PUBLIC_BASE_URL}/api/sign#${token}`);
    expect(token).toBe(signingToken(signingLinkKey(services.config.jwt.secret), scenario.message.linkSalt!));
    expect(await services.signingLinks.find(tokenSha256(token))).toEqual({
      tokenSha256: tokenSha256(token),
      ownerId: scenario.ownerId,
      envelopeId: scenario.envelopeId,
      recipientId: scenario.recipientId,
    });
    await waitUntil(async () => (await lastEmailOf(scenario))?.status === 'sent', 10_000, 'lastEmail sent');
    expect((await services.outbox.read(scenario.ownerId, scenario.batch.id))!.states).toEqual(['sent']);
    // The due entry stays for the sweeper, which drops it once every message of the batch has a final state.
    const later = new Date(Date.now() + 120_000);
    expect(await services.dueIndex.due(OUTBOX_DUE_KIND, later.toISOString(), 1000)).toContainEqual(expect.objectContaining({ id: scenario.batch.id }));
    await runSweep({ services, now: later, steps: [redispatchDueOutbox] });
    expect(await services.dueIndex.due(OUTBOX_DUE_KIND, new Date(Date.now() + 3_600_000).toISOString(), 1000)).not.toContainEqual(expect.objectContaining({ id: scenario.batch.id }));
    // The raw token is nowhere in storage: not in the outbox row, not in the link table.
    const row = await services.storage.tables.envelopes.getEntity(scenario.ownerId, `outbox_${scenario.batch.id}`);
    expect(JSON.stringify(row)).not.toContain(token);
  });

  test('dispatched three times at once goes out once', async () => {
    const scenario = await committedInvitation();
    await Promise.all([services.outbox.dispatch(scenario.batch), services.outbox.dispatch(scenario.batch), services.outbox.dispatch(scenario.batch)]);
    await waitForEmail(scenario.message.to.email);
    await waitUntil(async () => (await queueLength(QUEUES.email)) === 0, 20_000, 'every copy of the message to be handled');
    expect(await emailsTo(scenario.message.to.email)).toHaveLength(1);
    expect(attempts.get(scenario.message.to.email)).toBe(1);
  });

  test('refused twice by the SMTP server is retried by the queue and sent on the third attempt', async () => {
    const scenario = await committedInvitation();
    refusals.set(scenario.message.to.email, 2);
    await services.outbox.dispatch(scenario.batch);
    const email = await waitForEmail(scenario.message.to.email, { timeoutMs: patience(30_000) });
    expect(attempts.get(scenario.message.to.email)).toBe(3);
    expect(signingLinkIn(email).token).toBe(signingToken(signingLinkKey(services.config.jwt.secret), scenario.message.linkSalt!));
    await waitUntil(async () => (await lastEmailOf(scenario))?.status === 'sent', 10_000, 'lastEmail sent');
    expect((await services.outbox.read(scenario.ownerId, scenario.batch.id))!.states).toEqual(['sent']);
  });

  test('refused for good: 5 attempts, then failed on the outbox and the recipient, and the message in outbox-email-poison', async () => {
    const scenario = await committedInvitation();
    refusals.set(scenario.message.to.email, Number.POSITIVE_INFINITY);
    const poison = services.storage.queueService.getQueueClient(`${QUEUES.email}-poison`);
    const before = await queueLength(poison.name);
    await services.outbox.dispatch(scenario.batch);
    await waitUntil(async () => (await lastEmailOf(scenario))?.status === 'failed', 40_000, 'lastEmail failed');
    await waitUntil(async () => (await queueLength(poison.name)) === before + 1, 10_000, 'the poison message');
    expect(attempts.get(scenario.message.to.email)).toBe(5);
    expect((await services.outbox.read(scenario.ownerId, scenario.batch.id))!.states).toEqual(['failed']);
    const poisoned = (await poison.peekMessages({ numberOfMessages: 32 })).peekedMessageItems.map((item) => JSON.parse(Buffer.from(item.messageText, 'base64').toString('utf8')) as unknown);
    expect(poisoned).toContainEqual({ ownerId: scenario.ownerId, batchId: scenario.batch.id, index: 0 });
    expect(await emailsTo(scenario.message.to.email)).toHaveLength(0);
  });
});

describe('a claim on an outbox e-mail', () => {
  /** Writes a sender's claim on message 0 as `OutboxStore.claim` does, for a holder that is not this test's service. */
  async function claimAs(scenario: Scenario, holder: string, until: Date, extra: Record<string, unknown> = {}) {
    await services.storage.tables.envelopes.updateEntity(
      { partitionKey: scenario.ownerId, rowKey: `outbox_${scenario.batch.id}`, state0: `sending ${until.toISOString()} ${holder}`, ...extra },
      'Merge',
    );
  }

  test('held by another delivery costs no dequeue: the message comes back when the claim ends, and is sent once', async () => {
    const scenario = await committedInvitation();
    // A live sender holds it for 7 more seconds, then dies without a word: longer than the queue's 5
    // dequeues take here (1 s apart), so a held claim that counted as an attempt would poison it.
    await claimAs(scenario, 'another-sender', new Date(Date.now() + 7_000));
    const poison = services.storage.queueService.getQueueClient(`${QUEUES.email}-poison`);
    const before = await queueLength(poison.name);
    await services.outbox.dispatch(scenario.batch);
    const email = await waitForEmail(scenario.message.to.email, { timeoutMs: patience(20_000) });
    expect(await queueLength(poison.name)).toBe(before);
    expect(email.subject).toContain('Lease <2026>.pdf');
    await waitUntil(async () => (await lastEmailOf(scenario))?.status === 'sent', 10_000, 'lastEmail sent');
    expect(attempts.get(scenario.message.to.email)).toBe(1);
    expect(await emailsTo(scenario.message.to.email)).toHaveLength(1);
  });

  test('left stuck in sending by a dead sender is re-dispatched by the sweeper once the claim ran out', async () => {
    // Dispatched two minutes ago; its sender claimed it and died; its queue message is gone (poisoned).
    const scenario = await committedInvitation({ createdAt: new Date(Date.now() - 120_000) });
    await claimAs(scenario, 'dead-sender', new Date(Date.now() - 1_000), { dispatchedAt: new Date(Date.now() - 110_000).toISOString() });
    await waitForEmail(scenario.message.to.email, { timeoutMs: patience(20_000) });
    await waitUntil(async () => (await lastEmailOf(scenario))?.status === 'sent', 10_000, 'lastEmail sent');
    const batch = (await services.outbox.read(scenario.ownerId, scenario.batch.id))!;
    expect(batch.states).toEqual(['sent']);
    expect(batch.redispatches).toEqual([1]);
    expect(await emailsTo(scenario.message.to.email)).toHaveLength(1);
  });

  test(`stuck again after ${OUTBOX_MAX_REDISPATCHES} re-dispatches: failed on the outbox and the recipient, its pointer in outbox-email-poison`, async () => {
    const scenario = await committedInvitation({ createdAt: new Date(Date.now() - 120_000) });
    await claimAs(scenario, 'dead-sender', new Date(Date.now() - 1_000), { dispatchedAt: new Date(Date.now() - 110_000).toISOString(), redispatched0: OUTBOX_MAX_REDISPATCHES });
    await waitUntil(async () => (await lastEmailOf(scenario))?.status === 'failed', 20_000, 'lastEmail failed');
    expect((await services.outbox.read(scenario.ownerId, scenario.batch.id))!.states).toEqual(['failed']);
    const poison = services.storage.queueService.getQueueClient(`${QUEUES.email}-poison`);
    const poisoned = (await poison.peekMessages({ numberOfMessages: 32 })).peekedMessageItems.map((item) => JSON.parse(Buffer.from(item.messageText, 'base64').toString('utf8')) as unknown);
    expect(poisoned).toContainEqual({ ownerId: scenario.ownerId, batchId: scenario.batch.id, index: 0 });
    expect(await emailsTo(scenario.message.to.email)).toHaveLength(0);
  });

  test(`received but never claimed (its process died before its work began): re-dispatched ${OUTBOX_UNCLAIMED_SECONDS} s after its dispatch, by the first sweep then`, async () => {
    // Dispatched 130 s ago; the process that received its queue message died before leaving any trace.
    const scenario = await committedInvitation({ createdAt: new Date(Date.now() - 140_000) });
    const dispatchedAt = new Date(Date.now() - (OUTBOX_UNCLAIMED_SECONDS - 20) * 1000);
    const resendAt = dispatchedAt.getTime() + OUTBOX_UNCLAIMED_SECONDS * 1000;
    await services.storage.tables.envelopes.updateEntity({ partitionKey: scenario.ownerId, rowKey: `outbox_${scenario.batch.id}`, dispatchedAt: dispatchedAt.toISOString() }, 'Merge');
    // The sweeper (every second here) finds it unclaimed for 130 s and looks again exactly when its time is up.
    await waitUntil(
      async () => (await services.dueIndex.due(OUTBOX_DUE_KIND, new Date(Date.now() + 3_600_000).toISOString(), 1000)).find((entry) => entry.id === scenario.batch.id && entry.dueAt === new Date(resendAt).toISOString()),
      10_000,
      'the batch due again when its unclaimed time is up',
    );
    await waitForEmail(scenario.message.to.email, { timeoutMs: patience(60_000) });
    const batch = (await services.outbox.read(scenario.ownerId, scenario.batch.id))!;
    expect(batch.redispatches).toEqual([1]);
    const redispatchedAt = Date.parse(batch.redispatchedAt[0]!);
    expect(redispatchedAt).toBeGreaterThanOrEqual(resendAt);
    // Not a watch interval (60 s) later: within the sweeps of a few seconds here.
    expect(redispatchedAt - resendAt).toBeLessThan(patience(10_000));
    expect(await emailsTo(scenario.message.to.email)).toHaveLength(1);
  });

  test('accepted, but the lastEmail not yet recorded when its sender died: the sweeper records it', async () => {
    const scenario = await committedInvitation({ createdAt: new Date(Date.now() - 120_000) });
    await services.storage.tables.envelopes.updateEntity(
      { partitionKey: scenario.ownerId, rowKey: `outbox_${scenario.batch.id}`, state0: 'sent', dispatchedAt: new Date(Date.now() - 110_000).toISOString() },
      'Merge',
    );
    await waitUntil(async () => (await lastEmailOf(scenario))?.status === 'sent', 20_000, 'lastEmail sent');
    expect(await emailsTo(scenario.message.to.email)).toHaveLength(0);
  });
});

describe('npm run outbox', () => {
  const OUTBOX_COMMAND = path.resolve('dist/src/local/outbox.js');

  /** Runs the command as an operator would beside this storage; resolves to its stdout and stderr. */
  async function outboxCommand(...args: string[]): Promise<{ stdout: string; stderr: string }> {
    const cwd = await mkdtemp(path.join(os.tmpdir(), 'outbox-command-'));
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [OUTBOX_COMMAND, ...args], {
      cwd,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, STORAGE_CONNECTION_STRING: azurite.connectionString },
    });
    return { stdout, stderr };
  }

  test('lists a poisoned e-mail, and replays it once the mail server accepts again: sent, lastEmail sent', async () => {
    const scenario = await committedInvitation();
    refusals.set(scenario.message.to.email, Number.POSITIVE_INFINITY);
    await services.outbox.dispatch(scenario.batch);
    await waitUntil(async () => (await lastEmailOf(scenario))?.status === 'failed', 40_000, 'lastEmail failed');

    let line: string | undefined;
    await waitUntil(
      async () => {
        line = (await outboxCommand('list')).stdout.split('\n').find((candidate) => candidate.includes(scenario.message.to.email));
        return line !== undefined;
      },
      10_000,
      'the poisoned e-mail in the list',
    );
    expect(line).toMatch(new RegExp(`^outbox-email-poison  (\\S+)  \\S+  e-mail invitation to ${scenario.message.to.email.replace(/[.]/g, '\\.')}, envelope ${scenario.envelopeId}, state failed$`));
    const messageId = line!.split('  ')[1]!;

    refusals.set(scenario.message.to.email, 0);
    const replayed = await outboxCommand('replay', messageId);
    expect(replayed.stdout).toBe(`outbox-email-poison  ${messageId}  replayed on outbox-email\n`);
    const email = await waitForEmail(scenario.message.to.email, { timeoutMs: patience(20_000) });
    expect(email.subject).toContain('Lease <2026>.pdf');
    await waitUntil(async () => (await lastEmailOf(scenario))?.status === 'sent', 10_000, 'lastEmail sent');
    expect((await services.outbox.read(scenario.ownerId, scenario.batch.id))!.states).toEqual(['sent']);
    expect((await outboxCommand('list')).stdout).not.toContain(messageId);
  }, patience(180_000)); // five refused attempts, then two runs of the command, each a process of its own
});

describe('a committed change', () => {
  test('answers before its outbox batch is dispatched; the dispatch follows after the response', async () => {
    const ownerId = randomUUID();
    const draft = newDraftEnvelope({ actor: { userId: ownerId, email: `owner-${randomUUID()}@example.com`, emailVerified: true, ip: null, userAgent: null, apiKeyId: null, organizationId: ownerId, role: 'owner' as const }, documentName: 'Lease.pdf', now: new Date() });
    await services.envelopes.create(draft.record, draft.event);
    const stored = (await services.envelopes.read(ownerId, draft.record.id))!;
    const change = new Change(stored.record, new Date());
    change.event('envelope.settings_changed', SYSTEM_ACTOR, {});
    change.email('expired', null);

    const next = await commitChange(services, stored, change);
    // Committed: the batch is stored, but its queue messages are still on their way.
    const batch = await services.outbox.read(ownerId, change.batchId);
    expect(batch).not.toBeNull();
    expect(batch!.dispatchedAt).toBeNull();
    expect(afterResponse.size).toBeGreaterThan(0);

    expect(await afterResponse.idle(10_000)).toBe(true);
    expect((await services.outbox.read(ownerId, change.batchId))!.dispatchedAt).not.toBeNull();
    const email = await waitForEmail(next.ownerEmail!, { timeoutMs: patience(20_000) });
    expect(email.subject).toContain('Lease.pdf');
  });

  test('counts its e-mails against the quota row as it is at the commit, even when the row it was handed (read ahead) changed since', async () => {
    const ownerId = randomUUID();
    const actor = { userId: ownerId, email: `owner-${randomUUID()}@example.com`, emailVerified: true, ip: null, userAgent: null, apiKeyId: null, organizationId: ownerId, role: 'owner' as const };
    const drafts = [];
    for (const name of ['First.pdf', 'Second.pdf']) {
      const draft = newDraftEnvelope({ actor, documentName: name, now: new Date() });
      await services.envelopes.create(draft.record, draft.event);
      drafts.push((await services.envelopes.read(ownerId, draft.record.id))!);
    }
    const envelopesTable = services.storage.tables.envelopes;
    // Read ahead while nothing is counted yet (as completion reads it while it seals)…
    const ahead = await readQuotaRowsAhead(envelopesTable, ownerId, ['email']);
    expect(ahead).toEqual({ email: null });
    // …then another change of the organisation counts two e-mails first.
    const other = new Change(drafts[1]!.record, new Date());
    other.event('envelope.settings_changed', SYSTEM_ACTOR, {});
    other.email('expired', null);
    other.email('voided', null);
    await commitChange(services, drafts[1]!, other);
    expect(await queuedToday(envelopesTable, 'email', ownerId)).toBe(2);

    const change = new Change(drafts[0]!.record, new Date());
    change.event('envelope.settings_changed', SYSTEM_ACTOR, {});
    change.email('expired', null);
    await commitChange(services, drafts[0]!, change, { quotaRowsAhead: Promise.resolve(ahead) });
    // Its reservation lost to the row as changed, and it counted again: three, none lost.
    expect(await queuedToday(envelopesTable, 'email', ownerId)).toBe(3);
    expect((await services.outbox.read(ownerId, change.batchId))!.messages).toEqual([expect.objectContaining({ kind: 'email', type: 'expired' })]);
    expect(await afterResponse.idle(10_000)).toBe(true);
  });
});

describe('the sweeper', () => {
  test('dispatches a batch whose dispatch failed after its transaction, once its due entry (a minute after the commit) comes', async () => {
    // The change committed just now; its dispatch could not reach the queue. (The batch is not due
    // yet, so the sweeper, running every second here, leaves it alone while the failure is checked.)
    const scenario = await committedInvitation();
    const closedPort = new QueueClient(`http://127.0.0.1:9/devstoreaccount1/${QUEUES.email}`, undefined, { retryOptions: { maxTries: 1 } });
    const failingOutbox = new OutboxStore(services.storage.tables.envelopes, { email: closedPort, sms: closedPort, events: closedPort }, services.dueIndex);
    const warnings: string[] = [];
    expect(await failingOutbox.dispatch(scenario.batch, (line) => warnings.push(line))).toBe(false);
    expect(warnings).toEqual([expect.stringContaining(`Outbox batch ${scenario.batch.id} not dispatched yet`)]);
    expect((await services.outbox.read(scenario.ownerId, scenario.batch.id))!.dispatchedAt).toBeNull();

    // A minute later: the batch's due entry, as the sweeper then finds it.
    await services.dueIndex.put({ kind: OUTBOX_DUE_KIND, dueAt: new Date(Date.now() - 1_000).toISOString(), ownerId: scenario.ownerId, id: scenario.batch.id });
    const email = await waitForEmail(scenario.message.to.email, { timeoutMs: patience(20_000) });
    expect(email.subject).toContain('Lease <2026>.pdf');
    await waitUntil(async () => (await services.outbox.read(scenario.ownerId, scenario.batch.id))!.dispatchedAt !== null, 10_000, 'dispatchedAt');
    await waitUntil(async () => (await lastEmailOf(scenario))?.status === 'sent', 10_000, 'lastEmail sent');
    await waitUntil(async () => (await queueLength(QUEUES.email)) === 0, 20_000, 'the queue to drain');
    expect(await emailsTo(scenario.message.to.email)).toHaveLength(1);
  });

  test('leaves a batch alone until it is a minute old', async () => {
    const scenario = await committedInvitation();
    const due = await services.dueIndex.due(OUTBOX_DUE_KIND, new Date().toISOString(), 1000);
    expect(due.map((entry) => entry.id)).not.toContain(scenario.batch.id);
    await new Promise((resolve) => setTimeout(resolve, 2_500)); // two sweeps run meanwhile
    expect(await emailsTo(scenario.message.to.email)).toHaveLength(0);
    expect((await services.outbox.read(scenario.ownerId, scenario.batch.id))!.dispatchedAt).toBeNull();
  });

  test("drops the due entry of a batch whose change never committed, and sends nothing", async () => {
    const batch: OutboxBatch = {
      id: uuidv7(),
      ownerId: randomUUID(),
      envelopeId: uuidv7(),
      createdAt: new Date(Date.now() - 120_000).toISOString(),
      messages: [],
    };
    // prepare() records the due entry; the transaction that would have added the row never ran.
    await services.outbox.prepare(batch);
    const isDue = async () => (await services.dueIndex.due(OUTBOX_DUE_KIND, new Date().toISOString(), 1000)).some((entry) => entry.id === batch.id);
    expect(await isDue()).toBe(true);
    await waitUntil(async () => !(await isDue()), 10_000, 'the sweeper to drop the entry');
    expect(await services.outbox.read(batch.ownerId, batch.id)).toBeNull();
  });

  test('moves the due entries an earlier version recorded in its single table dueIndex, and acts on them', async () => {
    const legacy = services.storage.legacyTables.dueIndex;
    await legacy.createTable();
    // An earlier version's due index: every kind in the one table, PartitionKey = kind, the same rows.
    const earlier = new DueIndex({ outbox: legacy, expiry: legacy, reminder: legacy, completion: legacy, idempotencyKey: legacy, removal: legacy, log: legacy });
    // Its change committed two minutes ago and its dispatch never happened (the process was replaced).
    const scenario = await committedInvitation({ createdAt: new Date(Date.now() - 120_000), outbox: new OutboxStore(services.storage.tables.envelopes, services.storage.queues, earlier) });
    const oldRows = async () => {
      const rows: string[] = [];
      for await (const row of legacy.listEntities<{ id: string }>()) rows.push(`${row.partitionKey}/${row.id}`);
      return rows;
    };
    expect(await oldRows()).toEqual([`${OUTBOX_DUE_KIND}/${scenario.batch.id}`]);
    expect((await services.dueIndex.due(OUTBOX_DUE_KIND, new Date().toISOString(), 1000)).map((entry) => entry.id)).not.toContain(scenario.batch.id);
    // The running service's sweeper found no legacy table at its first sweep and no longer looks; a
    // process started after the upgrade (services of its own) moves the entry, then dispatches the batch.
    const report = await runSweep({ services: createServices(services.config, services.storage) });
    expect(report).toMatchObject({ legacyDueIndex: 1 });
    expect(await oldRows()).toEqual([]);
    const email = await waitForEmail(scenario.message.to.email, { timeoutMs: patience(20_000) });
    expect(email.subject).toContain('Lease <2026>.pdf');
    await waitUntil(async () => (await lastEmailOf(scenario))?.status === 'sent', 10_000, 'lastEmail sent');
    expect((await services.outbox.read(scenario.ownerId, scenario.batch.id))!.dispatchedAt).not.toBeNull();
    expect((await services.dueIndex.due(OUTBOX_DUE_KIND, new Date().toISOString(), 1000)).map((entry) => entry.id)).not.toContain(scenario.batch.id);
    expect(await emailsTo(scenario.message.to.email)).toHaveLength(1);
    await legacy.deleteTable();
  });
});
