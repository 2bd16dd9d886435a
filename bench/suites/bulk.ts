/**
 * Bulk send (bench/README.md#bulk-send-to-be-measured): a job of `rows` rows (`POST /api/templates/{id}/bulk`, every
 * envelope sent), timed from the POST until `GET /api/bulk/{id}` says `completed`, against the same
 * number of `POST /api/templates/{id}/envelopes` with `send: true` made one after the other by one
 * client, on the same template in the same round. Targets: the job at most 0.5 times the sequential
 * sends (the job uses the machine's concurrency); and the hot read (`GET /api/envelopes/{id}`, as in
 * the hot-read suite) while a job runs, its p99 at most 2 times the same read's idle p99, round by round.
 * Each side sends as an owner of its own (a login-storm user, who owns nothing else): each
 * organisation's daily e-mail quota holds its side's invitations.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { CORPUS_DIR } from '../../tests/support/corpus.js';
import { check, type BenchContext, type SuiteResult } from '../lib/context.js';
import { runLoad, type LoadResult } from '../lib/load.js';
import { progress } from '../lib/progress.js';
import { pairedRatio, summarize, type Summary } from '../lib/stats.js';

export interface BulkFigures {
  rows: number;
  /** The job, from the POST until it completed, ms. */
  jobMs: Summary;
  /** The same number of sequential sends from the template, ms. */
  sequentialMs: Summary;
  /** jobMs / sequentialMs, round by round. */
  ratio: Summary;
  /** Hot read p99 idle and while a job runs, ms, and their ratio round by round. */
  idleReadP99Ms: Summary;
  busyReadP99Ms: Summary;
  readP99Ratio: Summary;
}

const FIELDS = [
  { type: 'text', page: 1, x: 0.1, y: 0.3, width: 0.5, height: 0.05, label: 'Department' },
  { type: 'signature', page: 1, x: 0.1, y: 0.8, width: 0.35, height: 0.08 },
];

export async function benchBulk(context: BenchContext): Promise<SuiteResult<BulkFigures>> {
  const { rounds, rows, readConnections } = context.plan.bulk;
  const { seed } = context;
  // One owner (and organisation, and e-mail quota) per side and round: sequential, job, job under reads.
  const owners = seed.loginUsers.slice(3, 3 + 3 * rounds);
  if (owners.length < 3 * rounds) throw new Error(`bulk bench: needs ${3 * rounds} spare login users, has ${owners.length}`);
  const call = async (token: string, method: string, route: string, body?: unknown): Promise<any> => {
    const response = await fetch(`${context.apiUrl}${route}`, { method, headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    const text = await response.text();
    if (response.status >= 300) throw new Error(`bulk bench: ${method} ${route} answered ${response.status}: ${text.slice(0, 500)}`);
    return text === '' ? null : JSON.parse(text);
  };
  const document = await readFile(path.join(CORPUS_DIR, 'normal.pdf'));
  const activeTemplate = async (token: string): Promise<string> => {
    const created = await call(token, 'POST', '/templates', { name: 'Bench policy', filename: 'policy.pdf', mimetype: 'application/pdf' });
    const put = await fetch(created.uploadUrl, { method: 'PUT', headers: { 'x-ms-blob-type': 'BlockBlob', 'Content-Type': 'application/pdf' }, body: document });
    await put.text();
    if (put.status !== 201) throw new Error(`bulk bench: upload answered ${put.status}`);
    await call(token, 'PATCH', `/templates/${created.template.id}`, { roles: [{ id: 'employee', name: 'Employee' }], fields: FIELDS.map((field) => ({ ...field, roleId: 'employee' })), status: 'active' });
    return created.template.id as string;
  };
  let counter = 0;
  const person = () => ({ roleName: 'Employee', email: `bench-bulk-${++counter}@example.com`, name: 'Erin Employee' });
  /** Runs a job of `rows` rows and resolves with its duration, ms, once it completed. */
  const job = async (token: string, templateId: string): Promise<number> => {
    const started = performance.now();
    const queued = await call(token, 'POST', `/templates/${templateId}/bulk`, { rows: Array.from({ length: rows }, () => ({ recipients: [person()]})) });
    for (;;) {
      const read = await call(token, 'GET', `/bulk/${queued.id}`);
      if (read.status === 'completed') {
        if (read.created !== rows) throw new Error(`bulk bench: the job made ${read.created} of ${rows} envelopes`);
        return performance.now() - started;
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  const read = (seconds: number, stopWhen?: Promise<unknown>): Promise<LoadResult> =>
    runLoad({
      url: `${context.apiUrl}/envelopes/${seed.hotEnvelopeId}`,
      headers: { Authorization: `Bearer ${seed.smallOwner.token}` },
      connections: readConnections,
      durationSeconds: seconds,
      ...(stopWhen === undefined ? {} : { stopWhen }),
    });

  const jobMs: number[] = [];
  const sequentialMs: number[] = [];
  const idleP99: number[] = [];
  const busyP99: number[] = [];
  for (let round = 0; round < rounds; round++) {
    const [sequentialOwner, jobOwner, readOwner] = owners.slice(3 * round, 3 * round + 3) as [typeof owners[number], typeof owners[number], typeof owners[number]];
    const [sequentialTemplate, jobTemplate, readTemplate] = await Promise.all([activeTemplate(sequentialOwner.token), activeTemplate(jobOwner.token), activeTemplate(readOwner.token)]);
    // Alternating which side goes first, so that neither always meets a fresher (or a busier) Azurite.
    const sides = [
      async () => {
        const started = performance.now();
        for (let index = 0; index < rows; index++) await call(sequentialOwner.token, 'POST', `/templates/${sequentialTemplate}/envelopes`, { recipients: [person()] });
        sequentialMs.push(performance.now() - started);
      },
      async () => {
        jobMs.push(await job(jobOwner.token, jobTemplate));
      },
    ];
    for (const side of round % 2 === 0 ? sides : [...sides].reverse()) await side();
    const idle = await read(3);
    const running = job(readOwner.token, readTemplate);
    // Reads for as long as the job runs (at most 60 s), from a moment after it started.
    await new Promise((resolve) => setTimeout(resolve, 200));
    const busy = await read(60, running);
    await running;
    idleP99.push(idle.p99);
    busyP99.push(busy.p99);
    progress(`bulk, round ${round + 1}/${rounds}: job of ${rows} ${jobMs.at(-1)!.toFixed(0)} ms, sequential ${sequentialMs.at(-1)!.toFixed(0)} ms; read p99 idle ${idle.p99.toFixed(1)} ms, during a job ${busy.p99.toFixed(1)} ms`);
  }
  const figures: BulkFigures = {
    rows,
    jobMs: summarize(jobMs),
    sequentialMs: summarize(sequentialMs),
    ratio: pairedRatio(jobMs, sequentialMs),
    idleReadP99Ms: summarize(idleP99),
    busyReadP99Ms: summarize(busyP99),
    readP99Ratio: pairedRatio(busyP99, idleP99),
  };
  return {
    figures,
    targets: [
      check('bulk', `A bulk job of ${rows} rows, from the POST until every envelope is sent, at most 0.5 times ${rows} sequential POST /api/templates/{id}/envelopes with send (median of rounds)`, figures.ratio.median, '<=', 0.5),
      check('bulkHotRead', 'Hot read p99 while a bulk job runs at most 2 times idle (median of rounds)', figures.readP99Ratio.median, '<=', 2),
    ],
  };
}
