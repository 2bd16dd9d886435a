/**
 * Creating an embedded signing view (docs/api.md#embedded-signing): `POST /api/envelopes/{id}/recipients/{rid}/views` for
 * an embedded recipient whose turn it is, with the options an embedding application sends (an origin
 * allowed to frame the page and a return URL), one request after the other on one connection (each new
 * view ends the one before, as docs/api.md#embedded-signing says; the last one is checked to work and the one before it
 * to be refused). Baseline, measured in the same rounds, the order rotating: the hot read of the same
 * envelope (`GET /api/envelopes/{id}`, same owner, one connection) plus one bare Table write, an upsert
 * of a copy of the envelope's own row (same properties, same size) into a partition of its own, with
 * the service's Azure SDK client, one after the other. Target: the view's p50 at most 1.5 times the
 * hot read's p50 plus the write's p50, as a paired ratio round by round.
 *
 * Beside it, no target: the view's own storage floor, the storage requests a view makes done bare in
 * the same order and parallelism (the envelope's point read; then at once an entity-group transaction
 * of a copy of the envelope's row, its status row and an audit event row, and the upserts of a token's
 * row and a view's row in `signingLinks`), so the figures say how much of a view is storage.
 */
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { TableEntity } from '@azure/data-tables';
import { getServices } from '../../src/lib/services.js';
import { CORPUS_DIR } from '../../tests/support/corpus.js';
import { check, type BenchContext, type SuiteResult } from '../lib/context.js';
import { runLoad, type LoadResult } from '../lib/load.js';
import { progress } from '../lib/progress.js';
import { balancedOrder, pairedRatio, percentile, summarize, type Summary } from '../lib/stats.js';

interface Side {
  p50Ms: Summary;
  p99Ms: Summary;
  /** Requests (or writes) per second. */
  throughput: Summary;
}

export interface EmbeddedViewFigures {
  /** Bytes of the envelope's row as JSON (the bare write copies it). */
  rowBytes: number;
  /** `POST .../views`, one connection. */
  createView: Side;
  /** `GET /api/envelopes/{id}` of the same envelope, one connection. */
  hotRead: Side;
  /** One bare upsert of a copy of the envelope's row, one after the other. */
  tableWrite: Side;
  /** The view's storage requests done bare: point read, then transaction and two upserts at once. */
  storageFloor: Side;
  /** View p50 / (hot read p50 + write p50), round by round. */
  ratio: Summary;
  /** View p50 / storage floor p50, round by round (no target). */
  storageFloorRatio: Summary;
}

/** What an embedding application sends: the origin that frames the page, where to go after acting. */
const VIEW_OPTIONS = { frameAncestors: ['https://app.example.com'], returnUrl: 'https://app.example.com/contracts/42/signed' };

const SIDES = ['createView', 'hotRead', 'tableWrite', 'storageFloor'] as const;
type SideName = (typeof SIDES)[number];

export async function benchEmbeddedView(context: BenchContext): Promise<SuiteResult<EmbeddedViewFigures>> {
  const { rounds, seconds, warmupSeconds } = context.plan.embeddedView;
  // An owner of its own (a login-storm user, who owns nothing else): its partition holds only this envelope.
  const owner = context.seed.loginUsers[2]!;
  const headers = { Authorization: `Bearer ${owner.token}`, 'Content-Type': 'application/json' };
  const call = async (method: string, route: string, body?: unknown): Promise<any> => {
    const response = await fetch(`${context.apiUrl}${route}`, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    const text = await response.text();
    if (response.status >= 300) throw new Error(`embeddedView bench: ${method} ${route} answered ${response.status}: ${text}`);
    return text === '' ? null : JSON.parse(text);
  };

  // The envelope, sent through the API to one embedded signer with a signature field.
  const ticket = await call('POST', '/GetUploadUrl', { filename: 'embedded.pdf', mimetype: 'application/pdf' });
  const upload = await fetch(ticket.uploadUrl, { method: 'PUT', headers: { 'x-ms-blob-type': 'BlockBlob', 'Content-Type': 'application/pdf' }, body: await readFile(path.join(CORPUS_DIR, 'normal.pdf')) });
  await upload.text();
  if (upload.status !== 201) throw new Error(`embeddedView bench: upload answered ${upload.status}`);
  const envelopeId: string = ticket.envelopeId;
  const sent = await call('PATCH', `/envelopes/${envelopeId}`, {
    signers: [{ id: 'signer', email: 'embedded-bench@example.com', name: 'Emma Embedded', delivery: 'embedded' }],
    fields: [{ recipientId: 'signer', type: 'signature', page: 1, x: 0.1, y: 0.8, width: 0.35, height: 0.08 }],
    status: 'sent',
  });
  const recipientId: string = sent.signers[0].id;
  const viewsUrl = `${context.apiUrl}/envelopes/${envelopeId}/recipients/${recipientId}/views`;

  // The bare write's row: the envelope's own row as stored, under a partition of its own.
  const table = getServices().storage.tables.envelopes;
  // The owner has this one envelope: its row is the partition's only `envelope_` row.
  let found: Record<string, unknown> | undefined;
  for await (const entity of table.listEntities<Record<string, unknown>>({ queryOptions: { filter: `PartitionKey eq '${owner.userId}' and RowKey ge 'envelope_' and RowKey lt 'envelope_~'` } })) found ??= entity;
  if (found === undefined || found.id !== envelopeId) throw new Error(`embeddedView bench: the envelope's row of ${envelopeId} was not found`);
  const stored = found;
  const properties = Object.fromEntries(Object.entries(stored).filter(([name]) => !['etag', 'timestamp', 'partitionKey', 'rowKey'].includes(name) && !name.startsWith('odata')));
  const floorRow: TableEntity = { ...properties, partitionKey: `bench-view-floor-${randomUUID()}`, rowKey: 'row' };
  const rowBytes = Buffer.byteLength(JSON.stringify(floorRow));

  const links = getServices().storage.tables.signingLinks;
  let floorEvents = 0;
  const storageFloor = async (): Promise<void> => {
    await table.getEntity(stored.partitionKey as string, stored.rowKey as string);
    await Promise.all([
      table.submitTransaction([
        ['upsert', floorRow, 'Replace'],
        ['upsert', { ...floorRow, rowKey: 'status' }, 'Replace'],
        ['create', { partitionKey: floorRow.partitionKey, rowKey: `event_${String(++floorEvents).padStart(10, '0')}`, type: 'recipient.view_created', at: new Date().toISOString(), details: JSON.stringify({ recipientId }) }],
      ]),
      links.upsertEntity({ partitionKey: randomUUID().replaceAll('-', ''), rowKey: 'link', ownerId: owner.userId, envelopeId, recipientId }, 'Replace'),
      links.upsertEntity({ partitionKey: `view_${randomUUID()}`, rowKey: 'view', ownerId: owner.userId, envelopeId, recipientId, frameAncestors: VIEW_OPTIONS.frameAncestors.join(' '), returnUrl: VIEW_OPTIONS.returnUrl, expiresAt: new Date().toISOString() }, 'Replace'),
    ]);
  };
  /** Runs `operation` one call after the other for `durationSeconds`, timing each. */
  const bare = async (operation: () => Promise<unknown>, durationSeconds: number): Promise<LoadResult> => {
    const latencies: number[] = [];
    const started = performance.now();
    while (performance.now() - started < durationSeconds * 1000) {
      const before = performance.now();
      await operation();
      latencies.push(performance.now() - before);
    }
    const elapsed = (performance.now() - started) / 1000;
    return { throughput: latencies.length / elapsed, p50: percentile(latencies, 50), p99: percentile(latencies, 99), ok: latencies.length, failed: 0, otherStatuses: {}, durationSeconds: elapsed };
  };
  const viewBody = JSON.stringify(VIEW_OPTIONS);
  const loads: Record<SideName, (durationSeconds: number) => Promise<LoadResult>> = {
    createView: (durationSeconds) => runLoad({ url: viewsUrl, method: 'POST', headers, body: viewBody, connections: 1, durationSeconds }),
    hotRead: (durationSeconds) => runLoad({ url: `${context.apiUrl}/envelopes/${envelopeId}`, headers: { Authorization: headers.Authorization }, connections: 1, durationSeconds }),
    tableWrite: (durationSeconds) => bare(async () => await table.upsertEntity(floorRow, 'Replace'), durationSeconds),
    storageFloor: (durationSeconds) => bare(storageFloor, durationSeconds),
  };

  progress('embeddedView: warm-up');
  for (const side of SIDES) await loads[side](warmupSeconds);
  const measured: Record<SideName, LoadResult[]> = { createView: [], hotRead: [], tableWrite: [], storageFloor: [] };
  for (let round = 0; round < rounds; round++) {
    const order = balancedOrder(SIDES, round);
    for (const side of order) measured[side].push(await loads[side](seconds));
    const p50 = (side: SideName) => measured[side].at(-1)!.p50.toFixed(2);
    progress(`embeddedView, round ${round + 1}/${rounds}: p50 view ${p50('createView')} ms, hot read ${p50('hotRead')} ms, table write ${p50('tableWrite')} ms, storage floor ${p50('storageFloor')} ms`);
  }
  const failed = SIDES.filter((side) => measured[side].some((result) => result.failed > 0));
  if (failed.length > 0) throw new Error(`embeddedView: non-2xx answers on ${failed.join(', ')}: ${failed.map((side) => JSON.stringify(measured[side].map((result) => result.otherStatuses))).join('; ')}`);

  // The views were real: the newest one opens the signing page's view, the one before it no longer does.
  const older = (await (await fetch(viewsUrl, { method: 'POST', headers, body: viewBody })).json()) as { url: string };
  const newer = (await (await fetch(viewsUrl, { method: 'POST', headers, body: viewBody })).json()) as { url: string };
  const signingGet = async (url: string) => {
    const response = await fetch(`${context.apiUrl}/signing`, { headers: { Authorization: `Bearer ${new URL(url).hash.slice(1)}` } });
    await response.text();
    return response.status;
  };
  const [newerStatus, olderStatus] = [await signingGet(newer.url), await signingGet(older.url)];
  if (newerStatus !== 200 || olderStatus !== 401) throw new Error(`embeddedView: the newest view's token answered ${newerStatus} (expected 200), the one before ${olderStatus} (expected 401)`);

  const describe = (results: LoadResult[]): Side => ({
    p50Ms: summarize(results.map((result) => result.p50)),
    p99Ms: summarize(results.map((result) => result.p99)),
    throughput: summarize(results.map((result) => result.throughput)),
  });
  const p50s = (side: SideName) => measured[side].map((result) => result.p50);
  const floors = p50s('hotRead').map((read, index) => read + p50s('tableWrite')[index]!);
  const figures: EmbeddedViewFigures = {
    rowBytes,
    createView: describe(measured.createView),
    hotRead: describe(measured.hotRead),
    tableWrite: describe(measured.tableWrite),
    storageFloor: describe(measured.storageFloor),
    ratio: pairedRatio(p50s('createView'), floors),
    storageFloorRatio: pairedRatio(p50s('createView'), p50s('storageFloor')),
  };
  return {
    figures,
    targets: [
      check(
        'embeddedView',
        'Creating a view (POST /api/envelopes/{id}/recipients/{rid}/views) at most 1.5 times the hot read\'s p50 plus one bare Table write\'s p50 (one connection)',
        figures.ratio.median,
        '<=',
        1.5,
      ),
    ],
  };
}
