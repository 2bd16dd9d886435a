/**
 * A self-signed sealing certificate for local development (docs/api.md#what-completion-does step 3, §8: "Local
 * development generates a self-signed one on first start"). Never for production: nothing trusts it.
 */
import { generateKeyPair, randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import forge from 'node-forge';

const generateRsaKeyPair = promisify(generateKeyPair);

/** Validity of the development certificate, years. */
const VALIDITY_YEARS = 5;

/**
 * Creates an RSA 2048 key and a self-signed X.509 certificate for it (SHA-256, valid five years
 * from one minute ago, keyUsage digitalSignature + nonRepudiation, critical; not a CA), packed as a
 * PKCS#12 file (AES-256-CBC key encryption) under a fresh random passphrase.
 * @param options.commonName the certificate's subject CN, e.g. "Envelope signing service (development)"
 * @returns the PKCS#12 bytes in base64 and its passphrase, as `SEAL_P12_BASE64` and `SEAL_P12_PASSPHRASE` take them (docs/api.md#configuration)
 */
export async function createDevelopmentSealingCertificate(options: { commonName: string }): Promise<{ p12Base64: string; passphrase: string }> {
  // Node generates the key natively; node-forge (no native RSA key generation) builds the certificate and the PKCS#12.
  const { privateKey: privatePem, publicKey: publicPem } = await generateRsaKeyPair('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  const privateKey = forge.pki.privateKeyFromPem(privatePem);
  const certificate = forge.pki.createCertificate();
  certificate.publicKey = forge.pki.publicKeyFromPem(publicPem);
  // A random 128-bit serial (RFC 5280 §4.1.2.2), first byte 0x40-0x7f so the DER INTEGER is positive and 16 bytes long.
  const serial = randomBytes(16);
  serial[0] = ((serial[0] ?? 0) & 0x3f) | 0x40;
  certificate.serialNumber = serial.toString('hex');
  const notBefore = new Date(Date.now() - 60_000);
  const notAfter = new Date(notBefore);
  notAfter.setUTCFullYear(notAfter.getUTCFullYear() + VALIDITY_YEARS);
  certificate.validity.notBefore = notBefore;
  certificate.validity.notAfter = notAfter;
  // UTF8String, so any common name survives (forge encodes the value itself). forge compares
  // valueTagClass with asn1.Type values although @types/node-forge declares it an asn1.Class.
  const utf8 = forge.asn1.Type.UTF8 as number as forge.asn1.Class;
  const subject = [
    { name: 'commonName', value: options.commonName, valueTagClass: utf8 },
    { name: 'organizationName', value: 'Envelope signing service (local development)', valueTagClass: utf8 },
  ];
  certificate.setSubject(subject);
  certificate.setIssuer(subject);
  certificate.setExtensions([
    { name: 'basicConstraints', cA: false, critical: true },
    { name: 'keyUsage', digitalSignature: true, nonRepudiation: true, critical: true },
    { name: 'subjectKeyIdentifier' },
  ]);
  certificate.sign(privateKey, forge.md.sha256.create());

  const passphrase = randomBytes(24).toString('base64url');
  const p12 = forge.pkcs12.toPkcs12Asn1(privateKey, [certificate], passphrase, {
    algorithm: 'aes256',
    generateLocalKeyId: true,
    // forge encodes the BMPString of a friendly name wrongly beyond Latin-1 (the MAC then fails): keep it ASCII.
    friendlyName: 'envelope-seal',
  });
  const p12Base64 = Buffer.from(forge.asn1.toDer(p12).getBytes(), 'binary').toString('base64');
  return { p12Base64, passphrase };
}
