/**
 * Envelopes of several documents (docs/api.md#several-documents): completing a three-document
 * envelope, `separate` and `combined`, against the sum of its documents' PDF floors plus one storage
 * floor; and the resident-set growth of streaming the ZIP of a 100 MiB envelope. One fresh process
 * (`processes/packets.ts`).
 */
import path from 'node:path';
import { check, type BenchContext, type SuiteResult, type TargetCheck } from '../lib/context.js';
import { runChild } from '../lib/child.js';
import { progress } from '../lib/progress.js';
import { pairedRatio, round, summarize, type Summary } from '../lib/stats.js';
import type { PacketsProcessResult } from '../processes/packets.js';
import { CORPUS_DIR } from './completion.js';

/** The three documents of the completion rows, from the corpus. */
export const PACKET_DOCUMENTS = ['normal', 'fill_form', 'us_constitution'];

/** Targets: complete / (the documents' PDF floors + one storage floor), each output; the ZIP's RSS growth, MiB. */
export const PACKET_LIMITS = { timeWithStorage: 1.2, zipRssGrowthMiB: 64 } as const;

export interface PacketFigures {
  documents: string[];
  completeMs: Record<'separate' | 'combined', Summary>;
  pdfFloorMs: Record<'separate' | 'combined', Summary>;
  storageFloorMs: Record<'separate' | 'combined', Summary>;
  /** complete / (PDF floors + storage floor), round by round. */
  timeWithStorageRatio: Record<'separate' | 'combined', Summary>;
  zipEnvelopeBytes: number;
  zipBytes: number;
  zipMs: number;
  zipRssGrowthBytes: number;
}

export async function benchPackets(context: BenchContext): Promise<SuiteResult<PacketFigures>> {
  const { plan } = context;
  progress(`packets: three documents, ${plan.packets.rounds} rounds per output; then the ZIP of ${plan.packets.zipDocuments} documents of ${plan.packets.zipDocumentBytes} bytes (fresh process)`);
  const result = await runChild<PacketsProcessResult>('packets', {
    args: [JSON.stringify({ paths: PACKET_DOCUMENTS.map((name) => path.join(CORPUS_DIR, `${name}.pdf`)), rounds: plan.packets.rounds, zip: { documents: plan.packets.zipDocuments, documentBytes: plan.packets.zipDocumentBytes } })],
    env: context.env,
    execArgv: ['--expose-gc'],
    timeoutMs: 1_200_000,
  });
  const outputs = ['separate', 'combined'] as const;
  const per = <T>(make: (output: (typeof outputs)[number]) => T): Record<(typeof outputs)[number], T> => ({ separate: make('separate'), combined: make('combined') });
  const figures: PacketFigures = {
    documents: PACKET_DOCUMENTS,
    completeMs: per((output) => summarize(result.completeMs[output])),
    pdfFloorMs: per((output) => summarize(result.pdfFloorMs[output])),
    storageFloorMs: per((output) => summarize(result.storageFloorMs[output])),
    timeWithStorageRatio: per((output) => pairedRatio(result.completeMs[output], result.pdfFloorMs[output].map((floor, index) => floor + result.storageFloorMs[output][index]!))),
    zipEnvelopeBytes: result.zipEnvelopeBytes,
    zipBytes: result.zipBytes,
    zipMs: round(result.zipMs),
    zipRssGrowthBytes: result.zipRssGrowth,
  };
  const targets: TargetCheck[] = outputs.map((output) =>
    check(
      `packets.timeWithStorage.${output}`,
      `complete a three-document envelope (${output}): at most ${PACKET_LIMITS.timeWithStorage} times (the sum of the documents' PDF floors + one storage floor)`,
      figures.timeWithStorageRatio[output].median,
      '<=',
      PACKET_LIMITS.timeWithStorage,
    ),
  );
  const growthMiB = round(result.zipRssGrowth / 1048576, 1);
  targets.push(check('packets.zipRssGrowth', `the ZIP of a ${round(result.zipEnvelopeBytes / 1048576, 0)} MiB envelope: resident-set growth at most ${PACKET_LIMITS.zipRssGrowthMiB} MiB`, growthMiB, '<=', PACKET_LIMITS.zipRssGrowthMiB));
  progress(
    `packets: separate x${figures.timeWithStorageRatio.separate.median}, combined x${figures.timeWithStorageRatio.combined.median}; ZIP of ${figures.zipBytes} bytes in ${figures.zipMs} ms, RSS +${growthMiB} MiB`,
  );
  return { figures, targets };
}
