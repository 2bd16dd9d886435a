/**
 * The bulk send endpoints in the OpenAPI document (docs/api.md#bulk-send): {@link registerBulkOperations}
 * adds the job's creation from a template (JSON or CSV), its status, its rows, its cancel and the
 * list. Response schemas are strict objects tied at compile time to the types the service answers
 * with (bottom of this file).
 */
import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import { problemTypeUri } from '../errors.js';
import { BULK_JOB_STATUSES, BULK_ROW_STATUSES, type BulkJobView, type BulkRowView } from '../bulk/model.js';
import { bulkJsonRequest, bulkRowInput, bulkRowsQuery, listBulkJobsQuery } from '../bulk/schemas.js';
import { cacheControlNoStore, internalError, listQueryRefused, ownerProblems, storageUnavailable, unauthorized, type Operation } from './common.js';
import { problemResponses, timestamp, type ProblemExample } from './responses.js';
import { matches, type Matches } from './ties.js';

export const bulkJobResponse = z
  .strictObject({
    id: z.uuid({ version: 'v7' }),
    templateId: z.uuid(),
    status: z.enum(BULK_JOB_STATUSES).meta({ description: '`queued` until a runner takes it, `running`, then `completed` (every row tried) or `cancelled`.' }),
    total: z.int().min(1).meta({ description: 'Rows in the job.' }),
    created: z.int().min(0).meta({ description: 'Rows whose envelope was made (and sent), as counted at most a second or so ago while it runs; exact once it ended.' }),
    failed: z.int().min(0).meta({ description: 'Rows that failed (their `error` says why), counted as `created`.' }),
    createdAt: timestamp,
    finishedAt: timestamp.nullable().meta({ description: 'When it completed or was cancelled; `null` before.' }),
  })
  .meta({ id: 'BulkJob', description: 'A bulk send: one envelope per row, made in the background.' });

const rowError = z
  .strictObject({
    type: z.string().meta({ description: 'The problem the row\'s envelope met (its `type`: `email-quota`, ...).' }),
    status: z.int().min(400).max(599),
    detail: z.string(),
  })
  .meta({ id: 'BulkRowError', description: 'Why a row failed: the problem its use of the template answered.' });

export const bulkRowResponse = z
  .strictObject({
    row: z.int().min(1).meta({ description: 'Its number, from 1 (a CSV\'s header is not counted).' }),
    status: z.enum(BULK_ROW_STATUSES).meta({ description: '`pending` until its envelope is made (rows of a cancelled job not made stay `pending`), `created` or `failed`.' }),
    envelopeId: z.uuid().optional().meta({ description: '`created`: its envelope.' }),
    error: rowError.optional().meta({ description: '`failed`: why.' }),
  })
  .meta({ id: 'BulkRow', description: 'One row of a bulk job.' });

const rowsPage = z
  .strictObject({
    rows: z.array(bulkRowResponse).max(100),
    nextCursor: z.string().nullable().meta({ description: 'Pass as `cursor` for the next page; `null` on the last.' }),
  })
  .meta({ id: 'BulkRowPage', description: 'Up to 100 rows of a job, in row order.' });

const ids = {
  job: '0193a5d2-3c4d-7e5f-8a6b-7c8d9e0f1a2b',
  template: '0193a5d1-6a2b-7c3d-8e4f-5a6b7c8d9e0f',
  envelope: '0193a5d2-3c4d-7e5f-8a6b-7c8d9e0f1a3c',
};
const queuedJob = { id: ids.job, templateId: ids.template, status: 'queued', total: 800, created: 0, failed: 0, createdAt: '2026-11-22T10:15:30.123Z', finishedAt: null };
const runningJob = { ...queuedJob, status: 'running', created: 412, failed: 1 };

const json = 'application/json';
const bearer = [{ bearerAuth: [] }];
const noStore = cacheControlNoStore();
const jobIdParam = z.object({ id: z.string().meta({ description: 'The bulk job id (a UUID v7). Another organization\'s job is answered 404, exactly as a missing one.', examples: [ids.job] }) });

const problems = {
  ...ownerProblems,
  'validation-failed': {
    detail: '2 rows are invalid; nothing was created. The first: row 417, Client.email must be a valid e-mail address.',
    errors: [
      { path: 'rows.417.Client.email', row: 417, field: 'Client.email', column: 'Client.email', message: 'must be a valid e-mail address' },
      { path: 'rows.503.field.Amount', row: 503, field: 'field.Amount', column: 'field.Amount', message: 'must be a number such as "12.50"' },
    ],
  },
  'unknown-column': {
    type: 'validation-failed',
    detail: 'The CSV header is invalid: Cleint.email is not a known column: <role>.email, <role>.name, <role>.locale, <role>.phone (roles: Client), field.<label> or metadata.<key>.',
    errors: [{ path: 'header.0', field: 'Cleint.email', column: 'Cleint.email', message: 'is not a known column: <role>.email, <role>.name, <role>.locale, <role>.phone (roles: Client), field.<label> or metadata.<key>' }],
  },
  'too-many-rows': {
    type: 'validation-failed',
    detail: 'The job has 1001 rows; at most 1000 are accepted (BULK_MAX_ROWS). Split it into several jobs.',
    errors: [{ path: 'rows', field: 'rows', message: 'must hold at most 1000 rows (it holds 1001)' }],
  },
  'template-not-found': {},
  'template-not-active': {},
  'forbidden-role': { detail: 'This template is private to the member who made it: only they, an admin or the owner reach it; you are a sender of your organization.' },
  'job-not-yours': { type: 'forbidden-role', detail: 'This bulk job is another member\'s: a sender sees and cancels only its own jobs (admins, the owner and viewers see every job of the organization).' },
  'email-quota': { detail: 'This job would queue 800 e-mails; your organization has 120 left today (UTC).' },
  'sms-quota': {},
  'bulk-job-not-found': {},
  'job-finished': {},
  'bulk-job-contended': {},
} satisfies Record<string, ProblemExample>;

const problem = problemResponses(problems);
const jobNotFound = problem(404, 'No bulk job with this id, or another organization\'s (the same answer).', ['bulk-job-not-found']);

/**
 * The JSON body as the document states it: the handler reads `rows` as an array of anything first
 * (`bulkJsonRequest`), then each row with `BulkRowInput`, so that every bad row is named by its
 * number; a row is exactly that schema.
 */
const jsonBody = z
  .strictObject({
    rows: z.array(bulkRowInput).min(1).meta({ description: 'One row per envelope; at most `BULK_MAX_ROWS` (default 1000).' }),
    send: bulkJsonRequest.shape.send,
  })
  .meta({ id: 'BulkRequest', description: 'A bulk send as JSON. The same job may be sent as `text/csv` (docs/api.md#the-csv-file).' });

const csvExample = 'Client.email,Client.name,Client.locale,field.Amount\r\ncarol@example.com,Carol Client,de,12.50\r\n"dan@example.com","Dan ""The Man"" Doe",,99.00\r\n';

const operations: Operation[] = [
  {
    operationId: 'CreateBulkJob',
    method: 'post',
    path: '/templates/{id}/bulk',
    tags: ['Bulk send'],
    summary: 'Send an active template to many people: one envelope per row',
    description:
      'Sender or above; the template as for `POST /api/templates/{id}/envelopes` (a sender: its own and those shared with the organization). The rows come as JSON (`{rows, send?}`, each row `{recipients: [{roleName, email, name, locale?, phone?, delivery?}], prefill?: {<field label>: value}, metadata?: {<key>: <string>}}`) or as `text/csv` (RFC 4180, UTF-8, a byte order mark passed over, quoted cells may hold commas, quotes and line breaks; header columns `<role>.email`, `<role>.name`, `<role>.locale`, `<role>.phone`, `field.<label>`, `metadata.<key>`; an empty cell is "not given"; `send` then comes from the query, default `true`). At most `BULK_MAX_ROWS` rows (default 1000). Every row is checked before anything is made, exactly as its own `POST /api/templates/{id}/envelopes` would be: any bad row → 400 listing each (`errors[].row` from 1, data rows only; `field`, and for CSV `column`), and no job. With `send`, the organization\'s daily quotas must hold every invitation the job\'s sends queue at once (429 otherwise, no job). Then 202: the job runs in the background, several rows at once, each row\'s envelope made and sent once (even when a process dies mid-job), each carrying `bulkJobId` and its row\'s `metadata`. `bulk.completed` is posted to webhooks when it ends. A cell such as `=HYPERLINK(...)` is accepted as text in a name; the service writes no CSV.',
    security: bearer,
    request: {
      params: z.object({ id: z.string().meta({ description: 'The template id (a UUID v7).', examples: [ids.template] }) }),
      query: z.object({ send: z.enum(['true', 'false']).optional().meta({ description: 'CSV bodies only: `false` keeps every envelope a `draft`. Default `true`.' }) }),
      body: {
        required: true,
        content: {
          [json]: {
            schema: jsonBody,
            example: {
              rows: [
                { recipients: [{ roleName: 'Client', email: 'carol@example.com', name: 'Carol Client', locale: 'de' }], prefill: { Amount: '12.50' }, metadata: { crmId: 'A-1001' } },
                { recipients: [{ roleName: 'Client', email: 'dan@example.com', name: 'Dan Doe' }], prefill: { Amount: '99.00' } },
              ],
            },
          },
          'text/csv': { schema: z.string().meta({ description: 'RFC 4180 CSV, UTF-8: a header row of `<role>.email`, `<role>.name`, `<role>.locale`, `<role>.phone`, `field.<label>` and `metadata.<key>` columns, then one row per envelope (docs/api.md#the-csv-file).' }), example: csvExample },
        },
      },
    },
    responses: {
      202: {
        description: 'The job, `queued`.',
        headers: { Location: { description: '`/api/bulk/{id}`.', required: true, schema: { type: 'string' } } },
        content: { [json]: { schema: bulkJobResponse, example: queuedJob } },
      },
      400: problem(400, 'The body is refused (`validation-failed`): malformed JSON or CSV, no rows or more than `BULK_MAX_ROWS`, an unknown or repeated column or a role without its `email` and `name` columns, or bad rows (each named by `row`).', ['validation-failed', 'unknown-column', 'too-many-rows', 'malformed-json']),
      401: unauthorized,
      403: problem(403, 'Sending needs a verified owner while the service requires verified senders (`email-unverified`); a sender asked for another member\'s `private` template (`forbidden-role`).', ['email-unverified', 'forbidden-role']),
      404: problem(404, 'No template with this id, or another organization\'s (the same answer).', ['template-not-found']),
      409: problem(409, 'The template is a draft (`template-not-active`).', ['template-not-active']),
      413: problem(413, 'The body is larger than 1 MiB.', ['payload-too-large']),
      415: problem(415, 'The body is neither `application/json` nor `text/csv`.', ['unsupported-media-type']),
      429: problem(429, 'The job\'s invitations would pass the organization\'s daily e-mail or text quota (`email-quota`, `sms-quota`); `Retry-After` is the next UTC midnight.', ['email-quota', 'sms-quota']),
      503: storageUnavailable,
      500: internalError,
    },
  },
  {
    operationId: 'GetBulkJob',
    method: 'get',
    path: '/bulk/{id}',
    tags: ['Bulk send'],
    summary: 'A bulk job\'s status and counts',
    description: 'Admins, the owner and viewers read every job of the organization; a sender its own (another member\'s: 403 `forbidden-role`).',
    security: bearer,
    request: { params: jobIdParam },
    responses: {
      200: { description: 'The job.', headers: { 'Cache-Control': noStore }, content: { [json]: { schema: bulkJobResponse, example: runningJob } } },
      401: unauthorized,
      403: problem(403, 'A sender asked for another member\'s job (`forbidden-role`).', ['job-not-yours']),
      404: jobNotFound,
      503: storageUnavailable,
      500: internalError,
    },
  },
  {
    operationId: 'ListBulkJobRows',
    method: 'get',
    path: '/bulk/{id}/rows',
    tags: ['Bulk send'],
    summary: 'A bulk job\'s rows, 100 a page',
    description: 'In row order; `nextCursor` leads to the next page. Who may read: as `GET /api/bulk/{id}`.',
    security: bearer,
    request: { params: jobIdParam, query: bulkRowsQuery },
    responses: {
      200: {
        description: 'A page of rows.',
        headers: { 'Cache-Control': noStore },
        content: {
          [json]: {
            schema: rowsPage,
            example: {
              rows: [
                { row: 1, status: 'created', envelopeId: ids.envelope },
                { row: 2, status: 'failed', error: { type: problemTypeUri('email-quota'), status: 429, detail: 'This would queue more e-mails than the account has left today (UTC).' } },
                { row: 3, status: 'pending' },
              ],
              nextCursor: 'cm93OjEwMQ',
            },
          },
        },
      },
      400: listQueryRefused,
      401: unauthorized,
      403: problem(403, 'A sender asked for another member\'s job (`forbidden-role`).', ['job-not-yours']),
      404: jobNotFound,
      503: storageUnavailable,
      500: internalError,
    },
  },
  {
    operationId: 'CancelBulkJob',
    method: 'post',
    path: '/bulk/{id}/cancel',
    tags: ['Bulk send'],
    summary: 'Cancel a bulk job',
    description:
      'Sender (its own jobs) or above. No row is started after it; rows in flight finish; rows not created stay `pending`. The job is `cancelled` at once; `bulk.completed` is posted with `status: "cancelled"` once its runner stopped. The answer waits up to 3 seconds for that, so its counts are usually final.',
    security: bearer,
    request: { params: jobIdParam },
    responses: {
      200: { description: 'The job, `cancelled`.', headers: { 'Cache-Control': noStore }, content: { [json]: { schema: bulkJobResponse, example: { ...runningJob, status: 'cancelled', finishedAt: '2026-11-22T10:16:01.456Z' } } } },
      401: unauthorized,
      403: problem(403, 'A sender asked for another member\'s job (`forbidden-role`).', ['job-not-yours']),
      404: jobNotFound,
      409: problem(409, 'The job already completed or was cancelled (`job-finished`), or concurrent requests kept changing it (`bulk-job-contended`).', ['job-finished', 'bulk-job-contended']),
      503: storageUnavailable,
      500: internalError,
    },
  },
  {
    operationId: 'ListBulkJobs',
    method: 'get',
    path: '/bulk',
    tags: ['Bulk send'],
    summary: 'The bulk jobs the caller sees, newest first',
    description: 'Admins, the owner and viewers: every job of the organization; a sender: its own. Paged as envelopes are (`limit`, `cursor`, `Link: <...>; rel="next"`).',
    security: bearer,
    request: { query: listBulkJobsQuery },
    responses: {
      200: {
        description: 'A page of jobs.',
        headers: {
          'Cache-Control': noStore,
          Link: { description: '`<...cursor=...>; rel="next"` when more jobs follow.', required: false, schema: { type: 'string' } },
        },
        content: { [json]: { schema: z.array(bulkJobResponse).meta({ id: 'BulkJobList', description: 'Bulk jobs, newest first.' }), example: [runningJob] } },
      },
      400: listQueryRefused,
      401: unauthorized,
      503: storageUnavailable,
      500: internalError,
    },
  },
];

/** Registers the bulk send endpoints under `paths`. */
export function registerBulkOperations(registry: OpenAPIRegistry): void {
  for (const operation of operations) registry.registerPath(operation);
}

// Compile-time ties between the schemas above and the types the service answers with.
matches<Matches<typeof bulkJobResponse, BulkJobView>>(true);
matches<Matches<typeof bulkRowResponse, BulkRowView>>(true);
