/**
 * Envelopes of several documents (docs/api.md#several-documents), in a fresh process.
 *
 * Completion: each round makes a draft of three documents (`lib/draftEnvelope.ts`) for each output
 * (`separate`, `combined`) and times `completeEnvelope` from draft, against the floor of the same
 * work: the sum of the three documents' PDF floors (`PDF.load` then `sign`, as `processes/completion.ts`
 * defines it) plus one storage floor (`lib/storageFloor.ts`), rounds alternating which goes first.
 *
 * Download: one completed envelope of `zip.documents` documents of about `zip.documentBytes` bytes
 * each (100 MiB together by default), whose ZIP (`envelopes/download.ts`) is read to its end, as a
 * client would, while the resident set is sampled: its growth is what streaming the archive costs.
 *
 * Argv: JSON {paths, rounds, zip: {documents, documentBytes}}.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { P12Signer, PDF } from '@libpdf/core';
import { afterResponse } from '../../src/lib/afterResponse.js';
import { completeEnvelope } from '../../src/lib/envelopes/complete.js';
import { envelopeArchive } from '../../src/lib/envelopes/download.js';
import type { Actor, Output } from '../../src/lib/envelopes/model.js';
import { uuidv7 } from '../../src/lib/ids.js';
import { getServices } from '../../src/lib/services.js';
import { failToParent, finishWithResult } from '../lib/child.js';
import { createDraftEnvelope } from '../lib/draftEnvelope.js';
import { generateLargePdf } from '../lib/generatePdf.js';
import { measured } from '../lib/measure.js';
import { storageFloor } from '../lib/storageFloor.js';

interface Options {
  paths: string[];
  rounds: number;
  zip: { documents: number; documentBytes: number };
}

export interface PacketsProcessResult {
  /** Per output: wall time of each measured completion, ms. */
  completeMs: Record<Output, number[]>;
  /** Per output: the sum of the documents' PDF floors in each round, ms. */
  pdfFloorMs: Record<Output, number[]>;
  /** Per output: one storage floor in each round, ms. */
  storageFloorMs: Record<Output, number[]>;
  /** Size of the envelope downloaded, bytes (its documents together). */
  zipEnvelopeBytes: number;
  /** Size of the archive read, bytes. */
  zipBytes: number;
  /** Wall time of reading the archive to its end, ms. */
  zipMs: number;
  /** Peak resident-set growth while reading it, bytes. */
  zipRssGrowth: number;
}

const WARMUPS = 2;

try {
  const options = JSON.parse(process.argv[2] ?? '{}') as Options;
  const services = getServices();
  const owner = uuidv7();
  const actor: Actor = { userId: owner, email: 'bench-packets@example.com', emailVerified: true, ip: '127.0.0.1', userAgent: 'bench', apiKeyId: null, organizationId: owner, role: 'owner' as const };
  const documents = await Promise.all(options.paths.map(async (file) => ({ name: path.basename(file), bytes: new Uint8Array(await readFile(file)) })));
  const [first, ...others] = documents;
  const draft = (output: Output): Promise<string> => createDraftEnvelope(services, actor, first!.bytes, first!.name, { others, output });

  const timedCompletion = async (envelopeId: string) => {
    const completion = await measured(async () => await completeEnvelope({ services, envelopeId, actor, ifMatch: null }));
    await afterResponse.idle();
    return completion;
  };
  const signer = await P12Signer.create(services.config.seal.p12, services.config.seal.passphrase);
  const timedPdfFloor = async () =>
    await measured(async () => {
      for (const document of documents) {
        const pdf = await PDF.load(document.bytes);
        await pdf.sign({ signer, fieldName: 'EnvelopeSeal', subFilter: 'ETSI.CAdES.detached', digestAlgorithm: 'SHA-256', estimatedSize: 16 * 1024 });
      }
    });
  const floorStorage = await storageFloor(services, first!.bytes, 'packet');
  const timedStorageFloor = async () => {
    const work = await floorStorage.round();
    return await measured(work);
  };

  const result: PacketsProcessResult = {
    completeMs: { separate: [], combined: [] },
    pdfFloorMs: { separate: [], combined: [] },
    storageFloorMs: { separate: [], combined: [] },
    zipEnvelopeBytes: 0,
    zipBytes: 0,
    zipMs: 0,
    zipRssGrowth: 0,
  };
  for (const output of ['separate', 'combined'] as const) {
    // Envelopes first, so that their writes fall outside the timings; warm-ups compile both sides' code.
    const warmups = [];
    for (let round = 0; round < WARMUPS; round++) warmups.push(await draft(output));
    const ids = [];
    for (let round = 0; round < options.rounds; round++) ids.push(await draft(output));
    for (const id of warmups) {
      await timedCompletion(id);
      await timedPdfFloor();
      await timedStorageFloor();
    }
    for (const [round, id] of ids.entries()) {
      let completion: Awaited<ReturnType<typeof timedCompletion>>;
      let floor: Awaited<ReturnType<typeof timedPdfFloor>>;
      if (round % 2 === 0) {
        completion = await timedCompletion(id);
        floor = await timedPdfFloor();
      } else {
        floor = await timedPdfFloor();
        completion = await timedCompletion(id);
      }
      result.completeMs[output].push(completion.ms);
      result.pdfFloorMs[output].push(floor.ms);
      result.storageFloorMs[output].push((await timedStorageFloor()).ms);
      process.stderr.write(`[bench]   packets ${output}: complete ${Math.round(completion.ms)} ms, PDF floors ${Math.round(floor.ms)} ms\n`);
    }
  }

  // The download of a large envelope: made and completed first (not measured), then read to its end.
  const large = await generateLargePdf(options.zip.documentBytes);
  const largeOthers = Array.from({ length: options.zip.documents - 1 }, (_, index) => ({ name: `large-${index + 2}.pdf`, bytes: large }));
  const largeId = await createDraftEnvelope(services, actor, large, 'large-1.pdf', { others: largeOthers, output: 'separate' });
  await completeEnvelope({ services, envelopeId: largeId, actor, ifMatch: null });
  await afterResponse.idle();
  result.zipEnvelopeBytes = large.byteLength * options.zip.documents;
  const download = await measured(async () => {
    const { stream } = await envelopeArchive({ services, actor, envelopeId: largeId });
    let size = 0;
    for await (const chunk of stream as AsyncIterable<Uint8Array>) size += chunk.byteLength;
    return size;
  });
  result.zipBytes = download.value;
  result.zipMs = download.ms;
  result.zipRssGrowth = download.growth;
  finishWithResult(result);
} catch (error) {
  failToParent(error);
}
