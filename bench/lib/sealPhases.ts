/**
 * Where a seal's time goes: the steps of `src/lib/pdf/seal.ts` replayed one by one with a timer
 * around each (bounds checks, signature-field checks and error mapping left out). For attribution
 * only: the completion figures themselves time the real `complete`.
 */
import { PDF, P12Signer } from '@libpdf/core';
import { appendCertificatePages } from '../../src/lib/pdf/certificatePage.js';
import { checkInflateBudget } from '../../src/lib/pdf/inflateBudget.js';
import type { CompletionCertificate } from '../../src/lib/pdf/types.js';

export const SEAL_PHASES = ['inflateCheck', 'parse', 'flatten', 'certificatePage', 'incrementalSave', 'reparse', 'sign', 'readBack'] as const;
export type SealPhase = (typeof SEAL_PHASES)[number];

let signer: Promise<P12Signer> | undefined;

/** Times each step of sealing `document` once, ms. */
export async function timeSealPhases(document: Uint8Array, certificate: CompletionCertificate, p12: Uint8Array, passphrase: string): Promise<Record<SealPhase, number>> {
  signer ??= P12Signer.create(p12, passphrase);
  const key = await signer;
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
  lap('certificatePage');
  const prepared = await pdf.save({ incremental: pdf.canSaveIncrementally() === null, subsetFonts: true });
  lap('incrementalSave');
  const reopened = await PDF.load(prepared);
  lap('reparse');
  const { bytes } = await reopened.sign({ signer: key, fieldName: 'EnvelopeSeal', subFilter: 'ETSI.CAdES.detached', digestAlgorithm: 'SHA-256', estimatedSize: 16 * 1024 });
  lap('sign');
  (await PDF.load(bytes)).getPageCount();
  lap('readBack');
  return times;
}
