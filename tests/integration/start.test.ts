/**
 * `npm start` as a newcomer runs it (README.md#quick-start): on an empty folder it generates local
 * secrets, starts Azurite (Blob, Queue, Table) with data on disk and a mail catcher, serves the API
 * with its queue and timer functions, prints its address, the complete storage connection string,
 * the mail catcher's address and an invitation code; `npm run invite` beside it needs no settings;
 * an e-mail the service sends shows in the mail catcher; the README's curl session works as written
 * against it (the owner completing an envelope, then a recipient signing another with the signing
 * token from the invitation in the mail catcher, its files in a temporary folder, every JSON answer on
 * a line of its own), then its webhook section (its receiver, verifying and printing the events of an
 * envelope sent), then its "Sign in a browser" part registers in the console with the same code;
 * Ctrl-C stops everything; a restart keeps data, secrets and e-mails. A bad setting stops it with one
 * line naming the setting. Deadlines wait for the service, never assume a quiet machine
 * (`tests/support/patience.ts`).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { existsSync, statSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, symlink, writeFile } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { uuidv7 } from '../../src/lib/ids.js';
import { OutboxStore } from '../../src/lib/notifications/outboxRepository.js';
import { createStorage } from '../../src/lib/storage/clients.js';
import { dueIndexOf } from '../../src/lib/storage/dueIndex.js';
import { launchChromium, screenshot } from '../support/browser.js';
import { emailsTo, waitForEmail } from '../support/mail.js';
import { patience } from '../support/patience.js';
import { tool } from '../support/tools.js';

const START = path.resolve('dist/src/local/start.js');
/**
 * How long `npm start` may take to print its invitation code: it starts Azurite, the mail catcher and
 * the API, each a Node process or more, which takes seconds on a quiet machine and far longer on a
 * loaded one; the wait ends as soon as the code is printed.
 */
const START_DEADLINE_MS = patience(120_000);
/** A test that starts the service (or runs the README's sessions against it) may take this long. */
const TEST_DEADLINE_MS = patience(300_000);
let root: string;

/** A clean environment: nothing of the test suite's settings leaks into the started service. */
function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    AZURITE_BLOB_PORT: '0',
    AZURITE_QUEUE_PORT: '0',
    AZURITE_TABLE_PORT: '0',
    MAIL_CATCHER_SMTP_PORT: '0',
    MAIL_CATCHER_WEB_PORT: '0',
    SMS_CATCHER_PORT: '0',
    PORT: '0',
    BCRYPT_COST: '10',
    ...extra,
  };
}

interface Started {
  child: ChildProcess;
  apiUrl: string;
  code: string;
  /** The storage connection string it printed. */
  connectionString: string;
  /** The mail catcher's web address and SMTP URL it printed. */
  mailCatcherUrl: string;
  smtpUrl: string;
  /** The SMS catcher's address it printed. */
  smsCatcherUrl: string;
  output: string[];
}

async function start(extra: Record<string, string> = {}): Promise<Started> {
  const child = spawn(process.execPath, [START], { cwd: root, env: cleanEnv(extra), stdio: ['ignore', 'pipe', 'pipe'] });
  const output: string[] = [];
  readline.createInterface({ input: child.stderr! }).on('line', (line) => output.push(line));
  return await new Promise<Started>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`not started within ${START_DEADLINE_MS / 1000} s:\n${output.join('\n')}`)), START_DEADLINE_MS);
    let apiUrl = '';
    let connectionString = '';
    let mailCatcherUrl = '';
    let smtpUrl = '';
    let smsCatcherUrl = '';
    readline.createInterface({ input: child.stdout! }).on('line', (line) => {
      output.push(line);
      apiUrl = /API listening at (\S+)/.exec(line)?.[1] ?? apiUrl;
      connectionString = /^Storage connection string: (\S+)$/.exec(line)?.[1] ?? connectionString;
      const catcher = /^Mail catcher \(every e-mail the service sends\): (\S+) \(SMTP at (\S+)\)$/.exec(line);
      if (catcher !== null) [, mailCatcherUrl, smtpUrl] = catcher as unknown as [string, string, string];
      smsCatcherUrl = /^SMS catcher: (\S+)$/.exec(line)?.[1] ?? smsCatcherUrl;
      const code = /Invitation code .*: (inv_\S+)/.exec(line)?.[1];
      if (code !== undefined) {
        clearTimeout(timer);
        resolve({ child, apiUrl, code, connectionString, mailCatcherUrl, smtpUrl, smsCatcherUrl, output });
      }
    });
    child.once('exit', (exitCode) => reject(new Error(`exited with ${exitCode}:\n${output.join('\n')}`)));
  });
}

async function stop(started: Started): Promise<number | null> {
  const exited = new Promise<number | null>((resolve) => started.child.once('exit', (code) => resolve(code)));
  started.child.kill('SIGINT');
  return await exited;
}

/**
 * The shell blocks of the README's "A session with curl", in order, as one script, without their
 * placeholder lines (`API=`, `CODE=`, `MAIL=`: the test sets them from what npm start printed).
 */
async function readmeSession(): Promise<string> {
  const readme = await readFile('README.md', 'utf8');
  const start = readme.indexOf('## A session with curl');
  const end = readme.indexOf('\n## ', start + 1);
  const section = readme.slice(start, end === -1 ? undefined : end);
  const blocks = [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => match[1]!);
  if (blocks.length !== 2) throw new Error(`README's curl session should have two shell blocks, found ${blocks.length}`);
  return blocks
    .join('\n')
    .split('\n')
    .filter((line) => !/^(API|CODE|MAIL)=/.test(line))
    .join('\n');
}

/**
 * The README's "Webhooks to a local receiver" block, in its two parts (registering the webhook, and
 * the receiver), with the receiver's port 4000 replaced by `port`: a fixed port may be taken on a
 * shared machine.
 */
async function readmeWebhookSession(port: number): Promise<{ register: string; receiver: string }> {
  const readme = await readFile('README.md', 'utf8');
  const start = readme.indexOf('## Webhooks to a local receiver');
  const block = /```sh\n([\s\S]*?)```/.exec(readme.slice(start))![1]!;
  const split = block.indexOf('# A receiver');
  if (split === -1 || !block.includes('4000')) throw new Error("README's webhook block changed: update this test");
  const withPort = (text: string) => text.replaceAll('4000', String(port));
  return { register: withPort(block.slice(0, split)), receiver: withPort(block.slice(split)) };
}

/** A TCP port nothing listens on now. */
async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

beforeAll(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), 'npm-start-'));
  // The README's webhook receiver requires standardwebhooks from the project folder.
  await symlink(path.resolve('node_modules'), path.join(root, 'node_modules'));
  // The README's session writes its files to `OUT=$(mktemp -d)`: here, under root/tmp.
  await mkdir(path.join(root, 'tmp'));
  // The README's session uploads tests/corpus/pdf/fill_form.pdf, relative to the project folder.
  await symlink(path.resolve('tests'), path.join(root, 'tests'));
  // and runs `npm run verify` there: the project's scripts, their build check and the built verifier.
  for (const entry of ['package.json', 'scripts', 'dist']) await symlink(path.resolve(entry), path.join(root, entry));
});

describe('npm start on an empty folder', () => {
  let first: Started;

  afterAll(async () => {
    if (first?.child.exitCode === null) await stop(first);
  }, TEST_DEADLINE_MS);

  test('generates secrets, starts Azurite and the API, prints the address and an invitation code good for several registrations', async () => {
    // Started as the README's webhook section asks, so that its loopback receiver is allowed.
    first = await start({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' });
    expect(first.output).toContain(`Invitation code (5 registrations, valid 7 days): ${first.code}`);
    expect(first.apiUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api$/);
    expect((await fetch(`${first.apiUrl}/health`)).status).toBe(200);
    const secrets = path.join(root, '.local/secrets.json');
    expect(existsSync(secrets)).toBe(true);
    expect(statSync(secrets).mode & 0o777).toBe(0o600);
    expect(Object.keys(JSON.parse(await readFile(secrets, 'utf8')) as object).sort()).toEqual(['JWT_SECRET', 'LOG_SIGNING_KEY', 'SEAL_P12_BASE64', 'SEAL_P12_PASSPHRASE']);
    expect(existsSync(path.join(root, '.azurite'))).toBe(true);
    // docs/api.md#captcha-cloudflare-turnstile: without a Turnstile secret, captcha tokens are ignored and a warning says so at start.
    expect(first.output.some((line) => line.includes('TURNSTILE_SECRET_KEY is not set'))).toBe(true);
    // With no timestamp authority, seals are B-B, and the start says how to point it at one.
    expect(first.output).toContainEqual(expect.stringMatching(/^Seals: PAdES B-B, no timestamp authority \(set TSA_URL/));
  }, TEST_DEADLINE_MS);

  test('prints the complete storage connection string, which reaches the Blob, Queue and Table storage it uses', async () => {
    expect(first.connectionString).toMatch(/^DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=[A-Za-z0-9+/=]{88};BlobEndpoint=http:\/\/127\.0\.0\.1:\d+\/devstoreaccount1;QueueEndpoint=http:\/\/127\.0\.0\.1:\d+\/devstoreaccount1;TableEndpoint=http:\/\/127\.0\.0\.1:\d+\/devstoreaccount1;$/);
    const storage = createStorage({ kind: 'connectionString', connectionString: first.connectionString });
    const queues: string[] = [];
    for await (const queue of storage.queueService.listQueues()) queues.push(queue.name);
    expect(queues).toEqual(expect.arrayContaining(['outbox-email', 'outbox-email-poison', 'outbox-events', 'outbox-events-poison']));
    expect(await storage.containers.documents.exists()).toBe(true);
    const runtime = path.join(root, '.local/runtime.json');
    expect(statSync(runtime).mode & 0o777).toBe(0o600);
    expect(JSON.parse(await readFile(runtime, 'utf8'))).toMatchObject({
      pid: first.child.pid,
      apiUrl: first.apiUrl,
      mailCatcherUrl: first.mailCatcherUrl,
      storage: { kind: 'connectionString', connectionString: first.connectionString },
    });
  });

  test('prints the mail catcher, whose web page and API show the e-mails the queue function sends through SMTP_URL', async () => {
    expect(first.mailCatcherUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(first.smtpUrl).toMatch(/^smtp:\/\/127\.0\.0\.1:\d+$/);
    const page = await fetch(first.mailCatcherUrl, { headers: { Accept: 'text/html' } });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<html');
    // A change's outbox batch, written to the storage npm start printed and dispatched to its queue.
    const storage = createStorage({ kind: 'connectionString', connectionString: first.connectionString });
    const outbox = new OutboxStore(storage.tables.envelopes, storage.queues, dueIndexOf(storage));
    const owner = `owner-${randomUUID()}@example.com`;
    const batch = {
      id: uuidv7(),
      ownerId: randomUUID(),
      envelopeId: uuidv7(),
      createdAt: new Date().toISOString(),
      messages: [
        {
          kind: 'email' as const,
          type: 'expired' as const,
          envelopeId: uuidv7(),
          recipientId: null,
          to: { email: owner, name: null },
          documentName: 'Lease.pdf',
          ownerEmail: owner,
          expiresAt: new Date().toISOString(),
          reason: null,
          declinedBy: null,
          linkSalt: null,
        },
      ],
    };
    await storage.tables.envelopes.submitTransaction([await outbox.prepare(batch)]);
    expect(await outbox.dispatch(batch)).toBe(true);
    const email = await waitForEmail(owner, {}, first.mailCatcherUrl);
    expect(email.subject).toBe('Expired: Lease.pdf');
    expect(email.text).toContain(batch.messages[0]!.envelopeId);
    // Nothing went to the test suite's own SMTP server.
    expect(await emailsTo(owner)).toHaveLength(0);
  });

  test('prints the SMS catcher, whose page lists the text messages it received', async () => {
    expect(first.smsCatcherUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const page = await fetch(first.smsCatcherUrl);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<h1>SMS catcher</h1>');
    expect(await (await fetch(`${first.smsCatcherUrl}/api/messages`)).json()).toEqual([]);
    // It is Communication Services' SMS API for the service: an unsigned request is refused.
    expect((await fetch(`${first.smsCatcherUrl}/sms?api-version=2021-03-07`, { method: 'POST', body: '{}' })).status).toBe(401);
  });

  test('npm run invite beside it finds its storage with no settings at all', async () => {
    const result = await tool(process.execPath, [path.resolve('dist/src/local/invite.js')], root, { PATH: process.env.PATH, HOME: process.env.HOME });
    expect(result.stderr).toContain(`Using the storage of the npm start running in this folder (process ${first.child.pid}`);
    expect(result.code).toBe(0);
    const code = result.stdout.trim().split('\n').at(-1)!;
    expect(code).toMatch(/^inv_[A-Za-z0-9_-]{32}$/);
    const registered = await fetch(`${first.apiUrl}/Register`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ email: `grace-${randomUUID()}@example.com`, password: 'another long password', invitationCode: code }),
    });
    expect(registered.status).toBe(201);
  });

  test("the README's curl session works as written: the owner completes one envelope, a recipient signs another with the link from the mail catcher", async () => {
    const tmp = path.join(root, 'tmp');
    const result = await tool('bash', ['-e', '-c', await readmeSession()], root, { ...process.env, API: first.apiUrl, CODE: first.code, MAIL: first.mailCatcherUrl, TMPDIR: tmp });
    expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
    // Its files went to the temporary folder it made, none to the project folder.
    const [out, ...others] = await readdir(tmp);
    expect({ out, others }).toEqual({ out: expect.any(String), others: [] });
    const outDir = path.join(tmp, out!);
    expect((await readdir(outDir)).sort()).toEqual(['complete.json', 'sealed.pdf', 'signed.json', 'signed.pdf', 'view.json']);
    expect((await readdir(root)).filter((name) => /\.(json|pdf)$/.test(name) && name !== 'package.json')).toEqual([]);
    // Every JSON answer it prints ends its line: each line that starts one is exactly one JSON value.
    const jsonLines = result.stdout.split('\n').filter((line) => /^[[{]/.test(line));
    expect(jsonLines.length).toBeGreaterThanOrEqual(5);
    for (const line of jsonLines) expect(() => JSON.parse(line) as unknown).not.toThrow();
    const completion = JSON.parse(await readFile(path.join(outDir, 'complete.json'), 'utf8')) as { hash: string; signedUrl: string };
    expect(result.stdout).toContain(`${completion.hash}  ${path.join(outDir, 'sealed.pdf')}`);
    expect(result.stdout).toContain('"envelopeId"');
    expect(result.stdout).toContain('envelope.completed');
    // Both sealed PDFs verify: the owner's (step 6) and the one Bob's signature completed (step 11).
    expect(result.stdout.match(/Signature is Valid\./g)).toHaveLength(2);
    expect(result.stdout.match(/Total document signed/g)).toHaveLength(2);
    // Bob signed through the recipient's API with the token from his invitation e-mail.
    const signed = JSON.parse(await readFile(path.join(outDir, 'signed.json'), 'utf8')) as { envelope: { id: string; status: string }; recipient: { email: string; status: string }; signedUrl: string };
    expect(signed).toMatchObject({ envelope: { status: 'completed' }, recipient: { email: 'bob@example.com', status: 'signed' }, signedUrl: expect.any(String) });
    expect(result.stdout).toMatch(/^completed$/m);
    expect(completion.hash).not.toBe(createHash('sha256').update(await readFile(path.join(outDir, 'signed.pdf'))).digest('hex'));
    const invitation = await waitForEmail('bob@example.com', { subject: /^Please review and sign: / }, first.mailCatcherUrl);
    expect(invitation.text).toContain(signed.envelope.id);
    expect(invitation.text).toContain(`${first.apiUrl}/sign#`);
    // The owner registered with a display name: the invitation names her with it.
    expect(invitation.text).toContain('Ada Lovelace <ada@example.com> asks you to sign "contract.pdf".');
    // The typed signature is drawn into the page, and the certificate lists Bob as signed.
    const text = (await tool('pdftotext', [path.join(outDir, 'signed.pdf'), '-'])).stdout;
    expect(text.match(/Bob Builder/g)?.length).toBeGreaterThanOrEqual(2);
  }, TEST_DEADLINE_MS);

  test("then the README's webhook section works as written: its receiver verifies and prints the events of an envelope sent", async () => {
    const port = await freePort();
    const { register, receiver } = await readmeWebhookSession(port);
    const token = ((await (await fetch(`${first.apiUrl}/Login`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ email: 'ada@example.com', password: 'correct horse battery' }) })).json()) as { token: string }).token;
    const registered = await tool('bash', ['-e', '-c', `${register}\necho "SECRET=$SECRET"`], root, { ...process.env, API: first.apiUrl, TOKEN: token });
    expect({ code: registered.code, stderr: registered.stderr }).toEqual({ code: 0, stderr: '' });
    const secret = /^SECRET=(whsec_\S+)$/m.exec(registered.stdout)?.[1];
    expect(secret).toBeDefined();

    // In a process group of its own, so that stopping it stops the node process bash starts too.
    const child = spawn('bash', ['-c', receiver], { cwd: root, env: { ...process.env, SECRET: secret! }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    const printed: string[] = [];
    readline.createInterface({ input: child.stdout! }).on('line', (line) => printed.push(line));
    readline.createInterface({ input: child.stderr! }).on('line', (line) => printed.push(`stderr: ${line}`));
    try {
      // "Send an envelope in another terminal": here through the API, as that terminal would.
      const auth = { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' };
      const ticket = (await (await fetch(`${first.apiUrl}/GetUploadUrl`, { method: 'POST', headers: auth, body: JSON.stringify({ filename: 'hooks.pdf', mimetype: 'application/pdf' }) })).json()) as { envelopeId: string; uploadUrl: string };
      const uploaded = await fetch(ticket.uploadUrl, { method: 'PUT', headers: { 'x-ms-blob-type': 'BlockBlob', 'Content-Type': 'application/pdf' }, body: await readFile('tests/corpus/pdf/fill_form.pdf') });
      expect(uploaded.status).toBe(201);
      const sent = await fetch(`${first.apiUrl}/envelopes/${ticket.envelopeId}`, { method: 'PUT', headers: auth, body: JSON.stringify({ signers: [{ email: 'hooks@example.com', name: 'Hook Reader' }], status: 'sent' }) });
      expect(sent.status).toBe(200);
      const deadline = Date.now() + patience(60_000);
      while (!printed.some((line) => line.startsWith('envelope.sent ')) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 200));
      const line = printed.find((entry) => entry.startsWith('envelope.sent '));
      expect({ line, printed }).toEqual({ line: expect.any(String), printed: expect.any(Array) });
      expect(JSON.parse(line!.slice('envelope.sent '.length))).toMatchObject({ envelopeId: ticket.envelopeId, status: 'sent' });
      expect(printed.filter((entry) => entry.startsWith('refused:') || entry.startsWith('stderr:'))).toEqual([]);
    } finally {
      process.kill(-child.pid!, 'SIGTERM');
    }
  }, TEST_DEADLINE_MS);

  test('then the README\'s "Sign in a browser" works as written: the console registers a second account with the code npm start printed, and logs in', async () => {
    const browser = await launchChromium();
    try {
      const page = await browser.newPage({ viewport: { width: 1100, height: 900 } });
      page.setDefaultTimeout(patience(30_000));
      const email = `grace-${randomUUID()}@example.com`;
      await page.goto(`${first.apiUrl}/console`);
      await page.getByLabel('E-mail address').first().fill(email);
      await page.getByLabel(/^Password/).first().fill('another long password');
      await page.getByLabel('Invitation code').fill(first.code);
      await page.getByRole('button', { name: 'Register' }).click();
      await page.locator('#status').filter({ hasText: `Account created for ${email}` }).waitFor();
      await page.keyboard.type('another long password');
      await page.keyboard.press('Enter');
      await page.locator('#session-email').filter({ hasText: email }).waitFor();
      await screenshot(page, 'start-readme-console-registered');
    } finally {
      await browser.close();
    }
  }, TEST_DEADLINE_MS);

  test('Ctrl-C stops the API and Azurite; a restart keeps the data and the secrets', async () => {
    const token = JSON.parse(
      await (await fetch(`${first.apiUrl}/Login`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ email: 'ada@example.com', password: 'correct horse battery' }) })).text(),
    ).token as string;
    const caught = (await (await fetch(`${first.mailCatcherUrl}/api/email`)).json()) as { subject: string }[];
    expect(await stop(first)).toBe(0);
    await expect(fetch(`${first.apiUrl}/health`)).rejects.toThrow();
    await expect(fetch(first.mailCatcherUrl)).rejects.toThrow();
    expect(existsSync(path.join(root, '.local/runtime.json'))).toBe(false);

    const second = await start();
    try {
      const list = await fetch(`${second.apiUrl}/envelopes`, { headers: { Authorization: `Bearer ${token}` } });
      expect(list.status).toBe(200);
      expect(((await list.json()) as { status: string }[]).map((envelope) => envelope.status)).toEqual(['sent', 'completed', 'completed']);
      expect(second.code).not.toBe(first.code);
      const kept = (await (await fetch(`${second.mailCatcherUrl}/api/email`)).json()) as { subject: string }[];
      // Every e-mail caught before the stop is still there, first and in order. E-mails still queued at
      // the stop may follow after the restart (nothing queued is lost), so more than that may be kept.
      expect(kept.slice(0, caught.length).map((email) => email.subject)).toEqual(caught.map((email) => email.subject));
      expect(caught.length).toBeGreaterThan(0);
    } finally {
      expect(await stop(second)).toBe(0);
    }
  }, TEST_DEADLINE_MS);

  test('npm run invite recognises a runtime file left by an npm start that was killed, and says so', async () => {
    const dead = spawn(process.execPath, ['-e', '']);
    const pid = dead.pid!;
    await new Promise((resolve) => dead.once('exit', resolve));
    await writeFile(
      path.join(root, '.local/runtime.json'),
      JSON.stringify({ pid, startedAt: '2026-01-01T00:00:00.000Z', apiUrl: 'http://127.0.0.1:1/api', mailCatcherUrl: null, storage: { kind: 'connectionString', connectionString: 'UseDevelopmentStorage=true' } }),
    );
    const result = await tool(process.execPath, [path.resolve('dist/src/local/invite.js')], root, { PATH: process.env.PATH, HOME: process.env.HOME });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr.trim().split('\n')).toEqual([
      `invite: .local/runtime.json was left by an npm start (process ${pid}, started 2026-01-01T00:00:00.000Z) that no longer runs: start npm start again in this folder, or set STORAGE_CONNECTION_STRING.`,
    ]);
  });
});

describe('a bad setting', () => {
  test.each([
    [{ JWT_SECRET: 'too-short' }, 'JWT_SECRET'],
    [{ BCRYPT_COST: '4' }, 'BCRYPT_COST'],
    [{ AZURITE_BLOB_PORT: 'ten' }, 'AZURITE_BLOB_PORT'],
  ])('%j stops start-up with one line naming %s', async (settings, name) => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'npm-start-bad-'));
    const child = spawn(process.execPath, [START], { cwd: dir, env: cleanEnv(settings), stdio: ['ignore', 'pipe', 'pipe'] });
    const stderr: string[] = [];
    readline.createInterface({ input: child.stderr! }).on('line', (line) => stderr.push(line));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(code).toBe(1);
    expect(stderr.filter((line) => line.includes(name))).toEqual([expect.stringMatching(new RegExp(`^Invalid setting ${name}: `))]);
  }, TEST_DEADLINE_MS);
});
