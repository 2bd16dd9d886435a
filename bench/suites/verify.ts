/**
 * `npm run verify` (docs/evidence.md) on the corpus's 206-page file, sealed by the service in this
 * run (a draft completed by its owner over HTTP), against poppler's `pdfsig` on the same sealed file:
 * each a process from spawn to exit, the two alternating which goes first in each round. The verifier
 * runs as `npm run verify` runs it after its pre-script, `node dist/src/local/verify.js <file>`.
 * Target: verify / pdfsig at most 1.5 (median of the rounds' ratios).
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { getServices } from '../../src/lib/services.js';
import { createDraftEnvelope } from '../lib/draftEnvelope.js';
import { check, type BenchContext, type SuiteResult } from '../lib/context.js';
import { progress } from '../lib/progress.js';
import { summarize, type Summary } from '../lib/stats.js';
import { timed } from './commands.js';
import { CORPUS_DIR } from './completion.js';

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
/** The corpus's 206-page file. */
export const VERIFY_DOCUMENT = 'linearized_with_object_streams.pdf';

export interface VerifyFigures {
  document: string;
  /** The sealed file's size, bytes. */
  sealedBytes: number;
  /** `node dist/src/local/verify.js <sealed>`, from spawn to exit, ms. */
  verifyMs: Summary;
  /** `pdfsig <sealed>`, ms. */
  pdfsigMs: Summary;
  /** verify / pdfsig, round by round. */
  ratio: Summary;
}

/** Seals the 206-page file through the service: a draft of the small owner, completed over HTTP. @returns the sealed file's path */
async function sealedByService(context: BenchContext): Promise<{ file: string; bytes: number }> {
  const owner = context.seed.smallOwner;
  const actor = { userId: owner.userId, email: owner.email, emailVerified: true, ip: '127.0.0.1', userAgent: 'bench', apiKeyId: null, organizationId: owner.userId, role: 'owner' as const };
  const id = await createDraftEnvelope(getServices(), actor, new Uint8Array(await readFile(path.join(CORPUS_DIR, VERIFY_DOCUMENT))), VERIFY_DOCUMENT);
  const completed = await fetch(`${context.apiUrl}/envelopes/${id}/complete`, { method: 'POST', headers: { Authorization: `Bearer ${owner.token}` } });
  if (completed.status !== 200) throw new Error(`completing the ${VERIFY_DOCUMENT} envelope answered ${completed.status}: ${await completed.text()}`);
  const { signedUrl } = (await completed.json()) as { signedUrl: string };
  const sealed = Buffer.from(await (await fetch(signedUrl)).arrayBuffer());
  const file = path.join(context.tmpDir, `sealed-${VERIFY_DOCUMENT}`);
  await writeFile(file, sealed);
  return { file, bytes: sealed.length };
}

export async function benchVerify(context: BenchContext): Promise<SuiteResult<VerifyFigures>> {
  const { file, bytes } = await sealedByService(context);
  const verify = () => timed(process.execPath, ['dist/src/local/verify.js', file], REPO_ROOT, process.env);
  const pdfsig = () => timed('pdfsig', [file], REPO_ROOT, process.env);
  // Unmeasured: one of each, for the page cache (and a check that the verifier passes the file).
  await verify();
  await pdfsig();
  const verifyMs: number[] = [];
  const pdfsigMs: number[] = [];
  const ratios: number[] = [];
  for (let round = 0; round < context.plan.verify.rounds; round++) {
    let mine: number;
    let theirs: number;
    if (round % 2 === 0) {
      mine = await verify();
      theirs = await pdfsig();
    } else {
      theirs = await pdfsig();
      mine = await verify();
    }
    verifyMs.push(mine);
    pdfsigMs.push(theirs);
    ratios.push(verifyMs.at(-1)! / pdfsigMs.at(-1)!);
    progress(`verify, round ${round + 1}/${context.plan.verify.rounds}: npm run verify ${Math.round(verifyMs.at(-1)!)} ms, pdfsig ${Math.round(pdfsigMs.at(-1)!)} ms`);
  }
  const figures: VerifyFigures = { document: VERIFY_DOCUMENT, sealedBytes: bytes, verifyMs: summarize(verifyMs), pdfsigMs: summarize(pdfsigMs), ratio: summarize(ratios) };
  return {
    figures,
    targets: [check('verify.pdfsig', `npm run verify on the 206-page ${VERIFY_DOCUMENT}, sealed: at most 1.5 times pdfsig on the same file`, figures.ratio.median, '<=', 1.5)],
  };
}
