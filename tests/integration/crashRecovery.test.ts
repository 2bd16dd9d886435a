/**
 * Nothing lost, nothing stuck, nothing twice when a process or storage dies mid-way (docs/api.md#what-completion-does,
 * docs/api.md#the-recipients-api, docs/api.md#e-mail, docs/api.md#webhooks), tried as an operator would: the service runs as `npm start` runs it (its own process
 * group), on its own Azurite keeping its data on disk, sending e-mail to its own SMTP server and
 * webhooks to a receiver on loopback, and this test
 * 1. kills the process group with SIGKILL the moment a completing signature's sealed blob is stored
 *    (during completion), then as soon as a send is committed (during sending), then while the SMTP
 *    server holds a completed e-mail's DATA unanswered (during e-mail delivery), restarting it each time;
 * 2. stalls the SMTP server, then stops it, then starts it again;
 * 3. stops Azurite for {@link OUTAGE_MS} while owners and recipients keep calling the API, and
 *    recipients sign, then starts it again on the same data.
 * Then, once everything settled: every recipient action answered 200 is recorded; every envelope
 * whose recipients all acted is completed once (one `envelope.completed` in its audit trail) with a
 * seal `pdfsig` finds valid and covering the whole document, whose SHA-256 is the envelope's `hash`;
 * every e-mail of every outbox row (invitations, reminders, completed e-mails) arrived, duplicates
 * only where the documented promise allows them (accepted by the mail server just before a kill, or
 * while storage was down); every webhook event arrived at least once; no recipient was kept from
 * acting for more than 30 s; no `lastEmail` is left `queued`; every refusal during the storage outage
 * was a 503 with `Retry-After`.
 *
 * Its durations are settable (CHAOS_STORAGE_OUTAGE_SECONDS, CHAOS_SMTP_STALL_SECONDS,
 * CHAOS_SMTP_STOP_SECONDS, CHAOS_ENVELOPES); with the defaults it takes about two minutes, most of
 * it waiting for the queue functions' one-minute lease to bring back the work of a killed process.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { SMTPServer, type SMTPServerSession } from 'smtp-server';
import { OutboxStore, type StoredOutboxBatch } from '../../src/lib/notifications/outboxRepository.js';
import { createStorage, type Storage } from '../../src/lib/storage/clients.js';
import { dueIndexOf } from '../../src/lib/storage/dueIndex.js';
import { EnvelopeRepository } from '../../src/lib/storage/envelopeRepository.js';
import { startAzurite, type RunningAzurite } from '../../src/local/azurite.js';
import { pdfsig } from '../pdf/pdfTools.js';
import { ApiClient, corpusPdf, createEnvelopeWithDocument, type ApiResponse, type TestUser } from '../support/service.js';
import { tempFile } from '../support/tools.js';
import { patience, waitUntil } from '../support/patience.js';
import { startReceiver, type Receiver } from '../support/webhookReceiver.js';

/** The test's own durations and sizes, settable so that a longer run needs no edit. */
const OUTAGE_MS = Number(process.env.CHAOS_STORAGE_OUTAGE_SECONDS ?? 10) * 1000;
const SMTP_STALL_MS = Number(process.env.CHAOS_SMTP_STALL_SECONDS ?? 3) * 1000;
const SMTP_STOP_MS = Number(process.env.CHAOS_SMTP_STOP_SECONDS ?? 4) * 1000;
/** Envelopes whose recipients sign during the storage outage. */
const ENVELOPES = Number(process.env.CHAOS_ENVELOPES ?? 2);
/** Longest a recipient may be kept from acting. */
const LOCKOUT_MS = 30_000;
/**
 * Deadline for everything to arrive after the last fault: the queue functions' lease (60 s), the
 * queue's retry delay (`host.json` visibilityTimeout, 60 s), the sweeper's re-dispatch of a message
 * received but never started on by a killed process (`OUTBOX_UNCLAIMED_SECONDS`, 150 s after its
 * dispatch, the sweep running every 2 s here) and room for a slow machine; scaled by `waitUntil`.
 */
const SETTLE_MS = 200_000;

const START = path.resolve('dist/src/local/start.js');

/** When the mail server answered 250 to a message, epoch ms, and what it was. */
interface Accepted {
  /** The `Message-ID` header: the service writes `<batchId.index@domain>`, one per outbox message. */
  messageId: string;
  to: string[];
  subject: string;
  text: string;
  at: number;
}

/**
 * A mail server that accepts everything, or stalls: holds every DATA answer until {@link release}.
 * A message whose client went away before its answer is dropped (the server never accepted it).
 */
class TestMailServer {
  accepted: Accepted[] = [];
  stalling = false;
  private held: { session: string; answer: (refuse: boolean) => void }[] = [];
  private readonly closedSessions = new Set<string>();
  private server: SMTPServer | undefined;
  port = 0;

  async start(): Promise<void> {
    const server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS', 'AUTH'],
      logger: false,
      closeTimeout: 500,
      onClose: (session: SMTPServerSession) => {
        this.closedSessions.add(session.id);
      },
      onData: (stream, session, callback) => {
        const chunks: Buffer[] = [];
        stream.on('data', (chunk: Buffer) => chunks.push(chunk));
        stream.on('end', () => {
          const answer = (refuse: boolean) => {
            if (refuse) return callback(Object.assign(new Error('Try again later'), { responseCode: 451 }));
            if (this.closedSessions.has(session.id)) return callback();
            const raw = Buffer.concat(chunks).toString('utf8');
            this.accepted.push({
              messageId: /^Message-ID: <([^>]*)>/im.exec(raw)?.[1] ?? '',
              to: session.envelope.rcptTo.map((entry) => entry.address),
              subject: /^Subject: (.*)$/m.exec(raw)?.[1]?.trim() ?? '',
              text: decodeQuotedPrintable(raw),
              at: Date.now(),
            });
            callback();
          };
          if (this.stalling) this.held.push({ session: session.id, answer });
          else answer(false);
        });
      },
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => resolve());
    });
    this.port = (server.server.address() as AddressInfo).port;
    this.server = server;
  }

  get heldCount(): number {
    return this.held.length;
  }

  /** Whether every client waiting for a held answer has gone (the server saw its connection close). */
  get heldClientsGone(): boolean {
    return this.held.every((entry) => this.closedSessions.has(entry.session));
  }

  /** Answers every held message: accepted, or refused with 451. */
  release(refuse = false): void {
    const held = this.held;
    this.held = [];
    for (const entry of held) entry.answer(refuse);
  }

  async stop(): Promise<void> {
    this.release(true);
    const server = this.server;
    this.server = undefined;
    if (server !== undefined) await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

/** Soft line breaks and `=XX` escapes of quoted-printable bodies (RFC 2045), so links read whole. */
function decodeQuotedPrintable(raw: string): string {
  return raw.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
}

interface Host {
  child: ChildProcess;
  api: ApiClient;
  code: string;
  exited: Promise<void>;
}

let dataDir: string;
let hostDir: string;
let azurite: RunningAzurite | undefined;
let azuritePorts: { blobPort: number; queuePort: number; tablePort: number };
let connectionString: string;
let storage: Storage;
let mail: TestMailServer;
let receiver: Receiver;
let host: Host | undefined;
const hostOutput: string[] = [];
/** When each kill happened, epoch ms. */
const kills: number[] = [];
/** Storage outages, epoch ms. */
const outages: { from: number; to: number }[] = [];

async function startStorage(): Promise<void> {
  azurite = await startAzurite({ location: path.join(dataDir, 'azurite'), ...azuritePorts });
}

function portOf(endpoint: string): number {
  return Number(new URL(endpoint).port);
}

/** Starts the service as `npm start` does, in a process group of its own; resolves once it serves. */
async function startHost(): Promise<Host> {
  const child = spawn(process.execPath, [START], {
    cwd: hostDir,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      PORT: '0',
      // The text-message catcher on a free port: another service on this machine may hold its default.
      SMS_CATCHER_PORT: '0',
      STORAGE_CONNECTION_STRING: connectionString,
      SMTP_URL: `smtp://127.0.0.1:${mail.port}`,
      SWEEP_SCHEDULE: '*/2 * * * * *',
      REMINDER_DAY_SECONDS: '10',
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      WEBHOOK_RETRY_SECONDS: '1,2,4,8,16',
      BCRYPT_COST: '10',
    },
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  readline.createInterface({ input: child.stderr! }).on('line', (line) => hostOutput.push(line));
  // CHAOS_HOST_LOG=<file>: everything the service printed, for a look after a failed run.
  if (process.env.CHAOS_HOST_LOG !== undefined) {
    const log = createWriteStream(process.env.CHAOS_HOST_LOG, { flags: 'a' });
    log.write(`--- started ${new Date().toISOString()}\n`);
    child.stdout!.pipe(log, { end: false });
    child.stderr!.pipe(log, { end: false });
  }
  return await new Promise<Host>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the service did not start within 60 s:\n${hostOutput.slice(-30).join('\n')}`)), 60_000);
    let apiUrl = '';
    readline.createInterface({ input: child.stdout! }).on('line', (line) => {
      hostOutput.push(line);
      apiUrl = /API listening at (\S+)/.exec(line)?.[1] ?? apiUrl;
      const code = /Invitation code .*: (inv_\S+)/.exec(line)?.[1];
      if (code !== undefined) {
        clearTimeout(timer);
        resolve({ child, api: new ApiClient(apiUrl), code, exited });
      }
    });
    void exited.then(() => reject(new Error(`the service exited:\n${hostOutput.slice(-30).join('\n')}`)));
  });
}

/** SIGKILL to the service's whole process group, as `kill -9 -<pgid>` does. */
async function killHost(): Promise<void> {
  const running = host!;
  host = undefined;
  process.kill(-running.child.pid!, 'SIGKILL');
  kills.push(Date.now());
  await running.exited;
}

function api(): ApiClient {
  if (host === undefined) throw new Error('the service is not running');
  return host.api;
}

/** The fault's own duration (not a wait for a condition). */
async function hold(ms: number): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, ms));
}

let owner: TestUser;
/** Every envelope of the run: its id, document name and recipients' addresses. */
const envelopes: { id: string; documentName: string; recipients: string[] }[] = [];
/** Recipient actions answered 200: envelope and recipient address. */
const answered: { envelopeId: string; email: string }[] = [];
/** Answers to the API during the storage outage that were not 2xx. */
const refusals: { status: number; retryAfter: string | null; type: unknown; ms: number }[] = [];

/** Creates an envelope with a document of its own name and signers at new addresses (sent unless `send` is false). */
async function newEnvelope(label: string, signers: number, extra: Record<string, unknown> = {}, send = true): Promise<{ id: string; documentName: string; recipients: string[] }> {
  const documentName = `${label}-${randomUUID().slice(0, 8)}.pdf`;
  const recipients = Array.from({ length: signers }, (_, index) => `${label}-${index}-${randomUUID().slice(0, 8)}@example.com`);
  const id = await createEnvelopeWithDocument(api(), owner, await corpusPdf('normal.pdf'), documentName);
  const envelope = { id, documentName, recipients };
  envelopes.push(envelope);
  if (send) {
    const sent = await api().request('PUT', `/envelopes/${id}`, { token: owner.token, json: { ...sendBody(envelope), ...extra } });
    expect(sent.status).toBe(200);
  }
  return envelope;
}

function sendBody(envelope: { recipients: string[] }) {
  return { signers: envelope.recipients.map((email, index) => ({ email, name: `Signer ${index}` })), signingOrder: 'parallel', status: 'sent' };
}

/** The signing token of the invitation to `email` (waits for the e-mail). */
async function tokenOf(email: string): Promise<string> {
  return await waitUntil(
    async () => {
      const invitation = mail.accepted.find((message) => message.to.includes(email) && message.subject.startsWith('Please review and sign:'));
      return invitation === undefined ? undefined : /\/api\/sign#([A-Za-z0-9_-]+)/.exec(invitation.text)?.[1];
    },
    90_000,
    `the invitation to ${email}`,
    { retryErrors: true },
  );
}

/**
 * Signs as a recipient would, retrying what the service asks to retry (503, 409 contended) and
 * network failures while the service restarts, until it is answered 200 or the action shows as done
 * (409 already-acted, or envelope-closed because it completed). Fails when that takes longer than
 * {@link LOCKOUT_MS} beyond `extraMs` (a storage outage the recipient sits through).
 */
async function signUntilAnswered(envelopeId: string, email: string, token: string, extraMs = 0): Promise<void> {
  await waitUntil(
    async () => {
      let response: ApiResponse;
      try {
        response = await api().request('POST', '/signing/complete', { token, json: { consent: true, values: [] } });
      } catch {
        return undefined; // the service is down or restarting
      }
      if (response.status === 200) {
        answered.push({ envelopeId, email });
        return true;
      }
      const type = String((response.body as { type?: unknown }).type ?? '');
      if (response.status === 409 && (type.endsWith('already-acted') || type.endsWith('envelope-closed'))) return true;
      if (response.status === 503 || (response.status === 409 && type.endsWith('envelope-contended'))) return undefined;
      throw new Error(`signing refused: ${response.status} ${response.text}`);
    },
    LOCKOUT_MS + extraMs,
    `${email} to be able to sign`,
    { everyMs: 200, retryErrors: true },
  );
}

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'chaos-data-'));
  hostDir = await mkdtemp(path.join(os.tmpdir(), 'chaos-host-'));
  azurite = await startAzurite({ location: path.join(dataDir, 'azurite') });
  azuritePorts = { blobPort: portOf(azurite.blobEndpoint), queuePort: portOf(azurite.queueEndpoint), tablePort: portOf(azurite.tableEndpoint) };
  connectionString = azurite.connectionString;
  storage = createStorage({ kind: 'connectionString', connectionString }, undefined, 'background');
  mail = new TestMailServer();
  await mail.start();
  receiver = await startReceiver({ kind: 'status', status: 204 });
  host = await startHost();
  const email = `owner-${randomUUID()}@example.com`;
  const password = `pw-${randomUUID()}`;
  const registered = await api().request('POST', '/Register', { json: { email, password, invitationCode: host.code } });
  expect(registered.status).toBe(201);
  const loggedIn = await api().request('POST', '/Login', { json: { email, password } });
  expect(loggedIn.status).toBe(200);
  owner = { email, password, userId: registered.body.userId, token: loggedIn.body.token };
  expect((await api().request('POST', '/webhooks', { token: owner.token, json: { url: receiver.url } })).status).toBe(201);
}, patience(120_000));

afterAll(async () => {
  if (host !== undefined) await killHost();
  await mail?.stop();
  await receiver?.close();
  await azurite?.stop();
  // CHAOS_KEEP_DATA=1 keeps Azurite's data for a look after a failed run.
  if (process.env.CHAOS_KEEP_DATA === undefined) await rm(dataDir, { recursive: true, force: true });
  else console.log(`Azurite data kept in ${dataDir}`);
  await rm(hostDir, { recursive: true, force: true });
});

test('kills, a storage outage and a mail server outage lose nothing, seal nothing twice and lock nobody out', async () => {
  const sealedBlobExists = async (id: string) => {
    for await (const blob of storage.containers.sealed.listBlobsFlat({ prefix: `${id}/` })) if (blob.name !== '') return true;
    return undefined;
  };

  // Envelopes whose recipients act later, sent while everything runs.
  const completing = await newEnvelope('completion', 2);
  const delivering = await newEnvelope('delivery', 1);
  const outage = await Promise.all(Array.from({ length: ENVELOPES }, (_, index) => newEnvelope(`outage${index}`, 1, { remindEveryDays: 1 })));
  const tokens = new Map<string, string>();
  for (const envelope of [completing, delivering, ...outage]) {
    for (const email of envelope.recipients) tokens.set(email, await tokenOf(email));
  }

  // 1. Killed during completion: the last signature's sealed blob is stored, its commit maybe not.
  await signUntilAnswered(completing.id, completing.recipients[0]!, tokens.get(completing.recipients[0]!)!);
  const lastSignature = api()
    .request('POST', '/signing/complete', { token: tokens.get(completing.recipients[1]!)!, json: { consent: true, values: [] } })
    .then((response) => (response.status === 200 ? answered.push({ envelopeId: completing.id, email: completing.recipients[1]! }) : undefined))
    .catch(() => undefined);
  await waitUntil(() => sealedBlobExists(completing.id), 30_000, 'the sealed blob', { everyMs: 5, retryErrors: true });
  await killHost();
  await lastSignature;
  host = await startHost();
  await signUntilAnswered(completing.id, completing.recipients[1]!, tokens.get(completing.recipients[1]!)!);

  // 2. Killed during sending: right after the send committed, before or while its invitations go out.
  const sending = await newEnvelope('sending', 2, {}, false);
  const send = api().request('PUT', `/envelopes/${sending.id}`, { token: owner.token, json: sendBody(sending) }).catch(() => undefined);
  const repository = new EnvelopeRepository(storage.tables.envelopes);
  await waitUntil(async () => ((await repository.read(owner.userId, sending.id))?.record.status === 'sent' ? true : undefined), 30_000, 'the send to commit', { everyMs: 5, retryErrors: true });
  await killHost();
  await send;
  host = await startHost();

  // 3. Killed during e-mail delivery: the mail server holds the completed e-mails' DATA unanswered.
  mail.stalling = true;
  await signUntilAnswered(delivering.id, delivering.recipients[0]!, tokens.get(delivering.recipients[0]!)!);
  await waitUntil(async () => (mail.heldCount > 0 ? true : undefined), 30_000, 'a completed e-mail in delivery', { retryErrors: true });
  await killHost();
  await waitUntil(async () => (mail.heldClientsGone ? true : undefined), 10_000, 'the mail server to see its clients gone', { retryErrors: true });
  mail.release(); // their client is gone: dropped, never accepted
  mail.stalling = false;
  host = await startHost();

  // 4. The mail server stalls, then stops, then comes back (reminders are due meanwhile); the storage
  // outage follows at once, while the e-mails it refused wait for the queue's next try.
  mail.stalling = true;
  await hold(SMTP_STALL_MS);
  await mail.stop();
  mail.stalling = false;
  await hold(SMTP_STOP_MS);
  await mail.start();

  // 5. Storage stops for a while under traffic: owners read, recipients read and sign.
  let trafficOn = true;
  const call = async (route: string, token: string) => {
    const started = Date.now();
    try {
      const response = await api().request('GET', route, { token });
      if (response.status >= 300) {
        refusals.push({ status: response.status, retryAfter: response.headers.get('retry-after'), type: (response.body as { type?: unknown }).type, ms: Date.now() - started });
      }
    } catch {
      // The service itself is up; a network failure would be a finding of its own.
      refusals.push({ status: 0, retryAfter: null, type: 'no answer', ms: Date.now() - started });
    }
  };
  const traffic = (async () => {
    while (trafficOn) {
      await Promise.all([
        call('/envelopes', owner.token),
        ...outage.map((envelope) => call('/signing', tokens.get(envelope.recipients[0]!)!)),
      ]);
    }
  })();
  await azurite!.stop();
  const from = Date.now();
  const signing = Promise.all(outage.map((envelope) => signUntilAnswered(envelope.id, envelope.recipients[0]!, tokens.get(envelope.recipients[0]!)!, OUTAGE_MS)));
  await hold(OUTAGE_MS);
  await startStorage();
  outages.push({ from, to: Date.now() });
  await signing;
  trafficOn = false;
  await traffic;

  // Everything settles: every outbox e-mail and event arrives, no lastEmail stays queued.
  const outbox = new OutboxStore(storage.tables.envelopes, storage.queues, dueIndexOf(storage));
  const batches = async (): Promise<StoredOutboxBatch[]> => {
    const found: StoredOutboxBatch[] = [];
    const rows = storage.tables.envelopes.listEntities<{ batchId: string }>({
      queryOptions: { filter: `PartitionKey eq '${owner.userId}' and RowKey ge 'outbox_' and RowKey lt 'outbox~'`, select: ['batchId'] },
    });
    for await (const row of rows) found.push((await outbox.read(owner.userId, row.batchId))!);
    return found;
  };
  /** The subject of the e-mails this run is about; `undefined` for others (checked by Message-ID alone). */
  const subjectOf = (type: string, documentName: string): string | undefined =>
    ({ invitation: `Please review and sign: ${documentName}`, reminder: `Reminder: please review and sign: ${documentName}`, completed: `Completed: ${documentName}` } as Record<string, string>)[type];
  const missing = async () => {
    const lost: string[] = [];
    for (const batch of await batches()) {
      for (const [index, message] of batch.messages.entries()) {
        if (message.kind === 'event') {
          if (!receiver.requests.some((request) => request.headers['webhook-id'] === message.event.id)) lost.push(`event ${message.event.type} ${message.event.id}`);
          continue;
        }
        // This test's envelopes have no recipient with text messages (docs/api.md#sms).
        if (message.kind === 'sms') {
          lost.push(`unexpected text message ${message.type} ${batch.id}.${index}`);
          continue;
        }
        const arrived = mail.accepted.some(
          (accepted) =>
            accepted.messageId.startsWith(`${batch.id}.${index}@`) &&
            accepted.to.includes(message.to.email) &&
            (subjectOf(message.type, message.documentName) ?? accepted.subject) === accepted.subject &&
            accepted.text.includes(message.envelopeId),
        );
        if (batch.states[index] !== 'sent' || !arrived) lost.push(`${message.type} to ${message.to.email} (${batch.states[index] ?? 'no state'})`);
      }
    }
    for (const envelope of envelopes) {
      const got = await api().request('GET', `/envelopes/${envelope.id}`, { token: owner.token });
      for (const signer of got.body.signers as { email: string; lastEmail: { status: string } | null }[]) {
        if (signer.lastEmail?.status === 'queued') lost.push(`lastEmail of ${signer.email} queued`);
      }
    }
    return lost;
  };
  await waitUntil(async () => ((await missing()).length === 0 ? true : undefined), SETTLE_MS, 'every e-mail, event and lastEmail', { everyMs: 2_000, retryErrors: true }).catch(async (error: unknown) => {
    const unsettled = (await batches())
      .filter((batch) => batch.states.some((state) => state !== 'sent'))
      .map((batch) => `${batch.id} dispatched ${batch.dispatchedAt} states ${JSON.stringify(batch.states)} claims ${JSON.stringify(batch.claims)} kinds ${batch.messages.map((message) => message.kind).join(',')}`);
    const queues = await Promise.all(
      ['outbox-email', 'outbox-events', 'webhook-deliveries'].flatMap((name) => [name, `${name}-poison`]).map(async (name) => {
        const queue = storage.queueService.getQueueClient(name);
        return `${name}: ${(await queue.exists()) ? (await queue.getProperties()).approximateMessagesCount : 'none'}`;
      }),
    );
    // The service's output goes to a file; what is missing comes last, where the end of a long log shows it.
    const outputFile = path.resolve('test-output/crash-recovery-service.log');
    await mkdir(path.dirname(outputFile), { recursive: true });
    await writeFile(outputFile, hostOutput.join('\n'));
    throw new Error(
      `${String(error)}\nservice output: ${outputFile}\nqueues: ${queues.join(', ')}\n` +
        `kills at ${kills.map((at) => new Date(at).toISOString()).join(', ')}; storage down ${outages.map((down) => `${new Date(down.from).toISOString()} to ${new Date(down.to).toISOString()}`).join(', ')}\n` +
        `unsettled outbox rows: ${unsettled.join('\n')}\nstill missing at ${new Date().toISOString()}: ${(await missing()).join('; ')}`,
    );
  });

  // Duplicates only where the promise allows them: a copy accepted around a kill (just before it, or
  // just after, the sender having died waiting for the answer), or while storage was down (its record
  // could not be written), is sent again.
  const allowed = (at: number) => kills.some((kill) => Math.abs(kill - at) < 2_000) || outages.some((down) => at >= down.from - 2_000 && at <= down.to + 30_000);
  const outboxIds = new Set<string>();
  for (const batch of await batches()) {
    for (const [index, message] of batch.messages.entries()) if (message.kind === 'email') outboxIds.add(`${batch.id}.${index}`);
  }
  const unexplained: string[] = [];
  let duplicates = 0;
  for (const id of outboxIds) {
    const copies = mail.accepted.filter((accepted) => accepted.messageId.startsWith(`${id}@`)).sort((a, b) => a.at - b.at);
    for (const extra of copies.slice(1)) {
      duplicates++;
      if (!allowed(copies[0]!.at)) unexplained.push(`${extra.subject} to ${extra.to.join(', ')}: accepted at ${new Date(copies[0]!.at).toISOString()} and again at ${new Date(extra.at).toISOString()}`);
    }
  }
  expect(mail.accepted.filter((accepted) => ![...outboxIds].some((id) => accepted.messageId.startsWith(`${id}@`)))).toEqual([]);
  if (unexplained.length > 0) {
    throw new Error(
      `duplicates outside the promise: ${unexplained.join('; ')}\nkills at ${kills.map((at) => new Date(at).toISOString()).join(', ')}; ` +
        `storage down ${outages.map((down) => `${new Date(down.from).toISOString()} to ${new Date(down.to).toISOString()}`).join(', ')}\nservice output:\n${hostOutput.slice(-60).join('\n')}`,
    );
  }

  // Every action answered 200 is recorded; every envelope whose recipients all acted is completed once, sealed validly.
  for (const envelope of envelopes) {
    const got = await api().request('GET', `/envelopes/${envelope.id}`, { token: owner.token });
    const signers = got.body.signers as { email: string; status: string }[];
    for (const action of answered.filter((entry) => entry.envelopeId === envelope.id)) {
      expect(signers.find((signer) => signer.email === action.email)?.status).toBe('signed');
    }
    if (!signers.every((signer) => signer.status === 'signed')) continue;
    expect(got.body.status).toBe('completed');
    const audit = await api().request('GET', `/envelopes/${envelope.id}/audit`, { token: owner.token });
    const events = (audit.body.events ?? audit.body) as { type: string }[];
    expect(events.filter((event) => event.type === 'envelope.completed')).toHaveLength(1);
    const completedEvents = new Set(
      receiver.requests.filter((request) => JSON.parse(request.body).type === 'envelope.completed' && JSON.parse(request.body).data.envelopeId === envelope.id).map((request) => request.headers['webhook-id']),
    );
    expect(completedEvents.size).toBe(1);
    const view = await api().request('GET', '/signing', { token: tokens.get(envelope.recipients[0]!) ?? (await tokenOf(envelope.recipients[0]!)) });
    const sealed = await fetch(view.body.signedUrl as string);
    const bytes = new Uint8Array(await sealed.arrayBuffer());
    expect(createHash('sha256').update(bytes).digest('hex')).toBe(got.body.hash);
    const signatures = await pdfsig(await tempFile(bytes, 'sealed.pdf'));
    expect(signatures.at(-1)).toMatchObject({ valid: true, totalDocumentSigned: true });
  }
  // The envelopes whose every recipient signed: all of them, here.
  expect(answered.length).toBeGreaterThan(0);

  // Every refusal during the outage was a 503 with Retry-After.
  expect(refusals.filter((refusal) => refusal.status !== 503 || refusal.retryAfter === null)).toEqual([]);
  console.log(
    `Crash recovery: ${kills.length} kills, ${outages.length} storage outage(s), ${mail.accepted.length} e-mails accepted, ${duplicates} duplicate(s), ` +
      `${refusals.length} refusals during the outage (slowest ${Math.max(0, ...refusals.map((refusal) => refusal.ms))} ms), ${receiver.requests.length} webhook requests.`,
  );
}, patience(420_000));
