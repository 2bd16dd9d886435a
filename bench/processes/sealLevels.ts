/**
 * Completion at PAdES B-LTA against the same completion at B-T (target: at most 1.3 times the B-T
 * completion plus one timestamp round trip, revocation data cached), in one process, against a
 * real PKI on loopback (`tests/support/pki.ts`: openssl CAs, OCSP responder, CRL server, RFC 3161
 * authority). The same service, the same sealing certificate and document (`normal.pdf`); only
 * `SEAL_LEVEL` differs (two service objects over the same storage). B-LTA adds to B-T the DSS (its
 * revocation data served from the cache after the warm-ups) and a document timestamp: one more
 * round trip to the timestamp authority, which is timed on its own in each round (an RFC 3161
 * request from this process, as the seal worker makes it).
 *
 * Argv: JSON {documentPath, rounds}. Rounds alternate which level goes first.
 */
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { HttpTimestampAuthority } from '@libpdf/core';
import { afterResponse } from '../../src/lib/afterResponse.js';
import { loadConfig } from '../../src/lib/config.js';
import { completeEnvelope } from '../../src/lib/envelopes/complete.js';
import type { Actor } from '../../src/lib/envelopes/model.js';
import { uuidv7 } from '../../src/lib/ids.js';
import { createServices, type Services } from '../../src/lib/services.js';
import { getStorage } from '../../src/lib/storage/clients.js';
import { startTestPki } from '../../tests/support/pki.js';
import { failToParent, finishWithResult } from '../lib/child.js';
import { createDraftEnvelope } from '../lib/draftEnvelope.js';
import { LTA_PHASES, timeLtaPhases, warmLtaPhases, type LtaPhase } from '../lib/ltaPhases.js';
import { median } from '../lib/stats.js';

interface Options {
  documentPath: string;
  rounds: number;
}

export interface SealLevelsProcessResult {
  /** Wall time of each B-LTA completion, ms. */
  ltaMs: number[];
  /** Wall time of each B-T completion, ms. */
  btMs: number[];
  /** Wall time of each lone timestamp request, ms. */
  timestampMs: number[];
  /** Requests the OCSP responder and CRL server received during the measured rounds. */
  revocationRequests: number;
  /** Requests the timestamp authority received per measured B-LTA completion (2: signature and document timestamps). */
  timestampRequestsPerLta: number;
  /** Median time of each step B-LTA adds, replayed on its own after the measured rounds (attribution only, `lib/ltaPhases.ts`), ms. */
  ltaPhasesMs: Record<LtaPhase, number>;
}

const WARMUPS = 2;
/** Replays of B-LTA's own steps for the attribution. */
const LTA_PHASE_PASSES = 5;

try {
  const options = JSON.parse(process.argv[2] ?? '{}') as Options;
  const pki = await startTestPki();
  try {
    const config = loadConfig({
      ...process.env,
      SEAL_P12_BASE64: pki.sealP12Base64,
      SEAL_P12_PASSPHRASE: pki.sealPassphrase,
      TSA_URL: pki.tsaUrl,
      SEAL_LEVEL: 'B-LTA',
      OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true',
    });
    const storage = getStorage();
    const levels: Record<'B-LTA' | 'B-T', Services> = {
      'B-LTA': createServices(config, storage),
      'B-T': createServices({ ...config, sealLevel: 'B-T' }, storage),
    };
    const actor: Actor = { userId: uuidv7(), email: 'bench-seal-levels@example.com', emailVerified: true, ip: '127.0.0.1', userAgent: 'bench', apiKeyId: null, organizationId: uuidv7(), role: 'owner' as const };
    const document = new Uint8Array(await readFile(options.documentPath));
    const timestampAuthority = new HttpTimestampAuthority(pki.tsaUrl);

    const complete = async (level: 'B-LTA' | 'B-T', envelopeId: string): Promise<number> => {
      const started = performance.now();
      await completeEnvelope({ services: levels[level], envelopeId, actor, ifMatch: null });
      const ms = performance.now() - started;
      await afterResponse.idle();
      return ms;
    };
    const timestamp = async (): Promise<number> => {
      const started = performance.now();
      await timestampAuthority.timestamp(new Uint8Array(randomBytes(32)), 'SHA-256');
      return performance.now() - started;
    };
    const envelopes = async (count: number) => {
      const ids: string[] = [];
      for (let index = 0; index < count; index++) ids.push(await createDraftEnvelope(levels['B-T'], actor, document, 'normal.pdf'));
      return ids;
    };

    const warmups = await envelopes(2 * WARMUPS);
    const measured = await envelopes(2 * options.rounds);
    // Warm-ups: the seal worker started, the revocation data fetched and cached, the TSA chain known.
    for (const [index, id] of warmups.entries()) await complete(index % 2 === 0 ? 'B-LTA' : 'B-T', id);
    await timestamp();

    const result: SealLevelsProcessResult = { ltaMs: [], btMs: [], timestampMs: [], revocationRequests: 0, timestampRequestsPerLta: 0, ltaPhasesMs: {} as Record<LtaPhase, number> };
    const revocationBefore = pki.ocsp.requests + pki.crl.requests;
    let timestampRequestsOfLta = 0;
    for (let round = 0; round < options.rounds; round++) {
      const [ltaId, btId] = [measured[2 * round]!, measured[2 * round + 1]!];
      const lta = async () => {
        const before = pki.tsa.requests;
        result.ltaMs.push(await complete('B-LTA', ltaId));
        timestampRequestsOfLta += pki.tsa.requests - before;
      };
      const bt = async () => result.btMs.push(await complete('B-T', btId));
      if (round % 2 === 0) {
        await lta();
        await bt();
      } else {
        await bt();
        await lta();
      }
      result.timestampMs.push(await timestamp());
      process.stderr.write(
        `[bench]   seal levels: B-LTA ${Math.round(result.ltaMs.at(-1)!)} ms, B-T ${Math.round(result.btMs.at(-1)!)} ms, timestamp ${Math.round(result.timestampMs.at(-1)!)} ms\n`,
      );
    }
    result.revocationRequests = pki.ocsp.requests + pki.crl.requests - revocationBefore;
    result.timestampRequestsPerLta = timestampRequestsOfLta / options.rounds;
    // Attribution, after the measured rounds, in this thread (its own revocation cache, filled by the warm-ups).
    const seal = { p12: new Uint8Array(Buffer.from(pki.sealP12Base64, 'base64')), passphrase: pki.sealPassphrase };
    for (let pass = 0; pass < WARMUPS; pass++) await warmLtaPhases(document, seal, pki.tsaUrl);
    const passes = [];
    for (let pass = 0; pass < LTA_PHASE_PASSES; pass++) passes.push(await timeLtaPhases(document, seal, pki.tsaUrl));
    for (const phase of LTA_PHASES) result.ltaPhasesMs[phase] = median(passes.map((times) => times[phase]));
    finishWithResult(result);
  } finally {
    await pki.close();
  }
} catch (error) {
  failToParent(error);
}
