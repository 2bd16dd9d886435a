/**
 * `POST /api/templates/{id}/bulk` (docs/api.md#bulk-send): a job that makes one envelope per row.
 *
 * Nothing is made until every row passed (`rows.ts`) and the organisation's daily quotas hold every
 * invitation the job's sends queue at once (docs/api.md#rate-limits-and-quotas); then:
 * 1. the rows are written (table `bulkJobs`, the job's own partition);
 * 2. a message for the job is put on `bulk-jobs`, invisible for {@link SAFETY_DELAY_SECONDS}: should
 *    this process die before step 4, that message starts the job all the same;
 * 3. the job is written, `queued`;
 * 4. a message for the job is put on `bulk-jobs`, visible at once (`runner.ts` runs it; a second
 *    message finds the job held or done and does nothing).
 *
 * With an `Idempotency-Key` (docs/api.md#idempotency) the job's id comes from the key's claim
 * (`resumableId`): a run after a crash writes the same rows again (upserts), or, the job already
 * written, queues it once more and answers it.
 */
import { assertVerifiedSender } from '../auth/emailVerification.js';
import { assertQuotaLeft } from '../envelopes/dailyQuota.js';
import type { Actor } from '../envelopes/model.js';
import { parseWith } from '../http/body.js';
import { resumableId, resumingRun } from '../ids.js';
import { problem } from '../problems.js';
import type { Services } from '../services.js';
import { readTemplateFor } from '../templates/access.js';
import type { TemplateRecord } from '../templates/model.js';
import { parseCsv } from './csv.js';
import type { BulkJobRecord } from './model.js';
import { checkCsvRows, checkJsonRows, type CheckedRow } from './rows.js';
import { bulkJsonRequest } from './schemas.js';
import { queueBulkJob } from './queue.js';

/** Seconds before the safety message of step 2 (see the module comment) shows: a job whose request died starts within this. */
export const SAFETY_DELAY_SECONDS = 90;

/** The body of a bulk send: JSON as read, or the CSV's text with `send` from the query. */
export type BulkBody = { kind: 'json'; value: unknown } | { kind: 'csv'; text: string; send: boolean };

export interface CreateBulkJobOptions {
  services: Services;
  templateId: string;
  body: BulkBody;
  actor: Actor;
  now?: Date;
}

/**
 * Checks the rows and queues the job (see the module comment).
 * @returns the job as written, `queued` (or as it is now, for a resumed request)
 * @throws AppError 404 `template-not-found`; 403 `forbidden-role` (another sender's private
 *   template); 409 `template-not-active`; 400 `validation-failed` for a malformed body or CSV, no
 *   rows, more than `BULK_MAX_ROWS`, an unknown column, or any bad row (each named by number); 403
 *   `email-unverified` (with `send`); 429 `email-quota` or `sms-quota`
 */
export async function createBulkJob({ services, templateId, body, actor, now = new Date() }: CreateBulkJobOptions): Promise<BulkJobRecord> {
  const id = resumableId('bulk-job');
  if (resumingRun()) {
    const left = await services.bulkJobs.read(actor.organizationId, id);
    if (left !== null) {
      await queueBulkJob(services, left.record);
      return left.record;
    }
  }
  const { record: template } = await readTemplateFor(services, actor, templateId, 'use');
  if (template.status !== 'active') throw problem('templateNotActive');
  const { rows, send } = checkedRows(services, template, body, now);
  if (send) {
    assertVerifiedSender(actor, services);
    const limits = services.config.limits;
    const emails = rows.reduce((sum, row) => sum + row.emails, 0);
    const texts = rows.reduce((sum, row) => sum + row.texts, 0);
    if (emails > 0) await assertQuotaLeft(services.storage.tables.envelopes, { channel: 'email', organizationId: actor.organizationId, count: emails, quota: limits.emailDailyQuota, now });
    if (texts > 0) await assertQuotaLeft(services.storage.tables.envelopes, { channel: 'sms', organizationId: actor.organizationId, count: texts, quota: limits.smsDailyQuota, now });
  }

  const record: BulkJobRecord = {
    id,
    organizationId: actor.organizationId,
    templateId: template.id,
    status: 'queued',
    total: rows.length,
    created: 0,
    failed: 0,
    send,
    actor: {
      userId: actor.userId,
      email: actor.email,
      emailVerified: actor.emailVerified,
      name: actor.name ?? null,
      ip: actor.ip,
      userAgent: actor.userAgent,
      apiKeyId: actor.apiKeyId,
      organizationId: actor.organizationId,
      role: actor.role,
    },
    createdAt: now.toISOString(),
    startedAt: null,
    finishedAt: null,
    settledAt: null,
    runId: null,
    heartbeatAt: null,
    runs: 0,
  };
  await services.bulkJobs.putRows(
    id,
    rows.map(({ row, request, metadata }) => ({ row, status: 'pending' as const, request, metadata, envelopeId: null, error: null })),
  );
  await queueBulkJob(services, record, { delaySeconds: SAFETY_DELAY_SECONDS });
  if (!(await services.bulkJobs.create(record))) {
    // Written by the run this one resumes (its claim's ids are these).
    const left = await services.bulkJobs.read(actor.organizationId, id);
    if (left !== null) {
      await queueBulkJob(services, left.record);
      return left.record;
    }
  }
  await queueBulkJob(services, record);
  return record;
}

/**
 * The body's rows, checked, and `send`.
 * @throws AppError 400 `validation-failed` (see {@link createBulkJob})
 */
function checkedRows(services: Services, template: TemplateRecord, body: BulkBody, now: Date): { rows: CheckedRow[]; send: boolean } {
  const max = services.config.bulkMaxRows;
  const tooMany = (count: number) => {
    if (count === 0) throw problem('validationFailed', { detail: 'The job has no rows.', errors: [{ path: 'rows', field: 'rows', message: 'must hold at least one row' }] });
    if (count > max) {
      throw problem('validationFailed', {
        detail: `The job has ${count} rows; at most ${max} are accepted (BULK_MAX_ROWS). Split it into several jobs.`,
        errors: [{ path: 'rows', field: 'rows', message: `must hold at most ${max} rows (it holds ${count})` }],
      });
    }
  };
  if (body.kind === 'json') {
    const frame = parseWith(bulkJsonRequest, body.value);
    tooMany(frame.rows.length);
    return { rows: checkJsonRows(template, frame.rows, frame.send, now), send: frame.send };
  }
  const table = parseCsv(body.text);
  tooMany(table.records.length);
  return { rows: checkCsvRows(template, table, body.send, now), send: body.send };
}
