/**
 * Recipient completion: a recipient's `POST /api/signing/complete` that completes the
 * envelope (one signer, a typed signature and a text field) against the owner's `complete` of the
 * same document from draft (same signer, no fields), for the completion suite's documents. Both
 * timed in one fresh process per document (`processes/recipientCompletion.ts`), against an Azurite
 * of this suite's own whose queues nothing consumes (so no e-mail sender or webhook fan-out writes
 * to an envelope while it is being completed).
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { startAzurite } from '../../src/local/azurite.js';
import { check, type BenchContext, type SuiteResult, type TargetCheck } from '../lib/context.js';
import { runChild } from '../lib/child.js';
import { generateLongPdf } from '../lib/generatePdf.js';
import { progress } from '../lib/progress.js';
import { pairedRatio, summarize, type Summary } from '../lib/stats.js';
import type { RecipientCompletionResult } from '../processes/recipientCompletion.js';
import { CORPUS_DIR, CORPUS_DOCUMENTS } from './completion.js';

export interface RecipientCompletionFigures {
  document: string;
  bytes: number;
  recipientMs: Summary;
  ownerMs: Summary;
  /** recipient / owner, round by round. */
  timeRatio: Summary;
}

export const RECIPIENT_COMPLETION_LIMIT = 1.3;

export async function benchRecipientCompletion(context: BenchContext): Promise<SuiteResult<RecipientCompletionFigures[]>> {
  const { plan } = context;
  const generatedName = `generated_${plan.completion.generatedPages}_pages`;
  const generatedPath = path.join(context.tmpDir, `${generatedName}.pdf`);
  progress(`recipient completion: generating a ${plan.completion.generatedPages}-page document`);
  await writeFile(generatedPath, await generateLongPdf(plan.completion.generatedPages));
  const documents = [...CORPUS_DOCUMENTS.map((name) => ({ name, path: path.join(CORPUS_DIR, `${name}.pdf`) })), { name: generatedName, path: generatedPath }];

  const azurite = await startAzurite();
  try {
    const env = { ...context.env, STORAGE_CONNECTION_STRING: azurite.connectionString };
    const figures: RecipientCompletionFigures[] = [];
    const targets: TargetCheck[] = [];
    for (const document of documents) {
      progress(`recipient completion: ${document.name} (${plan.completion.rounds} rounds, fresh process)`);
      const result = await runChild<RecipientCompletionResult>('recipientCompletion', {
        args: [JSON.stringify({ ...document, rounds: plan.completion.rounds, warmupPath: path.join(CORPUS_DIR, 'normal.pdf') })],
        env,
        timeoutMs: 900_000,
      });
      const entry: RecipientCompletionFigures = {
        document: document.name,
        bytes: result.bytes,
        recipientMs: summarize(result.recipientMs),
        ownerMs: summarize(result.ownerMs),
        timeRatio: pairedRatio(result.recipientMs, result.ownerMs),
      };
      figures.push(entry);
      progress(`recipient completion: ${document.name}: recipient ${entry.recipientMs.median} ms vs owner ${entry.ownerMs.median} ms (x${entry.timeRatio.median})`);
      targets.push(
        check(
          `recipientCompletion.${document.name}`,
          `${document.name}: the last recipient's completing POST /api/signing/complete (typed signature + text) at most ${RECIPIENT_COMPLETION_LIMIT} times the owner's complete from draft (same signer, no fields)`,
          entry.timeRatio.median,
          '<=',
          RECIPIENT_COMPLETION_LIMIT,
        ),
      );
    }
    return { figures, targets };
  } finally {
    await azurite.stop();
  }
}
