/**
 * The CMS of a seal and of document timestamps, read and checked with pkijs and asn1js (RFC 5652
 * SignedData; RFC 3161 time-stamp tokens), never with hand-written DER (docs/evidence.md). Runs in
 * Node.js and in a browser: pkijs finds Web Crypto on `globalThis.crypto`.
 */
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs/build/index.es.js';
import { digest, digestName, sameBytes, toHex } from './bytes.js';

/** id-signedData (RFC 5652 §5.1). */
const SIGNED_DATA = '1.2.840.113549.1.7.2';
/** id-ct-TSTInfo (RFC 3161 §2.4.2): the content of a time-stamp token. */
export const TST_INFO = '1.2.840.113549.1.9.16.1.4';
/** id-messageDigest (RFC 5652 §11.2). */
const MESSAGE_DIGEST = '1.2.840.113549.1.9.4';
/** id-aa-signatureTimeStampToken (RFC 3161 Appendix A): a timestamp over the signature value (PAdES B-T). */
const SIGNATURE_TIMESTAMP = '1.2.840.113549.1.9.16.2.14';

/** Short names of the attribute types a distinguished name usually holds (RFC 4519, X.520). */
const NAME_TYPES: Record<string, string> = {
  '2.5.4.3': 'CN',
  '2.5.4.5': 'serialNumber',
  '2.5.4.6': 'C',
  '2.5.4.7': 'L',
  '2.5.4.8': 'ST',
  '2.5.4.10': 'O',
  '2.5.4.11': 'OU',
  '2.5.4.97': 'organizationIdentifier',
  '1.2.840.113549.1.9.1': 'emailAddress',
};

/** A distinguished name as one line, `CN=..., O=...` in its own order. */
export function nameText(name: pkijs.RelativeDistinguishedNames): string {
  return name.typesAndValues.map((entry) => `${NAME_TYPES[entry.type] ?? entry.type}=${String((entry.value as unknown as { valueBlock: { value: unknown } }).valueBlock.value)}`).join(', ');
}

/** A parsed SignedData, with the bytes of its DER as found (zero padding after it dropped). */
export interface ParsedCms {
  signedData: pkijs.SignedData;
  /** The DER of the ContentInfo, exactly as stored. */
  der: Uint8Array;
  /** `encapContentInfo.eContentType`: id-data for a seal, {@link TST_INFO} for a document timestamp. */
  contentType: string;
}

/**
 * Parses a ContentInfo holding SignedData from the start of `contents` (a signature's `/Contents`,
 * zero-padded after the DER).
 * @throws Error when it is not DER of a SignedData ContentInfo
 */
export function parseCms(contents: Uint8Array): ParsedCms {
  const parsed = asn1js.fromBER(contents as Uint8Array<ArrayBuffer>);
  if (parsed.offset === -1) throw new Error(`its value is not DER (${parsed.result.error})`);
  const info = new pkijs.ContentInfo({ schema: parsed.result });
  if (info.contentType !== SIGNED_DATA) throw new Error(`its value is a ${info.contentType} ContentInfo, not SignedData`);
  const signedData = new pkijs.SignedData({ schema: info.content });
  return { signedData, der: contents.slice(0, parsed.offset), contentType: signedData.encapContentInfo.eContentType };
}

/** What checking a CMS signature over detached data found. */
export interface CmsCheck {
  /** The digest algorithm's name, e.g. `SHA-256`. */
  digestAlgorithm: string;
  /** Whether the messageDigest attribute equals the digest of the data. */
  digestMatches: boolean;
  /** Whether the signature over the signed attributes verifies with the signer certificate's key. */
  signatureVerified: boolean;
  /** The signer's certificate as the CMS carries it, or `null` when none matches its signer info. */
  signer: pkijs.Certificate | null;
  /** Why it failed, when it did. */
  failure: string | null;
}

/** The messageDigest signed attribute's value, or `null`. */
function messageDigest(signerInfo: pkijs.SignerInfo): Uint8Array | null {
  const attribute = signerInfo.signedAttrs?.attributes.find((candidate) => candidate.type === MESSAGE_DIGEST);
  const value = attribute?.values[0];
  return value instanceof asn1js.OctetString ? new Uint8Array(value.valueBlock.valueHexView) : null;
}

/**
 * Checks the first signer of `cms` over `data` (the bytes its byte range covers; for a time-stamp
 * token, its own TSTInfo when `data` is omitted): the messageDigest attribute against the digest of the
 * data, then the signature with pkijs (RFC 5652 §5.6), without judging the certificate (see
 * {@link certificateChain}). For a time-stamp token pkijs also checks its imprint against `stamped`,
 * the bytes it stamps (RFC 3161 §2.4.2).
 */
export async function checkCms(cms: ParsedCms, data?: Uint8Array, stamped?: Uint8Array): Promise<CmsCheck> {
  const signerInfo = cms.signedData.signerInfos[0];
  if (signerInfo === undefined) return { digestAlgorithm: '?', digestMatches: false, signatureVerified: false, signer: null, failure: 'the CMS has no signer' };
  const algorithm = digestName(signerInfo.digestAlgorithm.algorithmId);
  if (algorithm === null) return { digestAlgorithm: signerInfo.digestAlgorithm.algorithmId, digestMatches: false, signatureVerified: false, signer: null, failure: `unknown digest algorithm ${signerInfo.digestAlgorithm.algorithmId}` };
  const content = data ?? new Uint8Array(cms.signedData.encapContentInfo.eContent?.getValue() ?? new ArrayBuffer(0));
  const recorded = messageDigest(signerInfo);
  const digestMatches = recorded !== null && sameBytes(recorded, await digest(algorithm, content));
  try {
    // pkijs checks a time-stamp token's imprint against `data` (what it stamps); for any other CMS,
    // `data` is the signed content, given even when encapsulated (pkijs reads only primitive DER there).
    const given = cms.contentType === TST_INFO ? (stamped ?? new Uint8Array(0)) : content;
    const result = await cms.signedData.verify({ signer: 0, data: given.slice().buffer as ArrayBuffer, checkChain: false, extendedMode: true });
    return {
      digestAlgorithm: algorithm,
      digestMatches,
      signatureVerified: result.signatureVerified === true,
      signer: result.signerCertificate ?? null,
      failure: result.signatureVerified === true ? null : result.message,
    };
  } catch (error) {
    const failed = error as { message?: string; signerCertificate?: pkijs.Certificate | null };
    return { digestAlgorithm: algorithm, digestMatches, signatureVerified: false, signer: failed.signerCertificate ?? null, failure: failed.message ?? String(error) };
  }
}

/** The DER of a certificate. */
export function certificateDer(certificate: pkijs.Certificate): Uint8Array {
  return new Uint8Array(certificate.toSchema().toBER());
}

/** Lower-case hex SHA-256 of a certificate's DER: its fingerprint. */
export async function fingerprint(certificate: pkijs.Certificate): Promise<string> {
  return toHex(await digest('SHA-256', certificateDer(certificate)));
}

/** Whether two names are the same (their DER equal). */
function sameName(a: pkijs.RelativeDistinguishedNames, b: pkijs.RelativeDistinguishedNames): boolean {
  return sameBytes(new Uint8Array(a.toSchema().toBER()), new Uint8Array(b.toSchema().toBER()));
}

/** One link of a certificate chain as far as the CMS's certificates reach. */
export interface ChainLink {
  subject: string;
  issuer: string;
  notBefore: Date;
  notAfter: Date;
  /** Whether its issuer's key (its own, for a self-issued one) verifies its signature; `null` when its issuer is not in the CMS. */
  signatureVerified: boolean | null;
  selfIssued: boolean;
}

/**
 * The chain from `signer` up through the certificates the CMS carries (RFC 5280 §6 as far as it can
 * be walked offline: names, signatures, validity), at most 10 links.
 */
export async function certificateChain(signer: pkijs.Certificate, cms: ParsedCms): Promise<ChainLink[]> {
  const pool = (cms.signedData.certificates ?? []).filter((candidate): candidate is pkijs.Certificate => candidate instanceof pkijs.Certificate);
  const chain: ChainLink[] = [];
  let current: pkijs.Certificate | undefined = signer;
  while (current !== undefined && chain.length < 10) {
    const selfIssued = sameName(current.subject, current.issuer);
    const issuer: pkijs.Certificate | undefined = selfIssued ? current : pool.find((candidate) => candidate !== current && sameName(candidate.subject, current!.issuer));
    let signatureVerified: boolean | null = null;
    if (issuer !== undefined) {
      try {
        signatureVerified = await current.verify(issuer);
      } catch {
        signatureVerified = false;
      }
    }
    chain.push({ subject: nameText(current.subject), issuer: nameText(current.issuer), notBefore: current.notBefore.value, notAfter: current.notAfter.value, signatureVerified, selfIssued });
    current = selfIssued ? undefined : issuer;
  }
  return chain;
}

/** A time-stamp token's time and imprint (RFC 3161 §2.4.2). */
export interface TimestampInfo {
  genTime: Date;
  hashAlgorithm: string | null;
  hashedMessage: Uint8Array;
}

/**
 * The TSTInfo of a time-stamp token.
 * @throws Error when its content is not a TSTInfo
 */
export function timestampInfo(cms: ParsedCms): TimestampInfo {
  if (cms.contentType !== TST_INFO) throw new Error(`its content is ${cms.contentType}, not a TSTInfo`);
  const content = cms.signedData.encapContentInfo.eContent;
  if (content === undefined) throw new Error('it has no TSTInfo');
  const info = new pkijs.TSTInfo({ schema: asn1js.fromBER(content.getValue()).result });
  return {
    genTime: info.genTime,
    hashAlgorithm: digestName(info.messageImprint.hashAlgorithm.algorithmId),
    hashedMessage: new Uint8Array(info.messageImprint.hashedMessage.valueBlock.valueHexView),
  };
}

/** The time-stamp token over the seal's signature value (PAdES B-T), when the signer info carries one. */
export function signatureTimestamp(cms: ParsedCms): ParsedCms | null {
  const attribute = cms.signedData.signerInfos[0]?.unsignedAttrs?.attributes.find((candidate) => candidate.type === SIGNATURE_TIMESTAMP);
  const value = attribute?.values[0];
  if (value === undefined) return null;
  return parseCms(new Uint8Array(value.toBER()));
}

/** The signature value of the first signer (what a B-T timestamp's imprint covers). */
export function signatureValue(cms: ParsedCms): Uint8Array {
  return new Uint8Array(cms.signedData.signerInfos[0]?.signature.valueBlock.valueHexView ?? new Uint8Array(0));
}
