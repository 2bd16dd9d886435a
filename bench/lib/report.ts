/** Writes `results.json` and the readable `results.md` table of every figure and ratio. */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { TargetCheck } from './context.js';
import type { Summary } from './stats.js';
import type { HotReadLevel } from '../suites/hotRead.js';
import type { IdempotencyFigures } from '../suites/idempotency.js';
import type { TemplatesFigures } from '../suites/templates.js';
import type { SmsSendFigures } from '../suites/smsSend.js';
import type { BulkFigures } from '../suites/bulk.js';
import type { EmbeddedViewFigures } from '../suites/embeddedView.js';
import type { PublicLogFigures } from '../suites/publicLog.js';
import type { PacketFigures } from '../suites/packets.js';
import type { ListFigures } from '../suites/list.js';
import type { OrganizationListFigures } from '../suites/organizationList.js';
import type { OrganizationReadLevel } from '../suites/organizationRead.js';
import type { CompletionFigures } from '../suites/completion.js';
import type { SealLevelsFigures } from '../suites/sealLevels.js';
import type { DetectionFigures } from '../suites/detection.js';
import type { ColdStartFigures } from '../suites/coldStart.js';
import type { CommandsFigures } from '../suites/commands.js';
import type { VerifyFigures } from '../suites/verify.js';
import type { LoginStormFigures } from '../suites/loginStorm.js';
import type { RecipientCompletionFigures } from '../suites/recipientCompletion.js';
import type { SweepFigures } from '../suites/sweep.js';
import type { WebhookBurstFigures } from '../suites/webhookBurst.js';
import type { SigningPageFigures } from '../suites/signingPage.js';
import type { TelemetryFigures } from '../suites/telemetry.js';

export interface Results {
  meta: {
    startedAt: string;
    mode: 'quick' | 'full';
    durationSeconds: number;
    node: string;
    platform: string;
    cpus: string;
    bcryptCost: number;
    seededEnvelopes: number;
  };
  hotRead?: HotReadLevel[];
  list?: ListFigures;
  organizationRead?: OrganizationReadLevel[];
  organizationList?: OrganizationListFigures;
  completion?: CompletionFigures[];
  coldStart?: ColdStartFigures;
  commands?: CommandsFigures;
  verify?: VerifyFigures;
  loginStorm?: LoginStormFigures;
  recipientCompletion?: RecipientCompletionFigures[];
  sealLevels?: SealLevelsFigures;
  detection?: DetectionFigures;
  sweep?: SweepFigures;
  webhookBurst?: WebhookBurstFigures;
  idempotency?: IdempotencyFigures;
  signingPage?: SigningPageFigures;
  templates?: TemplatesFigures;
  bulk?: BulkFigures;
  embeddedView?: EmbeddedViewFigures;
  telemetry?: TelemetryFigures;
  publicLog?: PublicLogFigures;
  smsSend?: SmsSendFigures;
  packets?: PacketFigures;
  targets: TargetCheck[];
  /** Suites that failed, with why. */
  errors?: Record<string, string>;
}

const fmt = (value: number, digits = 1): string => (Number.isFinite(value) ? value.toFixed(digits) : 'n/a');
const spread = (summary: Summary): string => `${fmt(summary.spreadPct, 0)}%`;
const mib = (bytes: number): string => `${fmt(bytes / 1048576, 1)} MiB`;
const cpu = (summary: Summary | undefined): string => (summary === undefined ? 'n/a' : fmt(summary.median, 2));
const ratio = (summary: Summary): string => `**${fmt(summary.median, 2)}** (${fmt(summary.min, 2)}–${fmt(summary.max, 2)})`;

export function toMarkdown(results: Results): string {
  const { meta } = results;
  const lines: string[] = [
    '# Benchmark results',
    '',
    `Run ${meta.startedAt}, \`${meta.mode}\` mode, ${Math.round(meta.durationSeconds)} s in all. Node ${meta.node} on ${meta.platform}, ${meta.cpus}. ` +
      `bcrypt cost ${meta.bcryptCost}. Azurite in memory, ${meta.seededEnvelopes} envelopes seeded.`,
    '',
    'Every figure is the median of its rounds; "spread" is (max − min) / median over those rounds. A ratio is taken round by',
    'round (both sides measured back to back in the same round) and shown as the median, with the lowest and highest round in',
    'brackets. Absolute times depend on this shared, noisy machine; compare ratios, not times, between runs.',
    '',
    '## Targets',
    '',
    '| target | measured | limit | met |',
    '| --- | --- | --- | --- |',
    ...results.targets.map((target) => `| ${target.target} | ${fmt(target.value, 2)} | ${target.comparison} ${target.limit} | ${target.met ? 'yes' : '**no**'} |`),
  ];
  for (const [suite, error] of Object.entries(results.errors ?? {})) lines.push('', `**${suite} failed:** ${error}`);

  if (results.hotRead !== undefined) {
    const rounds = results.hotRead[0]?.service.throughput.rounds ?? 0;
    lines.push(
      '',
      `## Hot read: \`GET /api/envelopes/{id}\` vs a bare \`node:http\` point read (${rounds} rounds)`,
      '',
      '| connections | service req/s (spread) | baseline req/s (spread) | throughput ratio | service p50 / p99 ms | baseline p50 / p99 ms | CPU ms per request, service: server + Azurite | baseline: server + Azurite | errors |',
      '| --- | --- | --- | --- | --- | --- | --- | --- | --- |',
      ...results.hotRead.map(
        (level) =>
          `| ${level.connections} | ${fmt(level.service.throughput.median, 0)} (${spread(level.service.throughput)}) | ${fmt(level.baseline.throughput.median, 0)} (${spread(level.baseline.throughput)}) | ${ratio(level.throughputRatio)} | ` +
          `${fmt(level.service.p50Ms.median)} / ${fmt(level.service.p99Ms.median)} | ${fmt(level.baseline.p50Ms.median)} / ${fmt(level.baseline.p99Ms.median)} | ` +
          `${cpu(level.service.serverCpuMsPerRequest)} + ${cpu(level.service.azuriteCpuMsPerRequest)} | ${cpu(level.baseline.serverCpuMsPerRequest)} + ${cpu(level.baseline.azuriteCpuMsPerRequest)} | ${level.service.failed + level.baseline.failed} |`,
      ),
    );
    if (results.hotRead.every((level) => level.apiKey !== undefined)) {
      lines.push(
        '',
        '### `GET /api/envelopes/{id}` with an API key (`Authorization: Bearer esk_...`) instead of the access token, in the same rounds',
        '',
        '| connections | API key req/s (spread) | ratio to the baseline (target) | p50 / p99 ms | CPU ms per request: server + Azurite | errors |',
        '| --- | --- | --- | --- | --- | --- |',
        ...results.hotRead.map(
          (level) =>
            `| ${level.connections} | ${fmt(level.apiKey.throughput.median, 0)} (${spread(level.apiKey.throughput)}) | ${ratio(level.apiKeyRatio)} | ` +
            `${fmt(level.apiKey.p50Ms.median)} / ${fmt(level.apiKey.p99Ms.median)} | ${cpu(level.apiKey.serverCpuMsPerRequest)} + ${cpu(level.apiKey.azuriteCpuMsPerRequest)} | ${level.apiKey.failed} |`,
        ),
      );
    }
    if (results.hotRead.every((level) => level.signing !== undefined)) {
      lines.push(
        '',
        `### The recipient's \`GET /api/signing\` (signing token; two point reads: the token's row, then the envelope) in the same rounds`,
        '',
        '| connections | signing GET req/s (spread) | ratio to the one-read baseline (target) | two-read baseline req/s (spread) | ratio to the two-read baseline | signing GET p50 / p99 ms | CPU ms per request: server + Azurite | two-read baseline: server + Azurite | errors |',
        '| --- | --- | --- | --- | --- | --- | --- | --- | --- |',
        ...results.hotRead.map(
          (level) =>
            `| ${level.connections} | ${fmt(level.signing.throughput.median, 0)} (${spread(level.signing.throughput)}) | ${ratio(level.signingRatio)} | ${fmt(level.baselineTwoReads.throughput.median, 0)} (${spread(level.baselineTwoReads.throughput)}) | ${ratio(level.signingTwoReadsRatio)} | ` +
            `${fmt(level.signing.p50Ms.median)} / ${fmt(level.signing.p99Ms.median)} | ${cpu(level.signing.serverCpuMsPerRequest)} + ${cpu(level.signing.azuriteCpuMsPerRequest)} | ` +
            `${cpu(level.baselineTwoReads.serverCpuMsPerRequest)} + ${cpu(level.baselineTwoReads.azuriteCpuMsPerRequest)} | ${level.signing.failed + level.baselineTwoReads.failed} |`,
        ),
      );
    }
    if (results.hotRead.every((level) => level.signingAccessCode !== undefined)) {
      lines.push(
        '',
        '### `GET /api/signing` of a recipient with an access code, once authenticated, in the same rounds (the same two reads; the verification is kept on the recipient)',
        '',
        '| connections | req/s (spread) | ratio to the one-read baseline (target) | p50 / p99 ms | CPU ms per request: server + Azurite | errors |',
        '| --- | --- | --- | --- | --- | --- |',
        ...results.hotRead.map(
          (level) =>
            `| ${level.connections} | ${fmt(level.signingAccessCode.throughput.median, 0)} (${spread(level.signingAccessCode.throughput)}) | ${ratio(level.signingAccessCodeRatio)} | ` +
            `${fmt(level.signingAccessCode.p50Ms.median)} / ${fmt(level.signingAccessCode.p99Ms.median)} | ${cpu(level.signingAccessCode.serverCpuMsPerRequest)} + ${cpu(level.signingAccessCode.azuriteCpuMsPerRequest)} | ${level.signingAccessCode.failed} |`,
        ),
      );
    }
  }

  if (results.list !== undefined) {
    const list = results.list;
    lines.push(
      '',
      `## List: first page of ${list.pageSize}, one connection (${list.small.p50Ms.rounds} rounds)`,
      '',
      '| owner | p50 ms (spread) | p99 ms | pages/s |',
      '| --- | --- | --- | --- |',
      `| ${list.small.envelopes} envelopes | ${fmt(list.small.p50Ms.median)} (${spread(list.small.p50Ms)}) | ${fmt(list.small.p99Ms.median)} | ${fmt(list.small.throughput.median)} |`,
      `| ${list.large.envelopes} envelopes | ${fmt(list.large.p50Ms.median)} (${spread(list.large.p50Ms)}) | ${fmt(list.large.p99Ms.median)} | ${fmt(list.large.throughput.median)} |`,
      '',
      `Ratio (${list.large.envelopes} / ${list.small.envelopes}, p50): ${ratio(list.latencyRatio)}`,
    );
  }

  if (results.organizationRead !== undefined) {
    const rounds = results.organizationRead[0]?.owner.throughput.rounds ?? 0;
    lines.push(
      '',
      `## Hot read by an admin: \`GET /api/envelopes/{id}\` of the owner's envelope with an admin's token vs the owner's own (${rounds} rounds)`,
      '',
      '| connections | admin req/s (spread) | owner req/s (spread) | throughput ratio | admin p50 / p99 ms | owner p50 / p99 ms | errors |',
      '| --- | --- | --- | --- | --- | --- | --- |',
      ...results.organizationRead.map(
        (level) =>
          `| ${level.connections} | ${fmt(level.admin.throughput.median, 0)} (${spread(level.admin.throughput)}) | ${fmt(level.owner.throughput.median, 0)} (${spread(level.owner.throughput)}) | ${ratio(level.throughputRatio)} | ` +
          `${fmt(level.admin.p50Ms.median)} / ${fmt(level.admin.p99Ms.median)} | ${fmt(level.owner.p50Ms.median)} / ${fmt(level.owner.p99Ms.median)} | ${level.admin.failed + level.owner.failed} |`,
      ),
    );
  }

  if (results.organizationList !== undefined) {
    const list = results.organizationList;
    const row = (side: OrganizationListFigures['small'], owners: number) =>
      `| ${side.envelopes} envelopes | ${owners} | ${fmt(side.p50Ms.median)} (${spread(side.p50Ms)}) | ${fmt(side.p99Ms.median)} | ${fmt(side.throughput.median)} | ${side.failed} |`;
    lines.push(
      '',
      `## Organisation's list: \`GET /api/envelopes?scope=organization\`, first page of ${list.pageSize}, ${list.members} members, one connection (${list.small.p50Ms.rounds} rounds)`,
      '',
      '| organisation | owners on the page | p50 ms (spread) | p99 ms | pages/s | errors |',
      '| --- | --- | --- | --- | --- | --- |',
      row(list.small, list.ownersOnPage.small),
      row(list.large, list.ownersOnPage.large),
      '',
      `Ratio (${list.large.envelopes} / ${list.small.envelopes}, p50): ${ratio(list.latencyRatio)}`,
    );
  }

  if (results.templates !== undefined) {
    const figures = results.templates;
    lines.push(
      '',
      `## Templates: create and send (${figures.fromTemplateMs.rounds} rounds of ${figures.sendsPerRound} sends each way)`,
      '',
      '| way | median ms (spread) |',
      '| --- | --- |',
      `| from a template (\`POST /api/templates/{id}/envelopes\`) | ${fmt(figures.fromTemplateMs.median)} (${spread(figures.fromTemplateMs)}) |`,
      `| by upload (GetUploadUrl, PUT, PATCH with signer, fields and status) | ${fmt(figures.byUploadMs.median)} (${spread(figures.byUploadMs)}) |`,
      '',
      `From a template / by upload: ${ratio(figures.ratio)}`,
    );
  }

  if (results.smsSend !== undefined) {
    const figures = results.smsSend;
    lines.push(
      '',
      `## Sending by text message (${figures.bySmsMs.rounds} rounds of ${figures.sendsPerRound} sends each way)`,
      '',
      '| signer | median ms (spread) |',
      '| --- | --- |',
      `| \`delivery: ["sms"]\` (\`PATCH\` with \`status: "sent"\`) | ${fmt(figures.bySmsMs.median)} (${spread(figures.bySmsMs)}) |`,
      `| by e-mail (the same send) | ${fmt(figures.byEmailMs.median)} (${spread(figures.byEmailMs)}) |`,
      '',
      `By text message / by e-mail: ${ratio(figures.ratio)}`,
    );
  }

  if (results.bulk !== undefined) {
    const figures = results.bulk;
    lines.push(
      '',
      `## Bulk send: a job of ${figures.rows} rows (${figures.jobMs.rounds} rounds)`,
      '',
      '| what | median ms (spread) |',
      '| --- | --- |',
      `| the job, from the POST until every envelope is sent | ${fmt(figures.jobMs.median)} (${spread(figures.jobMs)}) |`,
      `| ${figures.rows} sequential \`POST /api/templates/{id}/envelopes\` | ${fmt(figures.sequentialMs.median)} (${spread(figures.sequentialMs)}) |`,
      `| hot read p99, idle | ${fmt(figures.idleReadP99Ms.median, 2)} (${spread(figures.idleReadP99Ms)}) |`,
      `| hot read p99, while a job runs | ${fmt(figures.busyReadP99Ms.median, 2)} (${spread(figures.busyReadP99Ms)}) |`,
      '',
      `Job / sequential: ${ratio(figures.ratio)}; read p99 during a job / idle: ${ratio(figures.readP99Ratio)}`,
    );
  }

  if (results.embeddedView !== undefined) {
    const figures = results.embeddedView;
    const row = (name: string, side: EmbeddedViewFigures['createView']) =>
      `| ${name} | ${fmt(side.p50Ms.median, 2)} (${spread(side.p50Ms)}) | ${fmt(side.p99Ms.median, 2)} | ${fmt(side.throughput.median)} |`;
    lines.push(
      '',
      `## Embedded signing view: one connection (${figures.createView.p50Ms.rounds} rounds)`,
      '',
      '| request | p50 ms (spread) | p99 ms | per second |',
      '| --- | --- | --- | --- |',
      row('`POST /api/envelopes/{id}/recipients/{rid}/views`', figures.createView),
      row('`GET /api/envelopes/{id}` (the same envelope)', figures.hotRead),
      row(`bare Table upsert of the envelope's row (${fmt(figures.rowBytes / 1024, 1)} KiB)`, figures.tableWrite),
      row('the view\'s storage requests, bare (point read; then a 3-row transaction and 2 upserts at once)', figures.storageFloor),
      '',
      `View / (hot read + write) (p50): ${ratio(figures.ratio)}; view / its storage requests done bare (p50, no target): ${ratio(figures.storageFloorRatio)}`,
    );
  }

  if (results.telemetry !== undefined) {
    const figures = results.telemetry;
    const row = (name: string, side: TelemetryFigures['off']) =>
      `| ${name} | ${fmt(side.throughput.median)} (${spread(side.throughput)}) | ${fmt(side.p50Ms.median, 2)} | ${fmt(side.p99Ms.median, 2)} |`;
    lines.push(
      '',
      `## Telemetry: the hot read at ${figures.connections} connections (${figures.off.throughput.rounds} rounds)`,
      '',
      '| `GET /api/envelopes/{id}` | requests/s (spread) | p50 ms | p99 ms |',
      '| --- | --- | --- | --- |',
      row('telemetry off', figures.off),
      row('exporting over OTLP/HTTP to a loopback collector', figures.exporting),
      '',
      `Exporting / off: ${ratio(figures.throughputRatio)}; exports received while measured: ${figures.exports.traces} of traces, ${figures.exports.metrics} of metrics, ${figures.exports.logs} of logs (${fmt(figures.exports.bytes / 1024, 0)} KiB)`,
      ...(figures.serverCpuMsPerRequest === undefined
        ? []
        : [
            '',
            `Service CPU per request (from /proc, exports included): off ${fmt(figures.serverCpuMsPerRequest.off.median, 3)} ms, exporting ${fmt(figures.serverCpuMsPerRequest.exporting.median, 3)} ms; exporting / off ${ratio(figures.serverCpuMsPerRequest.ratio)}`,
          ]),
    );
  }

  if (results.publicLog !== undefined) {
    const { auditAppend, logAppend } = results.publicLog;
    lines.push(
      '',
      `## Evidence: audit append with its hash, public log append (${auditAppend.ratio.rounds} rounds of ${auditAppend.appendsPerRound} appends per side)`,
      '',
      '| append | median ms (spread) |',
      '| --- | --- |',
      `| audit event with its hash (chained) | ${fmt(auditAppend.withHashMs.median, 2)} (${spread(auditAppend.withHashMs)}) |`,
      `| audit event without it | ${fmt(auditAppend.withoutHashMs.median, 2)} (${spread(auditAppend.withoutHashMs)}) |`,
      `| public log, two leaves, at ${logAppend.largeLeaves.toLocaleString('en')} leaves (p50) | ${fmt(logAppend.largeP50Ms.median, 2)} (${spread(logAppend.largeP50Ms)}) |`,
      `| public log, two leaves, at ${logAppend.smallLeaves.toLocaleString('en')} leaves (p50) | ${fmt(logAppend.smallP50Ms.median, 2)} (${spread(logAppend.smallP50Ms)}) |`,
      '',
      `With / without the hash: ${ratio(auditAppend.ratio)}; ${logAppend.largeLeaves.toLocaleString('en')} / ${logAppend.smallLeaves.toLocaleString('en')} leaves: ${ratio(logAppend.ratio)} (trees filled in ${logAppend.fillSeconds} s)`,
    );
  }

  if (results.packets !== undefined) {
    const figures = results.packets;
    const row = (output: 'separate' | 'combined') =>
      `| ${output} | ${fmt(figures.completeMs[output].median)} (${spread(figures.completeMs[output])}) | ${fmt(figures.pdfFloorMs[output].median)} | ${fmt(figures.storageFloorMs[output].median)} | ${ratio(figures.timeWithStorageRatio[output])} |`;
    lines.push(
      '',
      `## Several documents: ${figures.documents.join(', ')} in one envelope (${figures.completeMs.separate.rounds} rounds)`,
      '',
      '| output | complete ms (spread) | PDF floors ms | storage floor ms | complete / (PDF floors + storage floor) |',
      '| --- | --- | --- | --- | --- |',
      row('separate'),
      row('combined'),
      '',
      `ZIP of a ${fmt(figures.zipEnvelopeBytes / 1048576, 1)} MiB envelope: ${fmt(figures.zipBytes / 1048576, 1)} MiB in ${fmt(figures.zipMs)} ms, resident set +${fmt(figures.zipRssGrowthBytes / 1048576, 1)} MiB`,
    );
  }

  if (results.idempotency !== undefined) {
    const figures = results.idempotency;
    const row = (name: string, side: IdempotencyFigures['withoutKey']) =>
      `| ${name} | ${fmt(side.p50Ms.median, 2)} (${spread(side.p50Ms)}) | ${fmt(side.p99Ms.median, 2)} | ${fmt(side.throughput.median)} |`;
    lines.push(
      '',
      `## Idempotency keys: ${figures.connections} connections (${figures.withoutKey.p50Ms.rounds} rounds)`,
      '',
      '| request | p50 ms (spread) | p99 ms | requests/s |',
      '| --- | --- | --- | --- |',
      row('`POST /api/GetUploadUrl` without a key', figures.withoutKey),
      row('`POST /api/GetUploadUrl` with a new key each time', figures.newKey),
      row('`POST /api/GetUploadUrl` replayed (a used key)', figures.replay),
      row('`GET /api/envelopes/{id}` (hot read)', figures.hotRead),
      '',
      `New key / without key (p50): ${ratio(figures.newKeyRatio)}; replay / hot read (p50): ${ratio(figures.replayRatio)}`,
    );
  }

  if (results.signingPage !== undefined) {
    const figures = results.signingPage;
    const kib = (summary: Summary): string => `${fmt(summary.median / 1024, 0)} KiB`;
    lines.push(
      '',
      `## Signing page, first load by language (${figures.english.bytes.rounds} rounds)`,
      '',
      'A fresh Chromium context per load (390 × 844), from navigation until the first page of the document is drawn and the fonts are loaded.',
      '',
      '| language | bytes over the wire | responses | first page drawn, ms (spread) | bytes / English | time / English |',
      '| --- | --- | --- | --- | --- | --- |',
      `| en | ${kib(figures.english.bytes)} | ${fmt(figures.english.requests.median, 0)} | ${fmt(figures.english.firstPageMs.median, 0)} (${spread(figures.english.firstPageMs)}) | | |`,
      ...Object.entries(figures.locales).map(([locale, side]) =>
        `| ${locale} | ${kib(side.bytes)} | ${fmt(side.requests.median, 0)} | ${fmt(side.firstPageMs.median, 0)} (${spread(side.firstPageMs)}) | ${ratio(side.bytesRatio)} | ${ratio(side.firstPageRatio)} |`),
    );
  }

  if (results.completion !== undefined) {
    const rounds = results.completion[0]?.completeMs.rounds ?? 0;
    lines.push(
      '',
      `## Completion vs the completion floor (${rounds} rounds per document)`,
      '',
      'The floor: what sealing the same bytes cannot avoid, with the same library (@libpdf/core) in the same process: `PDF.load`, then `sign` ' +
        '(one new signature field written as an incremental update, SHA-256, a PAdES `ETSI.CAdES.detached` CMS with the same sealing certificate, ' +
        "the library's parse of the signed bytes). Its memory is sampled as complete's is. " +
        'Each side first runs 3 times, unmeasured, on the same bytes (code compiled, the seal worker\'s heap grown to the document); ' +
        "the largest growth of complete's warm-ups and the worker's start-up growth (once per process) are reported apart.",
      '',
      '| document | size | pages | complete ms (spread) | floor ms (spread) | time ratio | storage floor ms | complete / (floor + storage floor) | complete peak RSS growth | floor peak RSS growth | growth ratio | growth / size | warm-up growth | worker start-up growth |',
      '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
      ...results.completion.map(
        (entry) =>
          `| ${entry.document} | ${mib(entry.bytes)} | ${entry.pages} | ${fmt(entry.completeMs.median, 0)} (${spread(entry.completeMs)}) | ${fmt(entry.floorMs.median, 0)} (${spread(entry.floorMs)}) | ` +
          `${ratio(entry.timeRatio)} | ${entry.storageFloorMs === undefined ? '' : fmt(entry.storageFloorMs.median, 0)} | ${entry.timeWithStorageRatio === undefined ? '' : ratio(entry.timeWithStorageRatio)} | ${mib(entry.peakRssGrowthBytes)} | ${mib(entry.floorPeakRssGrowthBytes)} | **${fmt(entry.rssGrowthRatio, 2)}** | ` +
          `${fmt(entry.rssGrowthPerByte, 1)} | ${mib(entry.documentWarmupRssGrowthBytes)} | ${mib(entry.workerStartRssGrowthBytes)} |`,
      ),
    );
  }

  if (results.completion !== undefined && results.completion.some((entry) => entry.sealPhasesMs !== undefined)) {
    const phases = Object.keys(results.completion.find((entry) => entry.sealPhasesMs !== undefined)!.sealPhasesMs);
    lines.push(
      '',
      'Where a seal\'s time goes: the steps of `src/lib/pdf/seal.ts` replayed one at a time on the main thread (median of 3 passes, ms; ' +
        '`sign` is the library\'s sign, which the floor also does: incremental save with the signature field, digest, CMS, parse of the result; ' +
        '"rest of complete" is the complete time less their sum: storage reads and writes, the upload\'s check at freezing, the worker hand-off, the envelope update).',
      '',
      `| document | ${phases.join(' | ')} | sum | floor | rest of complete |`,
      `| --- | ${phases.map(() => '---').join(' | ')} | --- | --- | --- |`,
      ...results.completion.map((entry) => {
        const values = phases.map((phase) => entry.sealPhasesMs[phase] ?? Number.NaN);
        const sum = values.reduce((total, value) => total + value, 0);
        return `| ${entry.document} | ${values.map((value) => fmt(value, 0)).join(' | ')} | ${fmt(sum, 0)} | ${fmt(entry.floorMs.median, 0)} | ${fmt(entry.completeMs.median - sum, 0)} |`;
      }),
    );
  }

  if (results.coldStart !== undefined) {
    const cold = results.coldStart;
    lines.push(
      '',
      `## Cold start: a fresh process importing every function module vs only the three Azure SDKs (${cold.functions.importMs.rounds} rounds)`,
      '',
      '| measure | all function modules ms (spread) | three SDKs ms (spread) | ratio |',
      '| --- | --- | --- | --- |',
      `| from process start to all imported (target) | ${fmt(cold.functions.sinceProcessStartMs.median, 0)} (${spread(cold.functions.sinceProcessStartMs)}) | ${fmt(cold.baseline.sinceProcessStartMs.median, 0)} (${spread(cold.baseline.sinceProcessStartMs)}) | ${ratio(cold.sinceProcessStartRatio)} |`,
      `| the imports alone | ${fmt(cold.functions.importMs.median, 0)} (${spread(cold.functions.importMs)}) | ${fmt(cold.baseline.importMs.median, 0)} (${spread(cold.baseline.importMs)}) | ${ratio(cold.importRatio)} |`,
      '',
      `Heavy packages loaded at import: ${cold.heavyPackagesLoaded.length === 0 ? 'none' : cold.heavyPackagesLoaded.join(', ')}. ` +
        `Packages loaded at import: ${cold.packagesLoaded.join(', ')}.`,
      ...Object.entries(cold.heavyImportChains ?? {}).flatMap(([name, chain]) => ['', `Import chain of ${name}: ${chain.map((step) => `\`${step}\``).join(' → ')}`]),
      ...(cold.functionModules === undefined ? [] : ['', `Function modules imported (${cold.functionModules.length}): ${cold.functionModules.join(', ')}.`]),
      ...(cold.telemetryOff === undefined
        ? []
        : [
            '',
            `Telemetry off: every function module as built ${fmt(cold.telemetryOff.withTelemetry.median, 0)} ms (${spread(cold.telemetryOff.withTelemetry)}), with the telemetry's front replaced by a stand-in ${fmt(cold.telemetryOff.withoutTelemetry.median, 0)} ms (${spread(cold.telemetryOff.withoutTelemetry)}), from process start under the same module hooks: ${ratio(cold.telemetryOff.ratio)}.`,
          ]),
    );
  }

  if (results.sealLevels !== undefined) {
    const levels = results.sealLevels;
    lines.push(
      '',
      `## Seal levels: completion at B-LTA vs B-T plus one timestamp round trip (${levels.ltaMs.rounds} rounds)`,
      '',
      'The same completion of `normal.pdf` from draft, in one process, at `SEAL_LEVEL` B-LTA and B-T, against a loopback PKI made with openssl ' +
        '(CAs, `openssl ocsp` responder, CRL server, `openssl ts` authority); a lone RFC 3161 request timed in each round. ' +
        'Revocation data is cached by the warm-ups, so B-LTA adds the DSS and the document timestamp.',
      '',
      '| B-LTA ms (spread) | B-T ms (spread) | timestamp ms | B-LTA / (B-T + timestamp) | OCSP and CRL requests while measuring | TSA requests per B-LTA |',
      '| --- | --- | --- | --- | --- | --- |',
      `| ${fmt(levels.ltaMs.median, 0)} (${spread(levels.ltaMs)}) | ${fmt(levels.btMs.median, 0)} (${spread(levels.btMs)}) | ${fmt(levels.timestampMs.median, 0)} | ${ratio(levels.ratio)} | ${levels.revocationRequests} | ${levels.timestampRequestsPerLta} |`,
    );
    if (levels.ltaPhasesMs !== undefined) {
      const phases = Object.keys(levels.ltaPhasesMs);
      lines.push(
        '',
        'Where B-LTA\'s time beyond B-T goes: its steps replayed one at a time on the main thread after the measured rounds (median of 5 passes, ms; `bench/lib/ltaPhases.ts`). ' +
          '`validationData` is @libpdf/core\'s `addValidationData` (gathering, DSS update, reparse) and `validationDataCpu` the CPU time it took; ' +
          '`documentTimestamp` is `addTimestamp` less `timestampRoundTrip`, its wait for the authority.',
        '',
        `| ${phases.join(' | ')} |`,
        `| ${phases.map(() => '---').join(' | ')} |`,
        `| ${phases.map((phase) => fmt(levels.ltaPhasesMs![phase] ?? Number.NaN, 1)).join(' | ')} |`,
      );
    }
  }
  if (results.detection !== undefined) {
    const detection = results.detection;
    lines.push(
      '',
      `## Field detection vs PDF.js's own text extraction (${detection.ratio.rounds} rounds)`,
      '',
      `\`detectDocumentFields\` of \`${detection.document}\` (${detection.pageCount} pages: the seal worker reads every page's text content, joins lines, finds tags, looks up the form) against PDF.js opening the same bytes and calling \`getTextContent()\` on every page, in the same process.`,
      '',
      '| detection ms (spread) | PDF.js text content ms (spread) | detection / PDF.js (target ≤ 1.5) |',
      '| --- | --- | --- |',
      `| ${fmt(detection.detectionMs.median, 0)} (${spread(detection.detectionMs)}) | ${fmt(detection.floorMs.median, 0)} (${spread(detection.floorMs)}) | ${ratio(detection.ratio)} |`,
    );
  }
  if (results.commands !== undefined) {
    const commands = results.commands;
    lines.push(
      '',
      `## Commands on a built checkout (${commands.inviteMs.rounds} rounds; absolute times on this machine)`,
      '',
      '| command | ms (spread) | × \`node -e ""\` |',
      '| --- | --- | --- |',
      `| \`npm run --silent invite\` (target: under 5 s) | ${fmt(commands.inviteMs.median, 0)} (${spread(commands.inviteMs)}) | ${fmt(commands.inviteMs.median / commands.nodeStartMs.median)} |`,
      `| a second \`npm start\` until its invitation code (target: under 15 s) | ${fmt(commands.secondStartMs.median, 0)} (${spread(commands.secondStartMs)}) | ${fmt(commands.secondStartMs.median / commands.nodeStartMs.median)} |`,
      `| \`node -e ""\` | ${fmt(commands.nodeStartMs.median, 0)} (${spread(commands.nodeStartMs)}) | 1.0 |`,
    );
  }
  if (results.verify !== undefined) {
    const verify = results.verify;
    lines.push(
      '',
      `## npm run verify vs pdfsig (${verify.ratio.rounds} rounds)`,
      '',
      `\`node dist/src/local/verify.js\` (what \`npm run verify\` runs) and poppler's \`pdfsig\` on \`${verify.document}\` (206 pages) sealed by the service in this run (${fmt(verify.sealedBytes / 1048576, 1)} MiB), each a process from spawn to exit, the order alternating.`,
      '',
      '| npm run verify ms (spread) | pdfsig ms (spread) | verify / pdfsig (target ≤ 1.5) |',
      '| --- | --- | --- |',
      `| ${fmt(verify.verifyMs.median, 0)} (${spread(verify.verifyMs)}) | ${fmt(verify.pdfsigMs.median, 0)} (${spread(verify.pdfsigMs)}) | ${ratio(verify.ratio)} |`,
    );
  }

  if (results.recipientCompletion !== undefined) {
    const rounds = results.recipientCompletion[0]?.ownerMs.rounds ?? 0;
    lines.push(
      '',
      `## Recipient completion: the last signer's \`POST /api/signing/complete\` (typed signature + text) vs the owner's complete from draft (${rounds} rounds per document)`,
      '',
      '| document | size | recipient ms (spread) | owner ms (spread) | ratio |',
      '| --- | --- | --- | --- | --- |',
      ...results.recipientCompletion.map(
        (entry) =>
          `| ${entry.document} | ${mib(entry.bytes)} | ${fmt(entry.recipientMs.median, 0)} (${spread(entry.recipientMs)}) | ${fmt(entry.ownerMs.median, 0)} (${spread(entry.ownerMs)}) | ${ratio(entry.timeRatio)} |`,
      ),
    );
  }

  if (results.sweep !== undefined) {
    const sweep = results.sweep;
    lines.push(
      '',
      `## Sweep with nothing due (${sweep.small.sweepMs.rounds} rounds, median of ${sweep.sweepsPerRound} sweeps per round and side)`,
      '',
      '| sent envelopes | due-index entries (all in the future) | one sweep ms (spread) |',
      '| --- | --- | --- |',
      `| ${sweep.small.envelopes} | ${sweep.small.dueEntries} | ${fmt(sweep.small.sweepMs.median)} (${spread(sweep.small.sweepMs)}) |`,
      `| ${sweep.large.envelopes} | ${sweep.large.dueEntries} | ${fmt(sweep.large.sweepMs.median)} (${spread(sweep.large.sweepMs)}) |`,
      '',
      `Ratio (${sweep.large.envelopes} / ${sweep.small.envelopes}): ${ratio(sweep.ratio)}. Seeding took ${sweep.seedSeconds} s.`,
    );
  }

  if (results.webhookBurst !== undefined) {
    const burst = results.webhookBurst;
    lines.push(
      '',
      `## Webhook burst: ${burst.events} events delivered to a loopback receiver while ${burst.connections} connections read an envelope (${burst.burstSeconds.rounds} rounds)`,
      '',
      '| figure | value (spread) |',
      '| --- | --- |',
      `| burst duration, s | ${fmt(burst.burstSeconds.median, 1)} (${spread(burst.burstSeconds)}) |`,
      `| deliveries/s | ${fmt(burst.deliveriesPerSecond.median, 0)} (${spread(burst.deliveriesPerSecond)}) |`,
      `| deliveries beyond one per event (all rounds) | ${burst.extraDeliveries} |`,
      `| readers idle: req/s, p99 ms | ${fmt(burst.idle.throughput.median, 0)} (${spread(burst.idle.throughput)}), ${fmt(burst.idle.p99Ms.median)} |`,
      `| readers during the burst: req/s, p99 ms | ${fmt(burst.duringBurst.throughput.median, 0)} (${spread(burst.duringBurst.throughput)}), ${fmt(burst.duringBurst.p99Ms.median)} |`,
      `| readers' throughput during the burst / idle | ${ratio(burst.throughputRatio)} |`,
      `| readers' failed requests during the burst | ${burst.duringBurst.failed} |`,
    );
  }

  if (results.loginStorm !== undefined) {
    const storm = results.loginStorm;
    lines.push(
      '',
      `## Login flood: ${storm.concurrentLogins} connections logging in for unknown addresses, each request from an address of its own, while ${storm.readerConnections} connections read envelopes and a real account logs in (bcrypt cost ${storm.bcryptCost}, ${storm.readersIdle.p99Ms.rounds} rounds)`,
      '',
      '| figure | value (spread) |',
      '| --- | --- |',
      `| flood: logins/s answered | ${fmt(storm.flood.requestsPerSecond.median, 0)} (${spread(storm.flood.requestsPerSecond)}) |`,
      `| flood: statuses | ${JSON.stringify(storm.flood.statuses)}${storm.flood.errors === 0 ? '' : `, ${storm.flood.errors} connection errors`} |`,
      `| readers idle: req/s, p99 ms | ${fmt(storm.readersIdle.throughput.median, 0)}, ${fmt(storm.readersIdle.p99Ms.median)} (${spread(storm.readersIdle.p99Ms)}) |`,
      `| readers during the flood: req/s, p99 ms | ${fmt(storm.readersDuringStorm.throughput.median, 0)}, ${fmt(storm.readersDuringStorm.p99Ms.median)} (${spread(storm.readersDuringStorm.p99Ms)}) |`,
      `| readers' p99 during the flood / idle | ${ratio(storm.readerP99Ratio)} |`,
      `| a real account's login, median ms: idle, during the flood | ${fmt(storm.realLoginIdleMs.median, 0)}, ${fmt(storm.realLoginDuringStormMs.median, 0)} |`,
      `| real login during the flood / idle | ${ratio(storm.realLoginRatio)} |`,
      `| real logins that failed | ${storm.realLoginFailures} |`,
    );
  }
  return `${lines.join('\n')}\n`;
}

export async function writeResults(results: Results, outDir: string): Promise<{ json: string; markdown: string }> {
  const json = path.join(outDir, 'results.json');
  const markdown = path.join(outDir, 'results.md');
  await writeFile(json, `${JSON.stringify(results, null, 2)}\n`);
  await writeFile(markdown, toMarkdown(results));
  return { json, markdown };
}
