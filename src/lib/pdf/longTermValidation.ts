/**
 * PAdES B-LT and B-LTA on top of a sealed B-T document (ETSI EN 319 142-1 §5.4, §6.3), with
 * @libpdf/core's long-term validation:
 * - B-LT: `addValidationData` writes, as an incremental update, a DSS with every certificate of
 *   each signature's and signature timestamp's chains and the revocation data `revocation.ts`
 *   fetched for them (VRI entries included);
 * - B-LTA: then `addTimestamp` adds a document timestamp (`/Type /DocTimeStamp`, `ETSI.RFC3161`)
 *   whose byte range covers the whole file, DSS included; it is the last thing in the file.
 *
 * The seal is refused (503) unless every certificate of the seal's chain and of each timestamp's
 * chain that names a revocation source got its revocation data: never a lower level in silence.
 * Signatures already in the uploaded document get theirs too where it can be fetched; their
 * failures do not stop the seal.
 */
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import type { PDF } from '@libpdf/core';
import { AppError } from '../errors.js';
import { CheckedRevocationProvider, checkedFetch, isSelfIssued, revocationUrls, sha256Hex, subjectOf, type FetchPolicy } from './revocation.js';

/** Bytes reserved for the document timestamp token (with its certificates). */
const DOCUMENT_TIMESTAMP_RESERVE = 32 * 1024;

/** The 503 of a seal whose revocation data could not be had. */
export function revocationUnavailable(reason: string): AppError {
  return new AppError('service_unavailable', 'The revocation data of the sealing or timestamp certificates could not be fetched, so the document was not sealed. Try again later.', {
    type: 'revocation-unavailable',
    retryAfterSeconds: 30,
    cause: new Error(reason),
  });
}

function signedDataOf(cms: Uint8Array): pkijs.SignedData {
  const asn1 = asn1js.fromBER(cms.slice().buffer);
  if (asn1.offset === -1) throw new Error('not DER');
  const contentInfo = new pkijs.ContentInfo({ schema: asn1.result });
  if (contentInfo.contentType !== '1.2.840.113549.1.7.2') throw new Error('not a CMS SignedData');
  return new pkijs.SignedData({ schema: contentInfo.content });
}

/**
 * Checks that a TimeStampToken (RFC 3161 §2.4.2) parses and timestamps `digest`.
 * @throws Error saying what is wrong
 */
export function checkTimestampToken(token: Uint8Array, digest: Uint8Array): void {
  const signedData = signedDataOf(token);
  const content = signedData.encapContentInfo.eContent;
  if (signedData.encapContentInfo.eContentType !== '1.2.840.113549.1.9.16.1.4' || content === undefined) throw new Error('The timestamp token carries no TSTInfo.');
  const asn1 = asn1js.fromBER(content.getValue());
  const info = new pkijs.TSTInfo({ schema: asn1.result });
  const imprint = new Uint8Array(info.messageImprint.hashedMessage.valueBlock.valueHexView);
  if (!Buffer.from(imprint).equals(Buffer.from(digest))) throw new Error('The timestamp token is not over the digest that was sent.');
}

function certificatesOf(token: Uint8Array): Uint8Array[] {
  return (signedDataOf(token).certificates ?? [])
    .filter((certificate): certificate is pkijs.Certificate => certificate instanceof pkijs.Certificate)
    .map((certificate) => new Uint8Array(certificate.toSchema().toBER(false)));
}

/**
 * Throws unless every certificate of `chain` that names a revocation source, trust anchors aside, got its revocation data.
 * @throws AppError 503 `revocation-unavailable` naming the first certificate without it
 */
function assertCovered(chain: Uint8Array[], provider: CheckedRevocationProvider): void {
  for (const der of chain) {
    const certificate = new pkijs.Certificate({ schema: asn1js.fromBER(der.slice().buffer).result });
    if (isSelfIssued(certificate)) continue;
    const { ocsp, crl } = revocationUrls(certificate);
    if (ocsp.length === 0 && crl.length === 0) continue;
    const id = sha256Hex(der);
    if (!provider.obtained.has(id)) {
      throw revocationUnavailable(provider.failures.get(id) ?? `no revocation data for "${subjectOf(certificate)}": its issuer certificate is not known (include the whole chain in the PKCS#12 file)`);
    }
  }
}

export interface LongTermValidationOptions {
  /** B-LTA: add the document timestamp after the DSS. */
  archival: boolean;
  /** The timestamp authority of the seal (its tokens so far: the signature timestamp). */
  timestampAuthority: { timestamp: (digest: Uint8Array, algorithm: 'SHA-256' | 'SHA-384' | 'SHA-512') => Promise<Uint8Array>; tokens: Uint8Array[] };
  /** DER certificates of the sealing chain (the sealing certificate first). */
  sealingChain: Uint8Array[];
  allowPrivateNetworks: boolean;
}

/**
 * Adds the DSS (and for B-LTA the document timestamp) to a sealed B-T document.
 * @param pdf the document instance to work with (reloaded from `sealed` first)
 * @returns the bytes with the DSS update and, for B-LTA, the document timestamp
 * @throws AppError 503 `revocation-unavailable` or `timestamp-authority-unavailable`
 */
export async function addLongTermValidation(pdf: PDF, sealed: Uint8Array, options: LongTermValidationOptions): Promise<Uint8Array> {
  const policy: FetchPolicy = { allowPrivate: options.allowPrivateNetworks };
  const provider = new CheckedRevocationProvider(policy);
  // @libpdf/core fetches missing issuer certificates (AIA caIssuers) with globalThis.fetch: in this
  // worker, that is the checked fetch for as long as validation data is gathered.
  const previousFetch = globalThis.fetch;
  globalThis.fetch = checkedFetch(() => policy);
  try {
    await pdf.reload(sealed);
    let bytes = (await pdf.addValidationData({ revocationProvider: provider })).bytes;
    assertCovered(options.sealingChain, provider);
    for (const token of options.timestampAuthority.tokens) assertCovered(certificatesOf(token), provider);
    if (options.archival) {
      bytes = (await pdf.addTimestamp({ timestampAuthority: options.timestampAuthority, estimatedSize: DOCUMENT_TIMESTAMP_RESERVE, digestAlgorithm: 'SHA-256' })).bytes;
    }
    return bytes;
  } finally {
    globalThis.fetch = previousFetch;
  }
}
