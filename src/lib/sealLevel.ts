/**
 * The seal's PAdES baseline level (`SEAL_LEVEL`, ETSI EN 319 142-1 §6): what a sealed PDF carries
 * so that validators can check it, and for how long.
 *
 * - `B-B`: the signature, its certificate and the signing-certificate-v2 attribute. Valid while the
 *   sealing certificate is valid and unrevoked, as a validator sees it at validation time.
 * - `B-T`: plus an RFC 3161 signature timestamp: proof that the signature existed at that time.
 * - `B-LT`: plus a Document Security Store (DSS) with every certificate of the seal's and of the
 *   timestamp's chains and their revocation data (OCSP responses, else CRLs) as fetched at sealing:
 *   validators need no network to check the seal at the time of the timestamp.
 * - `B-LTA`: plus a document timestamp (`ETSI.RFC3161`) over everything, so the whole, DSS included,
 *   stays provable after the sealing and timestamp certificates expire (renewed by another one later).
 *
 * The default is `B-LTA` with a timestamp authority (`TSA_URL`), else `B-B`. `B-T` and above need
 * `TSA_URL`; `B-LT` and `B-LTA` need every certificate of the sealing chain except its trust anchor
 * to name a revocation source (an OCSP responder in its Authority Information Access, or a CRL
 * distribution point). A setting that cannot be met stops the service at start, naming it.
 */
import { createRequire } from 'node:module';
import type forgeModule from 'node-forge';
import { ConfigError } from './errors.js';

export const SEAL_LEVELS = ['B-B', 'B-T', 'B-LT', 'B-LTA'] as const;
export type SealLevel = (typeof SEAL_LEVELS)[number];

/** Levels whose seals carry a signature timestamp. */
export function needsTimestamp(level: SealLevel): boolean {
  return level !== 'B-B';
}

/** Levels whose seals carry a DSS with revocation data. */
export function needsValidationData(level: SealLevel): boolean {
  return level === 'B-LT' || level === 'B-LTA';
}

/**
 * The configured level, or the default.
 * @throws ConfigError `SEAL_LEVEL` when a level with a timestamp is asked for without `TSA_URL`
 */
export function sealLevelOf(setting: SealLevel | undefined, tsaUrl: string | undefined): SealLevel {
  const level = setting ?? (tsaUrl === undefined ? 'B-B' : 'B-LTA');
  if (needsTimestamp(level) && tsaUrl === undefined) {
    throw new ConfigError('SEAL_LEVEL', `${level} needs a timestamp authority: set TSA_URL, or SEAL_LEVEL=B-B`);
  }
  return level;
}

/** id-pkix-ocsp (RFC 6960 §4.2.1 / RFC 5280 §4.2.2.1 accessMethod). */
const OCSP_ACCESS_METHOD = '1.3.6.1.5.5.7.48.1';
/** GeneralName uniformResourceIdentifier [6] (RFC 5280 §4.2.1.6). */
const URI_TAG = 6;

type Forge = typeof forgeModule;
type Asn1 = forgeModule.asn1.Asn1;

function children(node: Asn1 | undefined): Asn1[] {
  return node !== undefined && Array.isArray(node.value) ? node.value : [];
}

/** Every URI GeneralName anywhere below `node`. */
function uris(forge: Forge, node: Asn1): string[] {
  if (node.tagClass === forge.asn1.Class.CONTEXT_SPECIFIC && node.type === URI_TAG && typeof node.value === 'string') return [node.value];
  return children(node).flatMap((child) => uris(forge, child));
}

/** The revocation sources a certificate names: OCSP responders (AIA) and CRL distribution points. */
function revocationSources(forge: Forge, certificate: forgeModule.pki.Certificate): { ocsp: string[]; crl: string[] } {
  const extensions = certificate.extensions as { id: string; value: string }[];
  const parse = (id: string): Asn1 | undefined => {
    const extension = extensions.find((candidate) => candidate.id === id);
    return extension === undefined ? undefined : forge.asn1.fromDer(extension.value);
  };
  const aia = parse('1.3.6.1.5.5.7.1.1');
  const ocsp = children(aia)
    .filter((description) => {
      const method = children(description)[0];
      return typeof method?.value === 'string' && forge.asn1.derToOid(method.value) === OCSP_ACCESS_METHOD;
    })
    .flatMap((description) => uris(forge, description));
  const crlDistributionPoints = parse('2.5.29.31');
  return { ocsp, crl: crlDistributionPoints === undefined ? [] : uris(forge, crlDistributionPoints) };
}

function isSelfIssued(certificate: forgeModule.pki.Certificate): boolean {
  return certificate.subject.hash === certificate.issuer.hash;
}

/** The certificate's subject as a validator names it (`CN=..., O=...`). */
function subjectOf(certificate: forgeModule.pki.Certificate): string {
  return certificate.subject.attributes.map((attribute) => `${attribute.shortName ?? attribute.name ?? attribute.type}=${String(attribute.value)}`).join(', ');
}

/**
 * For `B-LT` and `B-LTA`: checks that every certificate in the sealing PKCS#12 that is not its own
 * issuer (a trust anchor needs no revocation data) names a revocation source. Synchronous, so that
 * it runs where the settings are read; node-forge loads only for these levels.
 * @throws ConfigError `SEAL_P12_BASE64` naming the first certificate without one, or when the
 *   PKCS#12 file does not open with `SEAL_P12_PASSPHRASE`
 */
export function checkSealingCertificateForLevel(level: SealLevel, seal: { p12: Uint8Array; passphrase: string }): void {
  if (!needsValidationData(level)) return;
  const forge = createRequire(import.meta.url)('node-forge') as Forge;
  let certificates: forgeModule.pki.Certificate[];
  try {
    const asn1 = forge.asn1.fromDer(forge.util.createBuffer(Buffer.from(seal.p12).toString('latin1')));
    const p12 = forge.pkcs12.pkcs12FromAsn1(asn1, seal.passphrase);
    certificates = (p12.getBags({ bagType: forge.pki.oids.certBag! })[forge.pki.oids.certBag!] ?? [])
      .map((bag) => bag.cert)
      .filter((certificate): certificate is forgeModule.pki.Certificate => certificate !== undefined);
  } catch {
    throw new ConfigError('SEAL_P12_BASE64', 'does not open as a PKCS#12 file with SEAL_P12_PASSPHRASE');
  }
  if (certificates.length === 0) throw new ConfigError('SEAL_P12_BASE64', 'holds no certificate');
  for (const certificate of certificates) {
    if (isSelfIssued(certificate)) continue;
    const { ocsp, crl } = revocationSources(forge, certificate);
    if (ocsp.length === 0 && crl.length === 0) {
      throw new ConfigError(
        'SEAL_P12_BASE64',
        `the certificate "${subjectOf(certificate)}" names no revocation source (no OCSP responder, no CRL distribution point), so SEAL_LEVEL=${level} cannot be reached; use a certificate from a CA that publishes revocation data, or SEAL_LEVEL=B-T`,
      );
    }
  }
}
