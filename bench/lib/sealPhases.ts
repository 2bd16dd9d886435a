/**
 * Where a seal's time goes: the steps of `src/lib/pdf/seal.ts` replayed one by one with a timer
 * around each (bounds checks, signature-field checks and error mapping left out). For attribution
 * only: the completion figures themselves time the real `complete`.
 *
 * `sign` is @libpdf/core's `sign`: the incremental save of the changes with the new signature field,
 * the digest, the CMS and the library's own parse of the signed bytes (which the seal's read-back
 * check reads); `signingTime` is the removal of the CMS signing-time attribute (`pades.ts`).
 */
import { PDF, P12Signer } from '@libpdf/core';
import { appendCertificatePages } from '../../src/lib/pdf/certificatePage.js';
import { checkInflateBudget } from '../../src/lib/pdf/inflateBudget.js';
import { PadesBaselineSigner, removeSigningTime } from '../../src/lib/pdf/pades.js';
import type { CompletionCertificate } from '../../src/lib/pdf/types.js';

export const SEAL_PHASES = ['inflateCheck', 'parse', 'flatten', 'certificatePage', 'sign', 'signingTime'] as const;
export type SealPhase = (typeof SEAL_PHASES)[number];

let signer: Promise<P12Signer> | undefined;

/** Times each step of sealing `document` once, ms. */
export async function timeSealPhases(document: Uint8Array, certificate: CompletionCertificate, p12: Uint8Array, passphrase: string): Promise<Record<SealPhase, number>> {
  signer ??= P12Signer.create(p12, passphrase);
  const key = new PadesBaselineSigner(await signer);
  const times = {} as Record<SealPhase, number>;
  let started = performance.now();
  const lap = (phase: SealPhase) => {
    const now = performance.now();
    times[phase] = now - started;
    started = now;
  };
  await checkInflateBudget(document);
  lap('inflateCheck');
  const pdf = await PDF.load(document);
  const pages = pdf.getPageCount();
  lap('parse');
  pdf.getForm()?.flatten({ skipSignatures: true });
  lap('flatten');
  appendCertificatePages(pdf, certificate, pages);
  pdf.fonts.finalize(true);
  lap('certificatePage');
  const { bytes } = await pdf.sign({ signer: key, fieldName: 'EnvelopeSeal', subFilter: 'ETSI.CAdES.detached', digestAlgorithm: 'SHA-256', estimatedSize: 16 * 1024 });
  pdf.getPageCount();
  lap('sign');
  removeSigningTime(bytes, key);
  lap('signingTime');
  return times;
}
