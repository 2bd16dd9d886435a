/**
 * Completion of one document, timed in-process, against the completion floor: what sealing the
 * same bytes cannot avoid, done with the same PDF library (@libpdf/core) in the same process, the
 * same way. A fresh process per document, so that its resident set tells about that document alone.
 *
 * The floor: `PDF.load` of the bytes, then `sign` with the sealing certificate of the service's
 * configuration (the same P12, opened once, as the seal worker opens it once), `ETSI.CAdES.detached`
 * with SHA-256 and the same reserved size: one new signature field, written as an incremental
 * update (in full where the library cannot append: a linearized file), hashed, signed, and parsed
 * back by the library. No checks, no form, no certificate page, no storage.
 *
 * Argv: JSON {name, path, rounds, warmupPath}. Each round creates a fresh envelope (completing one
 * twice seals nothing the second time), uploads the document, and times `completeEnvelope` (read
 * the original, flatten, certificate page, PAdES seal in the seal worker, store the sealed blob,
 * update the envelope: the time a caller waits for; what the commit starts after the response, the
 * outbox dispatch, is waited for untimed before the next measurement) and, alternating which goes
 * first, the floor on the same bytes.
 *
 * Memory: the resident set is sampled every 2 ms during each completion and each floor; growth is
 * the peak minus the resident set just before it (after a full GC). The seal worker is started (and
 * its fonts and signer loaded) by a warm-up completion of a small document first, as in a serving
 * instance, whose one worker is reused; that warm-up's own growth is reported apart as the worker's
 * start-up cost. Then each side runs {@link WARMUPS} times, unmeasured, on the measured bytes: the
 * first runs compile the code each side runs (V8's optimizing compiler allocates as it goes) and grow
 * the seal worker's heap to this document's working size, one-offs that a serving instance pays once;
 * the largest growth of complete's warm-ups is reported apart.
 */
import { readFile } from 'node:fs/promises';
import { P12Signer, PDF } from '@libpdf/core';
import { afterResponse } from '../../src/lib/afterResponse.js';
import { completeEnvelope } from '../../src/lib/envelopes/complete.js';
import type { Actor } from '../../src/lib/envelopes/model.js';
import { uuidv7 } from '../../src/lib/ids.js';
import { getServices } from '../../src/lib/services.js';
import { failToParent, finishWithResult } from '../lib/child.js';
import { createDraftEnvelope } from '../lib/draftEnvelope.js';
import { SEAL_PHASES, timeSealPhases, type SealPhase } from '../lib/sealPhases.js';
import { storageFloor } from '../lib/storageFloor.js';
import { measured } from '../lib/measure.js';
import { median } from '../lib/stats.js';

interface Options {
  name: string;
  path: string;
  rounds: number;
  warmupPath: string;
}

export interface CompletionProcessResult {
  name: string;
  bytes: number;
  pages: number;
  /** Wall time of each measured completion, ms. */
  completeMs: number[];
  /** Wall time of each floor (load + sign), ms. */
  floorMs: number[];
  /** Wall time of each storage floor (the completion's storage reads and writes, bare SDK), ms. */
  storageFloorMs: number[];
  /** Peak resident-set growth during each measured completion, bytes. */
  rssGrowth: number[];
  /** Peak resident-set growth during each floor, bytes. */
  floorRssGrowth: number[];
  /** Growth during the warm-up completion, which started the seal worker, bytes. */
  warmupRssGrowth: number;
  /** Largest growth of the warm-up completions of this document (unmeasured rounds on the same bytes), bytes. */
  documentWarmupRssGrowth: number;
  /** Resident set before the warm-up, bytes. */
  idleRss: number;
  /** The process's peak resident set over its whole life, bytes. */
  maxRss: number;
  /** Median time of each step of the seal, replayed on the main thread after the rounds, ms. */
  sealPhasesMs: Record<SealPhase, number>;
}

/** Unmeasured runs of each side on the measured document before its rounds. */
const WARMUPS = 3;

const gc = (globalThis as { gc?: () => void }).gc ?? (() => undefined);

try {
  const options = JSON.parse(process.argv[2] ?? '{}') as Options;
  const services = getServices();
  const owner = uuidv7();
  const actor: Actor = { userId: owner, email: 'bench-completion@example.com', emailVerified: true, ip: '127.0.0.1', userAgent: 'bench', apiKeyId: null, organizationId: owner, role: 'owner' as const };
  const document = new Uint8Array(await readFile(options.path));
  const warmup = new Uint8Array(await readFile(options.warmupPath));

  const newEnvelope = (bytes: Uint8Array, documentName: string): Promise<string> => createDraftEnvelope(services, actor, bytes, documentName);

  const timedCompletion = async (envelopeId: string) => {
    const completion = await measured(async () => await completeEnvelope({ services, envelopeId, actor, ifMatch: null }));
    // What the commit started after the response (the outbox dispatch) ends before the next timing.
    await afterResponse.idle();
    return completion;
  };

  const signer = await P12Signer.create(services.config.seal.p12, services.config.seal.passphrase);
  const timedFloor = async () =>
    await measured(async () => {
      const pdf = await PDF.load(document);
      await pdf.sign({ signer, fieldName: 'EnvelopeSeal', subFilter: 'ETSI.CAdES.detached', digestAlgorithm: 'SHA-256', estimatedSize: 16 * 1024 });
      return pdf.getPageCount();
    });

  // The storage floor (`lib/storageFloor.ts`): the completion's storage reads and writes, bare.
  const floorStorage = await storageFloor(services, document, options.name);
  const timedStorageFloor = async () => {
    const work = await floorStorage.round();
    return await measured(work);
  };

  // Envelopes first, so that storage writes do not fall inside the measured memory.
  const warmupId = await newEnvelope(warmup, 'warmup.pdf');
  const warmupIds: string[] = [];
  for (let round = 0; round < WARMUPS; round++) warmupIds.push(await newEnvelope(document, `${options.name}.pdf`));
  const ids: string[] = [];
  for (let round = 0; round < options.rounds; round++) ids.push(await newEnvelope(document, `${options.name}.pdf`));

  gc();
  const idleRss = process.memoryUsage.rss();
  const warm = await timedCompletion(warmupId);
  // Warm-ups on these very bytes, as the floor's below; their growth is reported apart.
  let documentWarmupRssGrowth = 0;
  for (const id of warmupIds) documentWarmupRssGrowth = Math.max(documentWarmupRssGrowth, (await timedCompletion(id)).growth);
  const result: CompletionProcessResult = {
    name: options.name,
    bytes: document.byteLength,
    pages: 0,
    completeMs: [],
    floorMs: [],
    storageFloorMs: [],
    rssGrowth: [],
    floorRssGrowth: [],
    warmupRssGrowth: warm.growth,
    documentWarmupRssGrowth,
    idleRss,
    maxRss: 0,
    sealPhasesMs: {} as Record<SealPhase, number>,
  };
  // The floor gets its warm-ups too: the library's first runs in this thread compile its code.
  for (let round = 0; round < WARMUPS; round++) {
    await timedFloor();
    await timedStorageFloor();
  }
  for (const [round, id] of ids.entries()) {
    let completion: Awaited<ReturnType<typeof timedCompletion>>;
    let floor: Awaited<ReturnType<typeof timedFloor>>;
    if (round % 2 === 0) {
      completion = await timedCompletion(id);
      floor = await timedFloor();
    } else {
      floor = await timedFloor();
      completion = await timedCompletion(id);
    }
    result.completeMs.push(completion.ms);
    result.rssGrowth.push(completion.growth);
    result.floorMs.push(floor.ms);
    result.floorRssGrowth.push(floor.growth);
    result.storageFloorMs.push((await timedStorageFloor()).ms);
    result.pages = floor.value;
    process.stderr.write(
      `[bench]   ${options.name}: complete ${Math.round(completion.ms)} ms, floor ${Math.round(floor.ms)} ms, RSS +${Math.round(completion.growth / 1048576)} MiB vs floor +${Math.round(floor.growth / 1048576)} MiB\n`,
    );
  }
  result.maxRss = process.resourceUsage().maxRSS * 1024;

  // Attribution, after the measured rounds (so it does not touch their memory figures).
  const certificate = {
    envelopeId: ids[0] ?? warmupId,
    documentName: `${options.name}.pdf`,
    ownerEmail: actor.email,
    recipients: [{
      id: uuidv7(), name: 'Sam Signer', email: 'signer@example.com', role: 'signer', routingOrder: 1, status: 'created',
      actedAt: null, ip: null, userAgent: null, identification: null, consent: null, signature: null,
    }],
    createdAt: new Date().toISOString(),
    sentAt: null,
    completedAt: new Date().toISOString(),
    documentSha256: '0'.repeat(64),
    pageCount: 1,
    disclosures: [],
    events: [{ sequence: 1, type: 'envelope.created', at: new Date().toISOString(), sentence: `Envelope created by ${owner}.`, ip: null }],
  };
  const p12 = services.config.seal.p12;
  const passes = [];
  for (let pass = 0; pass < 3; pass++) passes.push(await timeSealPhases(document, certificate, p12, services.config.seal.passphrase));
  for (const phase of SEAL_PHASES) result.sealPhasesMs[phase] = median(passes.map((times) => times[phase]));
  finishWithResult(result);
} catch (error) {
  failToParent(error);
}
