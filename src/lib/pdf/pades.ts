/**
 * PAdES baseline signatures without the CMS signing-time attribute (docs/api.md#what-completion-does step 4; ETSI EN
 * 319 142-1 §5.4 PA-6.3 / Table 1: the claimed signing time is the signature dictionary's /M, and
 * the signing-time signed attribute shall not be present).
 *
 * @libpdf/core 0.4.2 always puts signing-time into the signed attributes of the CMS it builds for
 * `ETSI.CAdES.detached` (its `signingTime` option defaults to now and cannot be switched off; open
 * upstream as LibPDF-js/core#86), and offers no hook into the attribute list. What it does offer is
 * the {@link Signer} interface, which receives the DER of the signed attributes to sign. So:
 * 1. {@link PadesBaselineSigner} wraps the sealing signer and signs the signed attributes *without*
 *    signing-time. The library then builds the CMS around that signature value and, with a
 *    timestamp authority, timestamps that same value (PAdES B-T: the timestamp token is an unsigned
 *    attribute over the signature value, so it stays valid).
 * 2. {@link removeSigningTime} then deletes the signing-time attribute from the CMS in the signed
 *    PDF's /Contents, leaving the signed attributes exactly as they were signed. The /ByteRange,
 *    hence the document digest, does not change: only the reserved hex string is rewritten.
 * Content-type, message-digest, CMS algorithm protection and signing-certificate-v2 stay.
 * DER work is done with node-forge's ASN.1 codec, whose parse and re-encode is checked to be
 * byte-for-byte faithful before anything is changed.
 */
import forge from 'node-forge';
import type { DigestAlgorithm, KeyType, SignatureAlgorithm, Signer } from '@libpdf/core';

/** id-signingTime (RFC 5652 §11.3). */
export const SIGNING_TIME_OID = '1.2.840.113549.1.9.5';

type Asn1 = forge.asn1.Asn1;

/**
 * node-forge's DER parser with its options object (node-forge ≥ 1.0; @types/node-forge still
 * declares only the older `strict` boolean). `decodeBitStrings: false` keeps BIT STRINGs as bytes,
 * so that encoding again reproduces them exactly.
 */
const fromDer = forge.asn1.fromDer as unknown as (bytes: forge.util.ByteStringBuffer, options: { parseAllBytes: boolean; decodeBitStrings: boolean }) => Asn1;

function toBinary(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
}

function fromBinary(binary: string): Uint8Array {
  return new Uint8Array(Buffer.from(binary, 'latin1'));
}

/** Parses DER and checks that encoding it again gives the same bytes (so an edit changes only what it edits). */
function parseFaithfully(der: Uint8Array, what: string): Asn1 {
  const node = fromDer(forge.util.createBuffer(toBinary(der)), { parseAllBytes: true, decodeBitStrings: false });
  if (forge.asn1.toDer(node).getBytes() !== toBinary(der)) throw new Error(`The ${what} does not re-encode to the same DER.`);
  return node;
}

function children(node: Asn1 | undefined): Asn1[] {
  return node !== undefined && Array.isArray(node.value) ? node.value : [];
}

/** Whether an Attribute (SEQUENCE { attrType OID, attrValues SET }) is signing-time. */
function isSigningTime(attribute: Asn1): boolean {
  const type = children(attribute)[0];
  return type !== undefined && type.type === forge.asn1.Type.OID && typeof type.value === 'string' && forge.asn1.derToOid(type.value) === SIGNING_TIME_OID;
}

/**
 * The DER of a SET OF Attribute (the signed attributes as RFC 5652 §5.4 has them signed) without
 * the signing-time attribute; the other attributes keep their order and bytes.
 * @throws Error when the bytes are not a SET
 */
export function withoutSigningTime(signedAttributes: Uint8Array): Uint8Array {
  const set = parseFaithfully(signedAttributes, 'signed attribute set');
  if (set.tagClass !== forge.asn1.Class.UNIVERSAL || set.type !== forge.asn1.Type.SET) throw new Error('The signed attributes are not a DER SET.');
  set.value = children(set).filter((attribute) => !isSigningTime(attribute));
  return fromBinary(forge.asn1.toDer(set).getBytes());
}

/**
 * A {@link Signer} that signs the signed attributes it is given minus signing-time, and remembers
 * what it signed (for {@link removeSigningTime} to check against). One instance per signature.
 */
export class PadesBaselineSigner implements Signer {
  readonly certificate: Uint8Array;
  readonly certificateChain?: Uint8Array[];
  readonly keyType: KeyType;
  readonly signatureAlgorithm: SignatureAlgorithm;
  /** DER of the SET OF Attribute actually signed, once {@link sign} has run. */
  signedAttributes: Uint8Array | undefined;

  constructor(private readonly inner: Signer) {
    this.certificate = inner.certificate;
    if (inner.certificateChain !== undefined) this.certificateChain = inner.certificateChain;
    this.keyType = inner.keyType;
    this.signatureAlgorithm = inner.signatureAlgorithm;
  }

  async sign(data: Uint8Array, algorithm: DigestAlgorithm): Promise<Uint8Array> {
    if (this.signedAttributes !== undefined) throw new Error('A PadesBaselineSigner signs one signature only.');
    this.signedAttributes = withoutSigningTime(data);
    return await this.inner.sign(this.signedAttributes, algorithm);
  }
}

/** Where the last signature's /Contents hex string sits in a signed PDF (between its < and >). */
function contentsOfLastSignature(pdf: Uint8Array): { start: number; end: number } {
  const text = Buffer.from(pdf.buffer, pdf.byteOffset, pdf.byteLength).toString('latin1');
  const at = text.lastIndexOf('/ByteRange');
  const match = /^\/ByteRange\s*\[\s*(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s*\]/.exec(text.slice(at));
  if (at < 0 || match === null) throw new Error('The signed PDF has no /ByteRange.');
  const [offset1, length1, offset2] = [Number(match[1]), Number(match[2]), Number(match[3])];
  // ISO 32000-1 §12.8.1: the excluded gap is exactly the /Contents hex string, delimiters included.
  if (offset1 !== 0 || text[length1] !== '<' || text[offset2 - 1] !== '>') throw new Error('The /ByteRange does not frame the /Contents string.');
  return { start: length1 + 1, end: offset2 - 1 };
}

/**
 * Removes the signing-time attribute from the CMS of the last signature of `pdf`, in place, after a
 * signature made with `signer` (see the module comment). The hex string keeps its length (zero
 * padding), so the /ByteRange and every signed byte stay as they are.
 * @throws Error when the CMS is not the one `signer` signed (its signed attributes, without
 *   signing-time, differ from what was signed): a fault of the service, never of the document
 */
export function removeSigningTime(pdf: Uint8Array, signer: PadesBaselineSigner): void {
  if (signer.signedAttributes === undefined) throw new Error('The signer has not signed anything.');
  const { start, end } = contentsOfLastSignature(pdf);
  const hex = Buffer.from(pdf.buffer, pdf.byteOffset + start, end - start).toString('latin1');
  const padded = Buffer.from(hex, 'hex');
  // The DER value's own length tells where the zero padding starts.
  const cms = fromDer(forge.util.createBuffer(padded.toString('latin1')), { parseAllBytes: false, decodeBitStrings: false });
  const der = fromBinary(forge.asn1.toDer(cms).getBytes());
  const contentInfo = parseFaithfully(der, 'CMS of the seal');

  // ContentInfo { contentType, [0] EXPLICIT SignedData { ..., signerInfos SET } } (RFC 5652 §3, §5.1).
  const signedData = children(children(contentInfo)[1])[0];
  const signerInfo = children(children(signedData).at(-1))[0];
  const signedAttrs = children(signerInfo).find((node) => node.tagClass === forge.asn1.Class.CONTEXT_SPECIFIC && node.type === 0);
  if (signedAttrs === undefined) throw new Error('The CMS of the seal has no signed attributes.');
  signedAttrs.value = children(signedAttrs).filter((attribute) => !isSigningTime(attribute));

  const asSigned = forge.asn1.create(forge.asn1.Class.UNIVERSAL, forge.asn1.Type.SET, true, children(signedAttrs));
  if (forge.asn1.toDer(asSigned).getBytes() !== toBinary(signer.signedAttributes)) {
    throw new Error('The signed attributes of the seal differ from the ones that were signed.');
  }
  const edited = Buffer.from(forge.asn1.toDer(contentInfo).getBytes(), 'latin1').toString('hex');
  if (edited.length > hex.length) throw new Error('The edited CMS does not fit its reserved space.');
  pdf.set(Buffer.from(edited.padEnd(hex.length, '0'), 'latin1'), start);
}
