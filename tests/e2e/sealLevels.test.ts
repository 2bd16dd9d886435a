/**
 * Seal levels (PAdES B-B, B-T, B-LT, B-LTA) against a real PKI on loopback (`tests/support/pki.ts`:
 * root and issuing CA, OCSP responder, CRL server and timestamp authority, all openssl), checked
 * with tools nobody here wrote: `pdfsig` for the signatures (and `-dump` for their CMS), `qpdf
 * --json` to read the DSS back, `openssl ocsp -respin` for each OCSP response, `openssl crl` for each
 * CRL, `openssl ts -verify` for the signature and document timestamps against the PKI's root.
 *
 * pyHanko (not packaged for Debian) validates B-LTA as its `pades-lta` profile says
 * (pyhanko/sign/validation/ltv.py, pyhanko_certvalidator/revinfo/archival.py): the last document
 * timestamp must be valid and cover the DSS it relies on; the signature timestamp is then checked,
 * with only the DSS covered by that document timestamp and no fetching, at the document
 * timestamp's time; the sealing chain is checked at the signature timestamp's time. Every
 * certificate of these chains that declares an OCSP responder or a CRL distribution point needs
 * revocation data in the DSS, usable at that time: its thisUpdate no later than the time (else it
 * is "too new"; 1 s of tolerance) and its nextUpdate not before it. The B-LTA test checks each.
 *
 * An OCSP responder that fails is `sealLevelOcspOutages.test.ts` (a file of its own, so that the two
 * halves run side by side); the set-up and the checks both use are `tests/support/sealLevels.ts`.
 */
import { describe, expect, test } from '@jest/globals';
import { loadConfig } from '../../src/lib/config.js';
import { stopSealWorker } from '../../src/lib/pdf/index.js';
import { getServices } from '../../src/lib/services.js';
import { withSettings } from '../support/contract.js';
import { startTestPki, type ServerMode } from '../support/pki.js';
import { expectProblem } from '../support/service.js';
import {
  ada,
  dss,
  expectCompletionRetriedOnceBack,
  expectLongTermValidationData,
  expectQpdfCheckAsOriginal,
  pkiSettings,
  sealedEnvelope,
  sealLevelsForFile,
  sign,
  signatures,
  signatureTimestamp,
  timestampTime,
  verifyTimestamp,
} from '../support/sealLevels.js';
import { sentEnvelope } from '../support/signing.js';
import { tempFile } from '../support/tools.js';

const bench = sealLevelsForFile();

describe('every level validates with independent tools (docs/seal-levels.md)', () => {
  test('B-B: the seal is valid and covers the whole document; no timestamp, no DSS', async () => {
    await withSettings(pkiSettings(bench.pki, 'B-B'), async () => {
      const { file } = await sealedEnvelope(bench);
      const [seal, ...rest] = await signatures(file);
      expect(rest).toEqual([]);
      expect(seal!.report).toContain('Signature is Valid.');
      expect(seal!.report).toContain('Total document signed');
      expect(await signatureTimestamp(seal!.file)).toBeNull();
      expect(await dss(file)).toBeNull();
    });
  });

  test('B-T: the seal carries a signature timestamp over its signature value that openssl verifies against the root', async () => {
    await withSettings(pkiSettings(bench.pki, 'B-T'), async () => {
      const { file } = await sealedEnvelope(bench);
      const [seal, ...rest] = await signatures(file);
      expect(rest).toEqual([]);
      expect(seal!.report).toContain('Signature is Valid.');
      expect(seal!.report).toContain('Total document signed');
      const timestamp = await signatureTimestamp(seal!.file);
      await verifyTimestamp(bench.pki, timestamp!.token, timestamp!.signatureValue);
      expect(await dss(file)).toBeNull();
    });
  });

  test('B-LT: after the timestamped seal, a DSS with the chains and their checked OCSP responses and CRL', async () => {
    await withSettings(pkiSettings(bench.pki, 'B-LT'), async () => {
      const { file } = await sealedEnvelope(bench);
      const [seal, ...rest] = await signatures(file);
      expect(rest).toEqual([]);
      expect(seal!.report).toContain('Signature is Valid.');
      const timestamp = await signatureTimestamp(seal!.file);
      await verifyTimestamp(bench.pki, timestamp!.token, timestamp!.signatureValue);
      await expectLongTermValidationData(bench.pki, file);
      await expectQpdfCheckAsOriginal(file);
    });
  });

  test('B-LTA: a document timestamp last, over everything, DSS included; what pyHanko checks for pades-lta holds', async () => {
    await withSettings(pkiSettings(bench.pki, undefined), async () => {
      // With TSA_URL and no SEAL_LEVEL, the level is B-LTA.
      expect(getServices().config.sealLevel).toBe('B-LTA');
      const { file, bytes } = await sealedEnvelope(bench);
      const [seal, documentTimestamp, ...rest] = await signatures(file);
      expect(rest).toEqual([]);
      expect(seal!.report).toContain('Signature is Valid.');
      expect(seal!.report).toContain('ETSI.CAdES.detached');
      // The document timestamp is the last signature and covers the whole file (its gap is its own /Contents).
      expect(documentTimestamp!.report).toContain('Total document signed');
      const [first, second] = documentTimestamp!.ranges as [[number, number], [number, number]];
      expect(first[0]).toBe(0);
      expect(second[1]).toBe(bytes.length);
      expect(bytes.subarray(0, first[1]).toString('latin1')).toContain('/ETSI.RFC3161');
      // The DSS is written before the document timestamp, so the timestamp covers it (pyHanko reads the DSS of the revision the timestamp signed).
      const dssAt = bytes.toString('latin1').lastIndexOf('/Type /DSS');
      expect(dssAt).toBeGreaterThan(0);
      expect(dssAt).toBeLessThan(first[1]);

      const signed = await tempFile(Buffer.concat([bytes.subarray(first[0], first[1]), bytes.subarray(second[0], second[1])]), 'signed-ranges.bin');
      await verifyTimestamp(bench.pki, documentTimestamp!.file, signed);
      const signatureTs = await signatureTimestamp(seal!.file);
      await verifyTimestamp(bench.pki, signatureTs!.token, signatureTs!.signatureValue);

      // Revocation data usable where pyHanko uses it: the sealing chain at the signature timestamp's
      // time, the TSA's chain at the document timestamp's (1 s of tolerance): issued no later, valid until then.
      const { thisUpdates, nextUpdates } = await expectLongTermValidationData(bench.pki, file);
      const signatureTime = await timestampTime(signatureTs!.token);
      const documentTime = await timestampTime(documentTimestamp!.file);
      expect(documentTime).toBeGreaterThanOrEqual(signatureTime);
      for (const issued of thisUpdates) expect(issued).toBeLessThanOrEqual(signatureTime + 1000);
      for (const expires of nextUpdates) expect(expires).toBeGreaterThan(documentTime);
      await expectQpdfCheckAsOriginal(file);
    });
  });
});

describe('revocation data is cached until its nextUpdate', () => {
  test('a second B-LTA seal asks the OCSP responder and the CRL server nothing, and the TSA twice (signature and document timestamps)', async () => {
    await withSettings(pkiSettings(bench.pki, 'B-LTA'), async () => {
      await sealedEnvelope(bench);
      const before = { ocsp: bench.pki.ocsp.requests, crl: bench.pki.crl.requests, tsa: bench.pki.tsa.requests };
      const { file } = await sealedEnvelope(bench);
      expect({ ocsp: bench.pki.ocsp.requests, crl: bench.pki.crl.requests, tsa: bench.pki.tsa.requests }).toEqual({ ...before, tsa: before.tsa + 2 });
      await expectLongTermValidationData(bench.pki, file);
    });
  });
});

describe('signatures already in the upload (docs/seal-levels.md#how-the-service-gathers-the-data)', () => {
  test('their revocation sources and issuer URLs on ports other than 80 and 443 are not fetched; the seal still reaches B-LT and keeps their signature', async () => {
    // Someone else's signature: a PDF sealed at B-B with another PKI, whose certificates name an
    // OCSP responder, CRLs and an issuer certificate on loopback ports other than 80 and 443.
    const other = await startTestPki();
    try {
      const signedElsewhere = await withSettings({ ...pkiSettings(bench.pki, 'B-B'), SEAL_P12_BASE64: other.sealP12Base64, SEAL_P12_PASSPHRASE: other.sealPassphrase }, async () => (await sealedEnvelope(bench)).bytes);
      const before = { ocsp: other.ocsp.requests, crl: other.crl.requests, tsa: other.tsa.requests };
      await withSettings(pkiSettings(bench.pki, 'B-LT'), async () => {
        const { id } = await sentEnvelope(bench.env.api, bench.owner, { signers: [ada], pdf: signedElsewhere });
        const answer = await sign(bench, id);
        expect(answer.status).toBe(200);
        expect(answer.body.envelope.status).toBe('completed');
        const file = await tempFile(Buffer.from(await (await fetch(answer.body.signedUrl)).arrayBuffer()), 'sealed.pdf');
        const found = await signatures(file);
        expect(found).toHaveLength(2);
        for (const signature of found) expect(signature.report).toContain('Signature is Valid.');
      });
      expect({ ocsp: other.ocsp.requests, crl: other.crl.requests, tsa: other.tsa.requests }).toEqual(before);
    } finally {
      await other.close();
    }
  });
});

describe('a completion that cannot reach its level fails cleanly and is retried (docs/api.md#the-recipients-api, docs/seal-levels.md)', () => {
  // An OCSP responder that is down, answers garbage or takes over 10 s: sealLevelOcspOutages.test.ts.
  const cases: [string, ServerMode, string][] = [
    ['the timestamp authority is down', 'down', 'urn:problem:timestamp-authority-unavailable'],
    ['the timestamp authority answers garbage', 'garbage', 'urn:problem:timestamp-authority-unavailable'],
  ];
  test.each(cases)('%s: the action is kept, the envelope stays sent, health is degraded; once it is back, the sweeper completes it at B-LTA', async (_name, mode, type) => {
    await expectCompletionRetriedOnceBack(bench, 'tsa', mode, type);
  });

  test('revocation sources on loopback are refused without OUTBOUND_ALLOW_PRIVATE_NETWORKS: the seal fails rather than reach a lower level', async () => {
    await withSettings({ ...pkiSettings(bench.pki, 'B-LT'), OUTBOUND_ALLOW_PRIVATE_NETWORKS: undefined }, async () => {
      await stopSealWorker();
      const before = bench.pki.ocsp.requests;
      const { id } = await sentEnvelope(bench.env.api, bench.owner, { signers: [ada] });
      expect((await sign(bench, id)).body.envelope.status).toBe('sent');
      const retry = await bench.env.api.request('POST', `/envelopes/${id}/complete`, { token: bench.owner.token });
      expectProblem(retry, 503);
      expect(retry.body.type).toBe('urn:problem:revocation-unavailable');
      expect(bench.pki.ocsp.requests).toBe(before);
    });
    await stopSealWorker();
  });
});

describe('settings (docs/api.md#configuration, docs/seal-levels.md)', () => {
  const base = { ...process.env };
  test('the default level is B-B without TSA_URL (npm start) and B-LTA with it', () => {
    expect(loadConfig({ ...base, TSA_URL: undefined, SEAL_LEVEL: undefined }).sealLevel).toBe('B-B');
    expect(loadConfig({ ...base, TSA_URL: 'http://127.0.0.1:9/tsr', SEAL_LEVEL: undefined }).sealLevel).toBe('B-LTA');
  });

  test('B-T, B-LT and B-LTA without TSA_URL stop the service naming SEAL_LEVEL; an unknown level too', () => {
    for (const level of ['B-T', 'B-LT', 'B-LTA']) {
      expect(() => loadConfig({ ...base, TSA_URL: undefined, SEAL_LEVEL: level })).toThrow(/^Invalid setting SEAL_LEVEL: .*TSA_URL/);
    }
    expect(() => loadConfig({ ...base, SEAL_LEVEL: 'B-X' })).toThrow(/^Invalid setting SEAL_LEVEL: must be one of B-B, B-T, B-LT, B-LTA/);
  });

  test('B-LT and B-LTA with a sealing certificate that names no revocation source stop the service naming the certificate; B-T accepts it', () => {
    const bare = { ...base, SEAL_P12_BASE64: bench.pki.bareP12Base64, SEAL_P12_PASSPHRASE: bench.pki.sealPassphrase, TSA_URL: bench.pki.tsaUrl };
    for (const level of ['B-LT', 'B-LTA']) {
      expect(() => loadConfig({ ...bare, SEAL_LEVEL: level })).toThrow(/^Invalid setting SEAL_P12_BASE64: the certificate "CN=Seal Without Revocation \(test\), O=Envelope tests" names no revocation source/);
    }
    expect(loadConfig({ ...bare, SEAL_LEVEL: 'B-T' }).sealLevel).toBe('B-T');
    // The PKI's own sealing certificate names both; the local self-signed one is its own trust anchor.
    expect(loadConfig({ ...base, SEAL_P12_BASE64: bench.pki.sealP12Base64, SEAL_P12_PASSPHRASE: bench.pki.sealPassphrase, TSA_URL: bench.pki.tsaUrl }).sealLevel).toBe('B-LTA');
    expect(loadConfig({ ...base, TSA_URL: bench.pki.tsaUrl, SEAL_LEVEL: 'B-LTA' }).sealLevel).toBe('B-LTA');
  });
});
