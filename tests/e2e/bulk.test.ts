/**
 * Bulk send from a template ([docs/api.md#bulk-send](../../docs/api.md#bulk-send)): rows as JSON or
 * as CSV (a byte order mark, quoted commas, quotes and line breaks), every row checked before any job
 * exists (1,001 rows, an unknown column, a role missing, an invalid e-mail on row 417, a bad phone, an
 * unknown field, a bad prefilled value, an unknown locale: each a 400 naming what is wrong and where,
 * nothing made), the quota checked before the job, then the job run from the queue: its status, its
 * rows, its envelopes (sent, with `bulkJobId` and `metadata`, one invitation e-mail each at the suite's
 * SMTP catcher), cancel, the list, who sees which job, `bulk.completed`, and an `Idempotency-Key`.
 * Real HTTP, a real SMTP catcher and an Azurite of its own (the file's service has a small e-mail
 * quota and sends webhooks to a loopback receiver).
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { getServices } from '../../src/lib/services.js';
import { ISO_MS, UUID_V7 } from '../support/contract.js';
import { emailsTo, waitForEmails } from '../support/mail.js';
import { joinedMember } from '../support/organizations.js';
import { patience, waitUntil } from '../support/patience.js';
import { corpusPdf, expectType, ownAzuriteForFile, putToSas, serviceWithSettings, type ApiResponse, type TestService, type TestUser } from '../support/service.js';
import { startReceiver, type Receiver } from '../support/webhookReceiver.js';

const QUOTA = 30;
const azurite = ownAzuriteForFile();
const started = serviceWithSettings({ EMAIL_DAILY_QUOTA: String(QUOTA), WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' });
const receivers: Receiver[] = [];
afterAll(async () => {
  await Promise.all(receivers.map((receiver) => receiver.close()));
  await azurite.stop();
});

let env: TestService;
let owner: TestUser;
let templateId: string;
beforeAll(async () => {
  env = started.env();
  owner = await env.newUser();
  templateId = await activeTemplate(owner);
}, patience(60_000));

/**
 * An active template of `user` with one role, Client, and its fields: a signature, a number labelled
 * "Amount" (0 to 1000), a text labelled "Reference" and a check box labelled "Agreed".
 */
async function activeTemplate(user: TestUser, extraRoles: { id: string; name: string }[] = []): Promise<string> {
  const created = await env.api.request('POST', '/templates', { token: user.token, json: { name: 'Policy', filename: 'policy.pdf', mimetype: 'application/pdf', visibility: 'organization' } });
  expect(created.status).toBe(201);
  const id = created.body.template.id as string;
  expect((await putToSas(created.body.uploadUrl, await corpusPdf('normal.pdf'))).status).toBe(201);
  const updated = await env.api.request('PATCH', `/templates/${id}`, {
    token: user.token,
    json: {
      roles: [{ id: 'client', name: 'Client' }, ...extraRoles],
      fields: [
        { roleId: 'client', type: 'signature', page: 1, x: 0.1, y: 0.8, width: 0.3, height: 0.08 },
        { roleId: 'client', type: 'number', page: 1, x: 0.1, y: 0.1, width: 0.2, height: 0.04, label: 'Amount', min: 0, max: 1000 },
        { roleId: 'client', type: 'text', page: 1, x: 0.1, y: 0.2, width: 0.2, height: 0.04, label: 'Reference', required: false },
        { roleId: 'client', type: 'checkbox', page: 1, x: 0.1, y: 0.3, width: 0.04, height: 0.04, label: 'Agreed', required: false },
        ...extraRoles.map((role) => ({ roleId: role.id, type: 'signature', page: 1, x: 0.5, y: 0.8, width: 0.3, height: 0.08 })),
      ],
      status: 'active',
    },
  });
  expect(updated.status).toBe(200);
  return id;
}

/** A unique address for one person of a test. */
const address = (tag: string): string => `${tag}-${randomUUID()}@example.com`;

function postJson(user: TestUser, template: string, body: unknown, headers: Record<string, string> = {}): Promise<ApiResponse<any>> {
  return env.api.request('POST', `/templates/${template}/bulk`, { token: user.token, json: body, headers });
}

function postCsv(user: TestUser, template: string, csv: string | Uint8Array, query = ''): Promise<ApiResponse<any>> {
  return env.api.request('POST', `/templates/${template}/bulk${query}`, { token: user.token, body: csv, headers: { 'Content-Type': 'text/csv; charset=utf-8' } });
}

/** Waits until the job has ended (`completed` or `cancelled`) and its counts are final. */
async function finished(user: TestUser, jobId: string, timeoutMs = patience(120_000)): Promise<any> {
  return await waitUntil(
    async () => {
      const job = await env.api.request('GET', `/bulk/${jobId}`, { token: user.token });
      expect(job.status).toBe(200);
      if (job.body.status !== 'completed' && job.body.status !== 'cancelled') return undefined;
      // Settled: its counts final and bulk.completed queued.
      const settled = (await getServices().bulkJobs.read(await organizationOf(user), jobId))?.record.settledAt;
      return settled === null || settled === undefined ? undefined : job.body;
    },
    timeoutMs,
    `bulk job ${jobId} to end`,
    { everyMs: 200 },
  );
}

async function organizationOf(user: TestUser): Promise<string> {
  return (await env.api.request('GET', '/organization', { token: user.token })).body.id as string;
}

/** Every row of a job, through the paged rows endpoint. */
async function allRows(user: TestUser, jobId: string): Promise<any[]> {
  const rows: any[] = [];
  let cursor: string | null = null;
  do {
    const page: ApiResponse<any> = await env.api.request('GET', `/bulk/${jobId}/rows${cursor === null ? '' : `?cursor=${cursor}`}`, { token: user.token });
    expect(page.status).toBe(200);
    expect(page.body.rows.length).toBeLessThanOrEqual(100);
    rows.push(...page.body.rows);
    cursor = page.body.nextCursor;
  } while (cursor !== null);
  return rows;
}

/** The CSV text of a header and records (RFC 4180: CRLF, cells quoted where they must be). */
function csvOf(header: string[], records: string[][]): string {
  const cell = (value: string) => (/[",\r\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value);
  return [header, ...records].map((record) => record.map(cell).join(',')).join('\r\n') + '\r\n';
}

async function jobsOf(user: TestUser): Promise<any[]> {
  const listed = await env.api.request('GET', '/bulk', { token: user.token });
  expect(listed.status).toBe(200);
  return listed.body as any[];
}

describe('POST /api/templates/{id}/bulk with JSON rows', () => {
  test('queues a job (202, Location); each row becomes a sent envelope with bulkJobId and metadata, one invitation each', async () => {
    const people = [0, 1, 2].map((index) => ({ email: address(`json${index}`), name: `Person ${index}` }));
    const answer = await postJson(owner, templateId, {
      rows: people.map((person, index) => ({
        recipients: [{ roleName: 'client', ...person, ...(index === 1 ? { locale: 'de' } : {}) }],
        prefill: { Amount: `${10 + index}.50`, Agreed: true },
        metadata: { crmId: `C-${index}` },
      })),
    });
    expect(answer.status).toBe(202);
    expect(answer.body).toEqual({ id: expect.stringMatching(UUID_V7), templateId, status: 'queued', total: 3, created: 0, failed: 0, createdAt: expect.stringMatching(ISO_MS), finishedAt: null });
    expect(answer.headers.get('location')).toBe(`/api/bulk/${answer.body.id}`);

    const job = await finished(owner, answer.body.id);
    expect(job).toMatchObject({ status: 'completed', total: 3, created: 3, failed: 0, finishedAt: expect.stringMatching(ISO_MS) });
    const rows = await allRows(owner, job.id);
    expect(rows).toEqual(people.map((_, index) => ({ row: index + 1, status: 'created', envelopeId: expect.stringMatching(UUID_V7) })));
    for (const [index, row] of rows.entries()) {
      const envelope = (await env.api.request('GET', `/envelopes/${row.envelopeId}`, { token: owner.token })).body;
      expect(envelope).toMatchObject({ status: 'sent', templateId, bulkJobId: job.id, metadata: { crmId: `C-${index}` }, signers: [{ email: people[index]!.email, name: people[index]!.name }] });
      expect(envelope.fields.find((field: any) => field.label === 'Amount').value).toBe(`${10 + index}.50`);
      expect(envelope.fields.find((field: any) => field.label === 'Agreed').value).toBe(true);
      if (index === 1) expect(envelope.signers[0].locale).toBe('de');
      const trail = await env.api.request('GET', `/envelopes/${row.envelopeId}/audit`, { token: owner.token });
      expect(trail.body.find((event: any) => event.type === 'envelope.created').details).toMatchObject({ templateId, bulkJobId: job.id });
    }
    for (const person of people) {
      expect(await waitForEmails(person.email, { count: 1, timeoutMs: patience(30_000) })).toHaveLength(1);
    }
    // Nothing more comes: one invitation per person.
    await new Promise((resolve) => setTimeout(resolve, 500));
    for (const person of people) expect(await emailsTo(person.email)).toHaveLength(1);
  }, patience(180_000));

  test('with send: false every envelope stays a draft and nobody is e-mailed', async () => {
    const email = address('draft');
    const answer = await postJson(owner, templateId, { rows: [{ recipients: [{ roleName: 'Client', email, name: 'Drafty' }] }], send: false });
    expect(answer.status).toBe(202);
    const job = await finished(owner, answer.body.id);
    expect(job).toMatchObject({ status: 'completed', created: 1 });
    const [row] = await allRows(owner, job.id);
    expect((await env.api.request('GET', `/envelopes/${row.envelopeId}`, { token: owner.token })).body).toMatchObject({ status: 'draft', bulkJobId: job.id, metadata: null });
    expect(await emailsTo(email)).toEqual([]);
  }, patience(120_000));

  test('an Idempotency-Key replays the job\'s answer and makes one job', async () => {
    const user = await env.newUser();
    const template = await activeTemplate(user);
    const key = randomUUID();
    const body = { rows: [{ recipients: [{ roleName: 'Client', email: address('idem'), name: 'Idem Potent' }] }] };
    const first = await postJson(user, template, body, { 'Idempotency-Key': key });
    expect(first.status).toBe(202);
    const again = await postJson(user, template, body, { 'Idempotency-Key': key });
    expect(again.status).toBe(202);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.text).toBe(first.text);
    await finished(user, first.body.id);
    expect((await jobsOf(user)).map((job) => job.id)).toEqual([first.body.id]);
  }, patience(120_000));
});

describe('every row is checked before anything is made', () => {
  /** Asserts a 400 `validation-failed` and that the caller has no job and no envelope afterwards. */
  async function refusedWithNothingMade(user: TestUser, answer: ApiResponse<any>): Promise<any[]> {
    expectType(answer, 400, 'validation-failed');
    expect(await jobsOf(user)).toEqual([]);
    expect((await env.api.request('GET', '/envelopes', { token: user.token })).body).toEqual([]);
    return answer.body.errors as any[];
  }

  let user: TestUser;
  let template: string;
  beforeAll(async () => {
    user = await env.newUser();
    template = await activeTemplate(user);
  }, patience(60_000));

  test('1,001 rows (BULK_MAX_ROWS is 1,000) → 400', async () => {
    const records = Array.from({ length: 1001 }, (_, index) => [`p${index}@example.com`, `P ${index}`]);
    const errors = await refusedWithNothingMade(user, await postCsv(user, template, csvOf(['Client.email', 'Client.name'], records)));
    expect(errors).toEqual([{ path: 'rows', field: 'rows', message: 'must hold at most 1000 rows (it holds 1001)' }]);
    const json = await postJson(user, template, { rows: records.map(([email, name]) => ({ recipients: [{ roleName: 'Client', email, name }] })) });
    expect((await refusedWithNothingMade(user, json))[0]).toMatchObject({ field: 'rows' });
  }, patience(60_000));

  test('an unknown column, a repeated column, a role without its columns → 400 naming the column', async () => {
    const unknown = await refusedWithNothingMade(user, await postCsv(user, template, csvOf(['Client.email', 'Client.name', 'Client.fax'], [['a@example.com', 'A', '1']])));
    expect(unknown).toEqual([expect.objectContaining({ column: 'Client.fax', message: expect.stringContaining('is not a known column') })]);
    const noRole = await refusedWithNothingMade(user, await postCsv(user, template, csvOf(['Landlord.email', 'Client.name'], [['a@example.com', 'A']])));
    expect(noRole.map((error) => error.column)).toEqual(['Landlord.email', 'Client.email']);
    const noField = await refusedWithNothingMade(user, await postCsv(user, template, csvOf(['Client.email', 'Client.name', 'field.Colour'], [['a@example.com', 'A', 'red']])));
    expect(noField).toEqual([expect.objectContaining({ column: 'field.Colour', message: expect.stringContaining('names no field') })]);
    const repeated = await refusedWithNothingMade(user, await postCsv(user, template, csvOf(['Client.email', 'Client.name', 'client.EMAIL'], [['a@example.com', 'A', 'b@example.com']])));
    expect(repeated).toEqual([expect.objectContaining({ column: 'client.EMAIL', message: 'repeats column 1' })]);
  }, patience(60_000));

  test('an invalid e-mail on row 417 of 500 → 400 naming row 417 and its column, and only it', async () => {
    const records = Array.from({ length: 500 }, (_, index) => [index === 416 ? 'not-an-address' : `r${index}@example.com`, `Row ${index + 1}`]);
    const errors = await refusedWithNothingMade(user, await postCsv(user, template, csvOf(['Client.email', 'Client.name'], records)));
    expect(errors).toEqual([expect.objectContaining({ row: 417, column: 'Client.email', field: 'Client.email' })]);
  }, patience(60_000));

  test('a role missing, a bad phone, an unknown field, a bad prefilled value, an unknown locale: each row named', async () => {
    const header = ['Client.email', 'Client.name', 'Client.phone', 'Client.locale', 'field.Amount'];
    const records = [
      ['ok@example.com', 'Fine', '', '', '12.50'],
      ['', 'No Address', '', '', ''],
      ['phone@example.com', 'Bad Phone', '+1 555', '', ''],
      ['amount@example.com', 'Bad Amount', '', '', 'twelve'],
      ['locale@example.com', 'Bad Locale', '', 'xx-YY', ''],
      ['big@example.com', 'Too Much', '', '', '5000'],
    ];
    const errors = await refusedWithNothingMade(user, await postCsv(user, template, csvOf(header, records)));
    expect(errors.map((error) => [error.row, error.column])).toEqual([
      [2, 'Client.email'],
      [3, 'Client.phone'],
      [4, 'field.Amount'],
      [5, 'Client.locale'],
      [6, 'field.Amount'],
    ]);
    const json = await postJson(user, template, {
      rows: [
        { recipients: [{ roleName: 'Client', email: 'ok@example.com', name: 'Fine' }] },
        { recipients: [] },
        { recipients: [{ roleName: 'Client', email: 'x@example.com', name: 'Unknown Field' }], prefill: { Colour: 'red' } },
        { recipients: [{ roleName: 'Client', email: 'x@example.com', name: 'Stranger' }], extra: 1 },
        { recipients: [{ roleName: 'Client', email: 'bad@', name: 'Bad Address' }] },
      ],
    });
    const jsonErrors = await refusedWithNothingMade(user, json);
    expect(jsonErrors.map((error) => [error.row, error.field])).toEqual([
      [2, 'recipients'],
      [3, 'prefill.Colour'],
      [4, 'extra'],
      [5, 'recipients.0.email'],
    ]);
  }, patience(60_000));

  test('CSV with a byte order mark, quoted commas and quotes; a quoted line break stays in its cell (and a name refuses it, naming the row)', async () => {
    const broken = '\uFEFFClient.email,Client.name\r\nfirst@example.com,"Smith, Ann"\r\nsecond@example.com,"Line\nBreak"\r\nthird@example.com,Third\r\nfourth@example.com\r\n';
    const errors = await refusedWithNothingMade(user, await postCsv(user, template, broken));
    // Row 4 has one cell where the header has two: the CSV is malformed there.
    expect(errors).toEqual([{ path: '(csv)', message: expect.stringContaining('Invalid Record Length') }]);
    const quoted = '\uFEFFClient.email,Client.name\r\nfirst@example.com,"Smith, Ann"\r\nsecond@example.com,"Line\nBreak"\r\nthird@example.com,"Dan ""The Man"" Doe"\r\n';
    const rowErrors = await refusedWithNothingMade(user, await postCsv(user, template, new TextEncoder().encode(quoted)));
    expect(rowErrors).toEqual([expect.objectContaining({ row: 2, column: 'Client.name', message: expect.stringContaining('U+000A') })]);
  }, patience(60_000));

  test('a body that is neither JSON nor CSV → 415; a draft template → 409; another organization\'s template → 404', async () => {
    const other = await env.newUser();
    const answer = await env.api.request('POST', `/templates/${template}/bulk`, { token: user.token, body: 'a,b', headers: { 'Content-Type': 'text/plain' } });
    expectType(answer, 415, 'unsupported-media-type');
    const draft = await env.api.request('POST', '/templates', { token: user.token, json: { name: 'Draft', filename: 'd.pdf', mimetype: 'application/pdf' } });
    expectType(await postJson(user, draft.body.template.id, { rows: [{ recipients: [] }] }), 409, 'template-not-active');
    expectType(await postJson(other, template, { rows: [{ recipients: [] }] }), 404, 'template-not-found');
  }, patience(60_000));
});

describe('the CSV of a bulk send', () => {
  test('with a BOM, quoted cells and empty cells as "not given": every row made; a formula cell is a name like any other', async () => {
    const formula = '=HYPERLINK("http://evil.example","Click")';
    const people = [address('csv-a'), address('csv-b')];
    const csv = `\uFEFFclient.EMAIL,Client.Name,Client.locale,field.Amount,field.Reference,metadata.batch\r\n${people[0]},"Smith, Ann",,7.00,"ref ""1""",spring\r\n${people[1]},"${formula.replaceAll('"', '""')}",fr,,,\r\n`;
    const answer = await postCsv(owner, templateId, csv);
    expect(answer.status).toBe(202);
    expect(answer.body.total).toBe(2);
    const job = await finished(owner, answer.body.id);
    expect(job).toMatchObject({ status: 'completed', created: 2, failed: 0 });
    const rows = await allRows(owner, job.id);
    const first = (await env.api.request('GET', `/envelopes/${rows[0].envelopeId}`, { token: owner.token })).body;
    expect(first).toMatchObject({ metadata: { batch: 'spring' }, signers: [{ email: people[0], name: 'Smith, Ann', locale: null }] });
    expect(first.fields.find((field: any) => field.label === 'Reference').value).toBe('ref "1"');
    const second = (await env.api.request('GET', `/envelopes/${rows[1].envelopeId}`, { token: owner.token })).body;
    expect(second).toMatchObject({ metadata: null, signers: [{ email: people[1], name: formula, locale: 'fr' }] });
    expect(second.fields.find((field: any) => field.label === 'Amount').value).toBeUndefined();
  }, patience(120_000));

  test('?send=false keeps the envelopes drafts', async () => {
    const answer = await postCsv(owner, templateId, csvOf(['Client.email', 'Client.name'], [[address('csv-draft'), 'Drafty']]), '?send=false');
    expect(answer.status).toBe(202);
    const job = await finished(owner, answer.body.id);
    const [row] = await allRows(owner, job.id);
    expect((await env.api.request('GET', `/envelopes/${row.envelopeId}`, { token: owner.token })).body.status).toBe('draft');
  }, patience(120_000));
});

describe('quota', () => {
  test('a job whose invitations would pass the daily e-mail quota → 429 email-quota, no job', async () => {
    const user = await env.newUser();
    const template = await activeTemplate(user);
    const rows = Array.from({ length: QUOTA + 1 }, (_, index) => ({ recipients: [{ roleName: 'Client', email: `q${index}-${randomUUID()}@example.com`, name: `Q ${index}` }] }));
    const answer = await postJson(user, template, { rows });
    expectType(answer, 429, 'email-quota');
    expect(Number(answer.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await jobsOf(user)).toEqual([]);
    // Drafts send nothing: the same rows with send: false are taken.
    expect((await postJson(user, template, { rows: rows.slice(0, 2), send: false })).status).toBe(202);
  }, patience(60_000));
});

describe('cancel, list, who sees which job, bulk.completed', () => {
  test('cancel stops a running job: rows not made stay pending, counts agree, bulk.completed says cancelled; a second cancel → 409 job-finished', async () => {
    const user = await env.newUser();
    const template = await activeTemplate(user);
    const receiver = await startReceiver({ kind: 'status', status: 200 });
    receivers.push(receiver);
    const hook = await env.api.request('POST', '/webhooks', { token: user.token, json: { url: receiver.url, events: ['bulk.completed'] } });
    expect(hook.status).toBe(201);
    const rows = Array.from({ length: 1000 }, (_, index) => ({ recipients: [{ roleName: 'Client', email: `c${index}@example.com`, name: `C ${index}` }] }));
    const answer = await postJson(user, template, { rows, send: false });
    expect(answer.status).toBe(202);
    const cancelled = await env.api.request('POST', `/bulk/${answer.body.id}/cancel`, { token: user.token });
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({ id: answer.body.id, status: 'cancelled', finishedAt: expect.stringMatching(ISO_MS) });
    const job = await finished(user, answer.body.id);
    const listed = await allRows(user, job.id);
    expect(listed).toHaveLength(1000);
    const created = listed.filter((row) => row.status === 'created');
    expect(created.length).toBe(job.created);
    expect(listed.filter((row) => row.status === 'failed')).toHaveLength(job.failed);
    expect(listed.filter((row) => row.status === 'pending').length).toBe(1000 - job.created - job.failed);
    expect(job.created).toBeLessThan(1000);
    // No row is made after the end: the counts and the envelopes stay as they are.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect((await env.api.request('GET', `/bulk/${job.id}`, { token: user.token })).body).toEqual(job);
    const envelopes = (await env.api.request('GET', '/envelopes', { token: user.token })).body as any[];
    expect(envelopes.filter((envelope) => envelope.bulkJobId === job.id).map((envelope) => envelope.id).sort()).toEqual(created.map((row) => row.envelopeId).sort());

    const [delivered] = await receiver.waitForRequests(1, patience(30_000));
    const event = new StandardWebhook(hook.body.secret as string).verify(delivered!.body, delivered!.headers as Record<string, string>) as any;
    expect(event).toMatchObject({ type: 'bulk.completed', actor: { userId: user.userId, email: user.email }, data: { bulkJobId: job.id, templateId: template, status: 'cancelled', total: 1000, created: job.created, failed: job.failed } });
    expect(event.data.envelopeId).toBeUndefined();

    expectType(await env.api.request('POST', `/bulk/${job.id}/cancel`, { token: user.token }), 409, 'job-finished');
  }, patience(180_000));

  test('a completed job: bulk.completed with status completed; cancelling it → 409 job-finished', async () => {
    const user = await env.newUser();
    const template = await activeTemplate(user);
    const receiver = await startReceiver({ kind: 'status', status: 200 });
    receivers.push(receiver);
    const hook = await env.api.request('POST', '/webhooks', { token: user.token, json: { url: receiver.url } });
    const answer = await postJson(user, template, { rows: [{ recipients: [{ roleName: 'Client', email: address('done'), name: 'Done' }] }], send: false });
    const job = await finished(user, answer.body.id);
    expectType(await env.api.request('POST', `/bulk/${job.id}/cancel`, { token: user.token }), 409, 'job-finished');
    const requests = await receiver.waitForRequests(1, patience(30_000));
    const events = requests.map((request) => new StandardWebhook(hook.body.secret as string).verify(request.body, request.headers as Record<string, string>) as any);
    expect(events.filter((event) => event.type === 'bulk.completed')).toEqual([expect.objectContaining({ data: { bulkJobId: job.id, templateId: template, status: 'completed', total: 1, created: 1, failed: 0 } })]);
  }, patience(120_000));

  test('admins, the owner and viewers see every job of the organization, a sender its own; another organization gets 404', async () => {
    const boss = await env.newUser();
    const template = await activeTemplate(boss);
    const [senderA, senderB, viewer, admin] = [await joinedMember(env.api, boss, 'sender'), await joinedMember(env.api, boss, 'sender'), await joinedMember(env.api, boss, 'viewer'), await joinedMember(env.api, boss, 'admin')];
    const row = { recipients: [{ roleName: 'Client', email: address('vis'), name: 'Vis' }] };
    const jobA = (await postJson(senderA, template, { rows: [row], send: false })).body.id as string;
    const jobBoss = (await postJson(boss, template, { rows: [row], send: false })).body.id as string;
    await finished(senderA, jobA);
    await finished(boss, jobBoss);

    for (const reader of [boss, viewer, admin]) {
      expect((await jobsOf(reader)).map((job) => job.id)).toEqual([jobBoss, jobA]);
      expect((await env.api.request('GET', `/bulk/${jobA}`, { token: reader.token })).status).toBe(200);
      expect((await env.api.request('GET', `/bulk/${jobA}/rows`, { token: reader.token })).status).toBe(200);
    }
    expect((await jobsOf(senderA)).map((job) => job.id)).toEqual([jobA]);
    expect(await jobsOf(senderB)).toEqual([]);
    expectType(await env.api.request('GET', `/bulk/${jobA}`, { token: senderB.token }), 403, 'forbidden-role');
    expectType(await env.api.request('GET', `/bulk/${jobA}/rows`, { token: senderB.token }), 403, 'forbidden-role');
    expectType(await env.api.request('POST', `/bulk/${jobA}/cancel`, { token: senderB.token }), 403, 'forbidden-role');
    expectType(await env.api.request('GET', `/bulk/${jobA}`, { token: owner.token }), 404, 'bulk-job-not-found');
    expectType(await env.api.request('GET', `/bulk/${jobA}/rows`, { token: owner.token }), 404, 'bulk-job-not-found');
    expectType(await env.api.request('POST', `/bulk/${jobA}/cancel`, { token: owner.token }), 404, 'bulk-job-not-found');
    expectType(await env.api.request('GET', `/bulk/${randomUUID()}`, { token: boss.token }), 404, 'bulk-job-not-found');
    expectType(await env.api.request('GET', `/bulk/${jobA}/rows?cursor=nonsense!`, { token: boss.token }), 400, 'invalid-cursor');
  }, patience(120_000));

  test('the list pages newest first with Link', async () => {
    const user = await env.newUser();
    const template = await activeTemplate(user);
    const ids: string[] = [];
    for (let index = 0; index < 3; index++) ids.push((await postJson(user, template, { rows: [{ recipients: [{ roleName: 'Client', email: address('page'), name: 'Page' }] }], send: false })).body.id);
    const first = await env.api.request('GET', '/bulk?limit=2', { token: user.token });
    expect(first.body.map((job: any) => job.id)).toEqual([ids[2], ids[1]]);
    const next = /<([^>]+)>; rel="next"/.exec(first.headers.get('link') ?? '')![1]!;
    const second = await env.api.request('GET', `/bulk${new URL(next).search}`, { token: user.token });
    expect(second.body.map((job: any) => job.id)).toEqual([ids[0]]);
    expect(second.headers.get('link')).toBeNull();
    for (const id of ids) await finished(user, id);
  }, patience(120_000));
});
