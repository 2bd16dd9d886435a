/**
 * Where B-LTA's time beyond B-T goes: the steps `src/lib/pdf/longTermValidation.ts` adds to a B-T
 * seal, replayed one by one on a document just signed at B-T, with a timer around each. For
 * attribution only: the seal-level figures themselves time the real completions.
 *
 * - `revocationLookup`: `prefetchValidationData`, the revocation data of both chains served from the
 *   cache (the warm-ups filled it);
 * - `validationData`: @libpdf/core's `addValidationData` (after the reload of the signed bytes): it
 *   gathers (parses the seal's CMS and its timestamp token, builds both chains, asks the revocation
 *   provider, parses each OCSP response for its responder certificates), writes the DSS as an
 *   incremental update and reparses; `validationDataCpu` is the process's CPU time meanwhile (no
 *   other work runs then: the loopback servers are idle), which a loaded machine does not stretch;
 * - `documentTimestamp`: @libpdf/core's `addTimestamp` less the wait for the authority (field,
 *   incremental save, digest, patch, reparse);
 * - `timestampRoundTrip`: that wait, which the target grants.
 */
import { P12Signer, PDF } from '@libpdf/core';
import type { DigestAlgorithm } from '@libpdf/core';
import { addLongTermValidation, prefetchValidationData, withCheckedFetch } from '../../src/lib/pdf/longTermValidation.js';
import { PadesBaselineSigner, removeSigningTime } from '../../src/lib/pdf/pades.js';
import { CheckedRevocationProvider } from '../../src/lib/pdf/revocation.js';
import { BoundedTimestampAuthority } from '../../src/lib/pdf/seal.js';

export const LTA_PHASES = ['revocationLookup', 'validationData', 'validationDataCpu', 'documentTimestamp', 'timestampRoundTrip'] as const;
export type LtaPhase = (typeof LTA_PHASES)[number];

const policy = { allowPrivate: true };
let signer: Promise<P12Signer> | undefined;

/** `document` sealed at B-T as `seal.ts` does (no flattening, no certificate page), and the instance holding it. */
async function sealedAtBT(document: Uint8Array, seal: { p12: Uint8Array; passphrase: string }, timestampAuthority: BoundedTimestampAuthority, provider: CheckedRevocationProvider) {
  signer ??= P12Signer.create(seal.p12, seal.passphrase);
  const key = await signer;
  const sealingChain = [key.certificate, ...(key.certificateChain ?? [])];
  let started = performance.now();
  await withCheckedFetch(policy, () => prefetchValidationData({ sealingChain, timestampAuthority, provider }));
  const revocationLookup = performance.now() - started;
  const pdf = await PDF.load(document);
  const baselineSigner = new PadesBaselineSigner(key);
  const { bytes } = await pdf.sign({ signer: baselineSigner, fieldName: 'EnvelopeSeal', subFilter: 'ETSI.CAdES.detached', digestAlgorithm: 'SHA-256', estimatedSize: 32 * 1024, timestampAuthority });
  removeSigningTime(bytes, baselineSigner);
  return { pdf, bytes, sealingChain, revocationLookup };
}

/**
 * One whole B-LTA seal of `document` through `addLongTermValidation`, untimed: fills this thread's
 * revocation cache and its record of the timestamp authority's chain, as the seal worker's warm-ups do.
 */
export async function warmLtaPhases(document: Uint8Array, seal: { p12: Uint8Array; passphrase: string }, timestampAuthorityUrl: string): Promise<void> {
  const timestampAuthority = new BoundedTimestampAuthority(timestampAuthorityUrl);
  const provider = new CheckedRevocationProvider(policy);
  const { pdf, bytes, sealingChain } = await sealedAtBT(document, seal, timestampAuthority, provider);
  await withCheckedFetch(policy, () => addLongTermValidation(pdf, bytes, { archival: true, timestampAuthority, sealingChain, provider }));
}

/** Times B-LTA's own steps once, on `document` signed at B-T with the sealing P12 (ms); after {@link warmLtaPhases}. */
export async function timeLtaPhases(document: Uint8Array, seal: { p12: Uint8Array; passphrase: string }, timestampAuthorityUrl: string): Promise<Record<LtaPhase, number>> {
  const timestampAuthority = new BoundedTimestampAuthority(timestampAuthorityUrl);
  const provider = new CheckedRevocationProvider(policy);
  const times = {} as Record<LtaPhase, number>;
  const { pdf, bytes, revocationLookup } = await sealedAtBT(document, seal, timestampAuthority, provider);
  times.revocationLookup = revocationLookup;

  let started = performance.now();
  const cpuBefore = process.cpuUsage();
  await withCheckedFetch(policy, async () => {
    await pdf.reload(bytes);
    await pdf.addValidationData({ revocationProvider: provider });
  });
  const cpu = process.cpuUsage(cpuBefore);
  times.validationData = performance.now() - started;
  times.validationDataCpu = (cpu.user + cpu.system) / 1000;

  let waited = 0;
  const timed = {
    timestamp: async (digest: Uint8Array, algorithm: DigestAlgorithm) => {
      const asked = performance.now();
      try {
        return await timestampAuthority.timestamp(digest, algorithm);
      } finally {
        waited += performance.now() - asked;
      }
    },
  };
  started = performance.now();
  await pdf.addTimestamp({ timestampAuthority: timed, estimatedSize: 32 * 1024, digestAlgorithm: 'SHA-256' });
  times.documentTimestamp = performance.now() - started - waited;
  times.timestampRoundTrip = waited;
  return times;
}
