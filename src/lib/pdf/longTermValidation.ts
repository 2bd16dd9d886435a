/**
 * PAdES B-LT and B-LTA on top of a sealed B-T document (ETSI EN 319 142-1 §5.4, §6.3), with
 * @libpdf/core's long-term validation:
 * - B-LT: `addValidationData` writes, as an incremental update, a DSS with every certificate of
 *   each signature's and signature timestamp's chains and the revocation data `revocation.ts`
 *   fetched for them (VRI entries included);
 * - B-LTA: then `addTimestamp` adds a document timestamp (`/Type /DocTimeStamp`, `ETSI.RFC3161`)
 *   whose byte range covers the whole file, DSS included; it is the last thing in the file.
 *
 * The revocation data of the seal's chain and of the timestamp authority's chain is fetched (or
 * taken from the cache) *before* the signature is made ({@link prefetchValidationData}): validators
 * check the sealing certificate as of the signature timestamp's time, and pyHanko, for one, refuses
 * revocation data issued after that time ("too new"). The timestamp authority's chain is known from
 * its last token; before the first seal of a worker, one timestamp of a random digest asks for it.
 * The seal is refused (503) unless every certificate of the seal's chain and of each timestamp's
 * chain that names a revocation source got its revocation data: never a lower level in silence.
 * Signatures already in the uploaded document get theirs too where it can be fetched; their
 * failures do not stop the seal.
 */
import { randomBytes } from 'node:crypto';
import * as asn1js from 'asn1js';
import type * as pkijs from 'pkijs';
import type { PDF } from '@libpdf/core';
import { AppError } from '../errors.js';
import { checkedFetch, isSelfIssued, parseCertificate, revocationUrls, sha256Hex, sourceUrlsOf, subjectOf, type CheckedRevocationProvider, type FetchPolicy } from './revocation.js';
import { problem } from '../problems.js';

/** Bytes reserved for the document timestamp token (with its certificates). */
const DOCUMENT_TIMESTAMP_RESERVE = 32 * 1024;

/** The 503 of a seal whose revocation data could not be had. */
export function revocationUnavailable(reason: string): AppError {
  return problem('revocationUnavailable', { retryAfterSeconds: 30, cause: new Error(reason) });
}

/** The children of a constructed ASN.1 block (none for a primitive one). */
function childrenOf(block: asn1js.AsnType | undefined): asn1js.AsnType[] {
  const value = (block as { valueBlock?: { value?: unknown } } | undefined)?.valueBlock?.value;
  return Array.isArray(value) ? (value as asn1js.AsnType[]) : [];
}

function isContext(block: asn1js.AsnType | undefined, tag: number): boolean {
  return block !== undefined && block.idBlock.tagClass === 3 && block.idBlock.tagNumber === tag;
}

/**
 * The parts of a TimeStampToken (RFC 3161 §2.4.2: a CMS SignedData, RFC 5652 §5.1) the seal needs:
 * the DER of its TSTInfo and of its certificates. Walked with asn1js's plain BER parser (pkijs's
 * schema matching costs tens of milliseconds per token); memoized by the token's SHA-256.
 * @throws Error when the token is not a SignedData with encapsulated content
 */
function tokenParts(token: Uint8Array): { tstInfo: Uint8Array; eContentType: string; certificates: Uint8Array[] } {
  const key = sha256Hex(token);
  const known = tokenCache.get(key);
  if (known !== undefined) return known;
  const asn1 = asn1js.fromBER(token.slice().buffer);
  if (asn1.offset === -1) throw new Error('The timestamp token is not DER.');
  const [contentType, explicitContent] = childrenOf(asn1.result);
  if (!(contentType instanceof asn1js.ObjectIdentifier) || contentType.getValue() !== '1.2.840.113549.1.7.2' || !isContext(explicitContent, 0)) {
    throw new Error('The timestamp token is not a CMS SignedData.');
  }
  const signedData = childrenOf(childrenOf(explicitContent)[0]);
  const [eContentType, eContent] = childrenOf(signedData[2]);
  const octets = childrenOf(eContent)[0];
  if (!(eContentType instanceof asn1js.ObjectIdentifier) || !(octets instanceof asn1js.OctetString)) throw new Error('The timestamp token carries no encapsulated content.');
  const certificateSet = signedData.slice(3).find((block) => isContext(block, 0));
  const parts = {
    eContentType: eContentType.getValue(),
    tstInfo: new Uint8Array(octets.getValue()),
    certificates: childrenOf(certificateSet)
      .filter((block) => block instanceof asn1js.Sequence)
      .map((block) => new Uint8Array(block.valueBeforeDecodeView)),
  };
  if (tokenCache.size >= 64) tokenCache.delete(tokenCache.keys().next().value!);
  tokenCache.set(key, parts);
  return parts;
}

const tokenCache = new Map<string, { tstInfo: Uint8Array; eContentType: string; certificates: Uint8Array[] }>();

/**
 * Checks that a TimeStampToken (RFC 3161 §2.4.2) parses and timestamps `digest`.
 * @throws Error saying what is wrong
 */
export function checkTimestampToken(token: Uint8Array, digest: Uint8Array): void {
  const { eContentType, tstInfo } = tokenParts(token);
  if (eContentType !== '1.2.840.113549.1.9.16.1.4') throw new Error('The timestamp token carries no TSTInfo.');
  // TSTInfo ::= SEQUENCE { version, policy, messageImprint SEQUENCE { hashAlgorithm, hashedMessage OCTET STRING }, ... }
  const messageImprint = childrenOf(asn1js.fromBER(tstInfo.slice().buffer).result)[2];
  const hashed = childrenOf(messageImprint)[1];
  if (!(hashed instanceof asn1js.OctetString)) throw new Error('The timestamp token has no message imprint.');
  if (!Buffer.from(hashed.getValue()).equals(Buffer.from(digest))) throw new Error('The timestamp token is not over the digest that was sent.');
}

function certificatesOf(token: Uint8Array): Uint8Array[] {
  return tokenParts(token).certificates;
}

/**
 * Throws unless every certificate of `chain` that names a revocation source, trust anchors aside, got its revocation data.
 * @throws AppError 503 `revocation-unavailable` naming the first certificate without it
 */
function assertCovered(chain: Uint8Array[], provider: CheckedRevocationProvider): void {
  for (const der of chain) {
    const certificate = parseCertificate(der);
    if (isSelfIssued(certificate)) continue;
    const { ocsp, crl } = revocationUrls(certificate);
    if (ocsp.length === 0 && crl.length === 0) continue;
    const id = sha256Hex(der);
    if (!provider.obtained.has(id)) {
      throw revocationUnavailable(provider.failures.get(id) ?? `no revocation data for "${subjectOf(certificate)}": its issuer certificate is not known (include the whole chain in the PKCS#12 file)`);
    }
  }
}

interface SealTimestampAuthority {
  readonly url: string;
  timestamp: (digest: Uint8Array, algorithm: 'SHA-256' | 'SHA-384' | 'SHA-512') => Promise<Uint8Array>;
  /** Tokens obtained so far, in order. */
  readonly tokens: Uint8Array[];
}

export interface LongTermValidationOptions {
  /** B-LTA: add the document timestamp after the DSS. */
  archival: boolean;
  /** The timestamp authority of the seal (its tokens so far: the signature timestamp). */
  timestampAuthority: SealTimestampAuthority;
  /** DER certificates of the sealing chain (the sealing certificate first). */
  sealingChain: Uint8Array[];
  /** The provider {@link prefetchValidationData} filled. */
  provider: CheckedRevocationProvider;
}

/** The certificates of each timestamp authority's last token, by URL (per worker). */
const timestampChains = new Map<string, Uint8Array[]>();

function nameOf(name: pkijs.RelativeDistinguishedNames): string {
  return Buffer.from(name.toSchema().toBER(false)).toString('hex');
}

/** {@link withIssuers} of the chains seen so far, by the SHA-256 of their certificates (per worker: the sealing and timestamp chains come back on every seal). */
const pairedChains = new Map<string, readonly ChainEntry[]>();

interface ChainEntry {
  readonly der: Uint8Array;
  /** The DER of its issuer when `chain` holds it. */
  readonly issuer: Uint8Array | undefined;
}

/** Each certificate of `chain` with its issuer among `chain`, trust anchors left out. */
function withIssuers(chain: Uint8Array[]): readonly ChainEntry[] {
  const key = chain.map(sha256Hex).join(' ');
  const known = pairedChains.get(key);
  if (known !== undefined) return known;
  const parsed = chain.map((der) => ({ der, certificate: parseCertificate(der), subject: '' }));
  for (const entry of parsed) entry.subject = nameOf(entry.certificate.subject);
  const paired = parsed
    .filter(({ certificate }) => !isSelfIssued(certificate))
    .map(({ der, certificate }) => {
      const issuerName = nameOf(certificate.issuer);
      return { der, issuer: parsed.find((candidate) => candidate.subject === issuerName)?.der };
    });
  if (pairedChains.size >= 16) pairedChains.delete(pairedChains.keys().next().value!);
  pairedChains.set(key, paired);
  return paired;
}

/**
 * Fetches (or takes from the cache) the revocation data of the sealing chain and of the timestamp
 * authority's chain into `provider`, every certificate's at once, before the seal is signed (see the
 * module comment).
 * @throws AppError 503 `revocation-unavailable` naming the first certificate without it;
 *   `timestamp-authority-unavailable` when the timestamp authority must be asked for its chain and fails
 */
export async function prefetchValidationData(options: { sealingChain: Uint8Array[]; timestampAuthority: SealTimestampAuthority; provider: CheckedRevocationProvider }): Promise<void> {
  const { provider, timestampAuthority } = options;
  let timestampChain = timestampChains.get(timestampAuthority.url);
  if (timestampChain === undefined) {
    const probe = await timestampAuthority.timestamp(new Uint8Array(randomBytes(32)), 'SHA-256');
    timestampChain = certificatesOf(probe);
  }
  const chains = [options.sealingChain, timestampChain];
  for (const chain of chains) allowAnyPort(provider.policy, chain);
  // Every certificate's source at once: a responder that hangs costs its 10 s once, not once per
  // certificate. The checks below run in chain order, so the certificate named is the same as asking
  // one after another would name.
  await Promise.all(
    chains.flatMap((chain) =>
      withIssuers(chain).map(async ({ der, issuer }) => {
        try {
          if (issuer === undefined || (await provider.getOCSP(der, issuer)) === null) await provider.getCRL(der);
        } catch {
          // Recorded by the provider; assertCovered names it.
        }
      }),
    ),
  );
  for (const chain of chains) assertCovered(chain, provider);
}

/**
 * Lets the URLs `chain` names be fetched on any port: the sealing chain and the timestamp
 * authority's are the operator's (`SEAL_P12_BASE64`, `TSA_URL`); every other certificate's URLs
 * only on ports 80 and 443 (`revocation.ts`).
 */
function allowAnyPort(policy: FetchPolicy, chain: readonly Uint8Array[]): void {
  const urls = sourceUrlsOf(chain);
  if (urls.length > 0) policy.anyPortUrls = new Set([...(policy.anyPortUrls ?? []), ...urls]);
}

/** Remembers the certificates of the timestamp authority's newest token, for the next seal's prefetch. */
function rememberTimestampChain(timestampAuthority: SealTimestampAuthority): void {
  const token = timestampAuthority.tokens.at(-1);
  if (token !== undefined) timestampChains.set(timestampAuthority.url, certificatesOf(token));
}

/**
 * Installs the checked fetch (`revocation.ts`) as `globalThis.fetch` while `work` runs: @libpdf/core
 * fetches missing issuer certificates (AIA caIssuers) with it, and in the seal worker no URL from a
 * certificate is fetched unchecked.
 */
export async function withCheckedFetch<T>(policy: FetchPolicy, work: () => Promise<T>): Promise<T> {
  const previousFetch = globalThis.fetch;
  globalThis.fetch = checkedFetch(() => policy);
  try {
    return await work();
  } finally {
    globalThis.fetch = previousFetch;
  }
}

/**
 * Adds the DSS (and for B-LTA the document timestamp) to a sealed B-T document.
 * @param pdf the document instance to work with (reloaded from `sealed` first)
 * @returns the bytes with the DSS update and, for B-LTA, the document timestamp
 * @throws AppError 503 `revocation-unavailable` or `timestamp-authority-unavailable`
 */
export async function addLongTermValidation(pdf: PDF, sealed: Uint8Array, options: LongTermValidationOptions): Promise<Uint8Array> {
  const { provider, timestampAuthority } = options;
  rememberTimestampChain(timestampAuthority);
  allowAnyPort(provider.policy, options.sealingChain);
  for (const token of timestampAuthority.tokens) allowAnyPort(provider.policy, certificatesOf(token));
  await pdf.reload(sealed);
  let bytes = (await pdf.addValidationData({ revocationProvider: provider })).bytes;
  assertCovered(options.sealingChain, provider);
  for (const token of timestampAuthority.tokens) assertCovered(certificatesOf(token), provider);
  if (options.archival) {
    bytes = (await pdf.addTimestamp({ timestampAuthority, estimatedSize: DOCUMENT_TIMESTAMP_RESERVE, digestAlgorithm: 'SHA-256' })).bytes;
  }
  return bytes;
}
