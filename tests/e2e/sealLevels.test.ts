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
 */
import { readFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { loadConfig } from '../../src/lib/config.js';
import { retryCompletion } from '../../src/lib/envelopes/complete.js';
import { stopSealWorker } from '../../src/lib/pdf/index.js';
import { getServices } from '../../src/lib/services.js';
import { withSettings } from '../support/contract.js';
import { startTestPki, type ServerMode, type TestPki } from '../support/pki.js';
import { corpusPdf, expectProblem, ownAzuriteForFile, startTestService, type ApiResponse, type TestService, type TestUser } from '../support/service.js';
import { sentEnvelope, signingTokenFor } from '../support/signing.js';
import { tempFile, tool } from '../support/tools.js';

let env: TestService;
let owner: TestUser;
let pki: TestPki;

// An Azurite of its own: the completions this file leaves failing (its settings, its PKI) are retried
// here, never by another test process's sweeper with the suite's settings (a seal below its level).
const azurite = ownAzuriteForFile();
beforeAll(async () => {
  pki = await startTestPki();
  env = await startTestService();
  owner = await env.newUser();
});
afterAll(async () => {
  await env.close();
  await pki.close();
  await azurite.stop();
});

const ada = { email: 'ada@example.com', name: 'Ada Lovelace', role: 'signer' };

/** The settings of a service sealing with the test PKI (its servers are on loopback). */
function pkiSettings(level: string | undefined): Record<string, string | undefined> {
  return {
    SEAL_P12_BASE64: pki.sealP12Base64,
    SEAL_P12_PASSPHRASE: pki.sealPassphrase,
    TSA_URL: level === 'B-B' ? undefined : pki.tsaUrl,
    SEAL_LEVEL: level,
    OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true',
  };
}

async function sign(id: string): Promise<ApiResponse<any>> {
  return await env.api.request('POST', '/signing/complete', { token: await signingTokenFor(owner.userId, id, ada.email), json: { consent: true } });
}

async function health(): Promise<ApiResponse<any>> {
  return await env.api.request('GET', '/health');
}

/** Sends an envelope, has its signer act (which completes and seals it), and returns the sealed PDF. */
async function sealedEnvelope(): Promise<{ id: string; file: string; bytes: Buffer }> {
  const { id } = await sentEnvelope(env.api, owner, { signers: [ada] });
  const answer = await sign(id);
  expect(answer.status).toBe(200);
  expect(answer.body.envelope.status).toBe('completed');
  const bytes = Buffer.from(await (await fetch(answer.body.signedUrl)).arrayBuffer());
  return { id, bytes, file: await tempFile(bytes, 'sealed.pdf') };
}

interface DumpedSignature {
  /** The signature's /Contents (CMS, or the timestamp token of a document timestamp). */
  file: string;
  /** pdfsig's report of it. */
  report: string;
  /** Signed byte ranges, [start, end). */
  ranges: [number, number][];
}

/** Every signature of the PDF as pdfsig reports and dumps it. */
async function signatures(file: string): Promise<DumpedSignature[]> {
  const dir = path.dirname(file);
  const result = await tool('pdfsig', ['-nocert', path.basename(file)], dir);
  await tool('pdfsig', ['-nocert', '-dump', path.basename(file)], dir);
  const reports = result.stdout.split(/^Signature #\d+:$/m).slice(1);
  const dumps = (await readdir(dir)).filter((name) => /\.sig\d+$/.test(name)).sort((a, b) => Number(/\d+$/.exec(a)![0]) - Number(/\d+$/.exec(b)![0]));
  expect(dumps).toHaveLength(reports.length);
  return reports.map((report, index) => ({
    report,
    file: path.join(dir, dumps[index]!),
    ranges: [...report.matchAll(/\[(\d+) - (\d+)\]/g)].map((match) => [Number(match[1]), Number(match[2])] as [number, number]),
  }));
}

/** The DSS of the PDF as qpdf reads it: its certificates, OCSP responses and CRLs as DER files. */
async function dss(file: string): Promise<{ certs: string[]; ocsps: string[]; crls: string[]; vriKeys: string[] } | null> {
  // qpdf's JSON (version 2) is read as it comes: objects keyed "obj:N G R", each {value} or {stream: {dict, data}}.
  const json = JSON.parse((await tool('qpdf', ['--json=2', '--json-stream-data=inline', file])).stdout) as { qpdf: [unknown, Record<string, any>] };
  const objects = json.qpdf[1];
  const resolve = (value: any): any => (typeof value === 'string' && / R$/.test(value) ? objects[`obj:${value}`] : { value });
  const catalog = resolve(objects.trailer.value['/Root']).value;
  if (catalog['/DSS'] === undefined) return null;
  const store = resolve(catalog['/DSS']).value;
  const streams = async (key: string) =>
    await Promise.all(((store[key] ?? []) as string[]).map(async (ref, index) => await tempFile(Buffer.from(resolve(ref).stream.data, 'base64'), `${key.slice(1)}-${index}.der`)));
  return { certs: await streams('/Certs'), ocsps: await streams('/OCSPs'), crls: await streams('/CRLs'), vriKeys: Object.keys(resolve(store['/VRI'] ?? {}).value ?? {}) };
}

/** openssl asn1parse lines: offset, header length, length, depth and the rest. */
async function asn1(file: string): Promise<{ offset: number; header: number; length: number; depth: number; text: string }[]> {
  const { stdout } = await tool('openssl', ['asn1parse', '-inform', 'DER', '-in', file]);
  return stdout.split('\n').flatMap((line) => {
    const match = /^\s*(\d+):d=(\d+)\s+hl=(\d+)\s+l=\s*(\d+)\s+(.*)$/.exec(line);
    return match === null ? [] : [{ offset: Number(match[1]), depth: Number(match[2]), header: Number(match[3]), length: Number(match[4]), text: match[5]! }];
  });
}

/**
 * From a seal's CMS (RFC 5652 SignerInfo), with openssl asn1parse: the signature value and the
 * signature timestamp token (the id-smime-aa-timeStampToken unsigned attribute), as files.
 */
async function signatureTimestamp(cmsFile: string): Promise<{ signatureValue: string; token: string } | null> {
  const der = await readFile(cmsFile);
  const lines = await asn1(cmsFile);
  const at = lines.findIndex((line) => line.text.includes('id-smime-aa-timeStampToken'));
  if (at < 0) return null;
  const tokenLine = lines[at + 2]!; // OID, SET, then the token's SEQUENCE
  const unsigned = lines.slice(0, at).findLast((line) => line.text.includes('cont [ 1 ]'))!;
  const signature = lines.slice(0, lines.indexOf(unsigned)).findLast((line) => line.depth === unsigned.depth && line.text.includes('OCTET STRING'))!;
  return {
    signatureValue: await tempFile(der.subarray(signature.offset + signature.header, signature.offset + signature.header + signature.length), 'signature-value.bin'),
    token: await tempFile(der.subarray(tokenLine.offset, tokenLine.offset + tokenLine.header + tokenLine.length), 'signature-timestamp.der'),
  };
}

/** `openssl ts -verify` of a token over `dataFile` against the PKI's root (the intermediate as untrusted). */
async function verifyTimestamp(token: string, dataFile: string): Promise<void> {
  const result = await tool('openssl', ['ts', '-verify', '-in', token, '-token_in', '-data', dataFile, '-CAfile', pki.rootFile, '-untrusted', pki.intermediateFile]);
  expect(`${result.stdout}${result.stderr}`).toContain('Verification: OK');
}

/** The genTime of a timestamp token, as openssl prints it. */
async function timestampTime(token: string): Promise<number> {
  const { stdout } = await tool('openssl', ['ts', '-reply', '-in', token, '-token_in', '-token_out', '-text']);
  return Date.parse(/Time stamp: (.+)/.exec(stdout)![1]!);
}

function pemOf(file: string): Promise<string> {
  return readFile(file, 'utf8');
}

async function chainFile(): Promise<string> {
  return await tempFile(Buffer.from((await pemOf(pki.intermediateFile)) + (await pemOf(pki.rootFile))), 'chain.pem');
}

/**
 * Checks every OCSP response and CRL of a DSS with openssl, and returns which certificates they
 * cover ("good") and when each was issued and expires.
 */
async function checkRevocationData(store: { ocsps: string[]; crls: string[] }): Promise<{ ocspGood: string[]; crlIssuers: string[]; thisUpdates: number[]; nextUpdates: number[] }> {
  const chain = await chainFile();
  const ocspGood: string[] = [];
  const crlIssuers: string[] = [];
  const thisUpdates: number[] = [];
  const nextUpdates: number[] = [];
  for (const response of store.ocsps) {
    for (const [name, certificate] of [['seal', pki.sealCertificateFile], ['tsa', pki.tsaCertificateFile]] as const) {
      const result = await tool('openssl', ['ocsp', '-respin', response, '-issuer', pki.intermediateFile, '-cert', certificate, '-CAfile', chain, '-resp_text']);
      const output = `${result.stdout}${result.stderr}`;
      expect(output).toContain('Response verify OK');
      if (output.includes(`${certificate}: good`)) {
        ocspGood.push(name);
        thisUpdates.push(Date.parse(/This Update: (.+)/.exec(output)![1]!));
        nextUpdates.push(Date.parse(/Next Update: (.+)/.exec(output)![1]!));
      }
    }
  }
  for (const crl of store.crls) {
    const result = await tool('openssl', ['crl', '-inform', 'DER', '-in', crl, '-CAfile', pki.rootFile, '-noout', '-text']);
    expect(`${result.stdout}${result.stderr}`).toContain('verify OK');
    crlIssuers.push(/Issuer: (.+)/.exec(result.stdout)![1]!);
    thisUpdates.push(Date.parse(/Last Update: (.+)/.exec(result.stdout)![1]!));
    nextUpdates.push(Date.parse(/Next Update: (.+)/.exec(result.stdout)![1]!));
  }
  return { ocspGood, crlIssuers, thisUpdates, nextUpdates };
}

/** The DSS holds the sealing chain and the TSA certificate, checked revocation data for each certificate that names a source. */
async function expectLongTermValidationData(file: string): Promise<{ thisUpdates: number[]; nextUpdates: number[] }> {
  const store = await dss(file);
  expect(store).not.toBeNull();
  const fingerprints = await Promise.all(
    store!.certs.map(async (der) => (await tool('openssl', ['x509', '-inform', 'DER', '-in', der, '-noout', '-subject'])).stdout.trim()),
  );
  expect(fingerprints).toEqual(
    expect.arrayContaining([expect.stringContaining('CN = Envelope Seal (test)'), expect.stringContaining('CN = Test Seal Issuing CA'), expect.stringContaining('CN = Test Timestamp Authority')]),
  );
  const { ocspGood, crlIssuers, thisUpdates, nextUpdates } = await checkRevocationData(store!);
  // The sealing and TSA certificates name an OCSP responder: their OCSP responses; the issuing CA names only a CRL: the root's CRL.
  expect(ocspGood.sort()).toEqual(['seal', 'tsa']);
  expect(crlIssuers).toEqual([expect.stringContaining('CN = Test Seal Root CA')]);
  expect(store!.vriKeys.length).toBeGreaterThan(0);
  return { thisUpdates, nextUpdates };
}

/** `qpdf --check` finds no error, and no warning the original document (normal.pdf) did not already have. */
async function expectQpdfCheckAsOriginal(file: string): Promise<void> {
  const warnings = async (pdf: string) => {
    const result = await tool('qpdf', ['--check', pdf]);
    expect(result.code).not.toBe(2);
    return `${result.stdout}${result.stderr}`.split('\n').filter((line) => line.startsWith('WARNING')).map((line) => line.replace(pdf, 'file'));
  };
  const original = await tempFile(await corpusPdf('normal.pdf'));
  expect(await warnings(file)).toEqual(await warnings(original));
}

describe('every level validates with independent tools (docs/seal-levels.md)', () => {
  test('B-B: the seal is valid and covers the whole document; no timestamp, no DSS', async () => {
    await withSettings(pkiSettings('B-B'), async () => {
      const { file } = await sealedEnvelope();
      const [seal, ...rest] = await signatures(file);
      expect(rest).toEqual([]);
      expect(seal!.report).toContain('Signature is Valid.');
      expect(seal!.report).toContain('Total document signed');
      expect(await signatureTimestamp(seal!.file)).toBeNull();
      expect(await dss(file)).toBeNull();
    });
  });

  test('B-T: the seal carries a signature timestamp over its signature value that openssl verifies against the root', async () => {
    await withSettings(pkiSettings('B-T'), async () => {
      const { file } = await sealedEnvelope();
      const [seal, ...rest] = await signatures(file);
      expect(rest).toEqual([]);
      expect(seal!.report).toContain('Signature is Valid.');
      expect(seal!.report).toContain('Total document signed');
      const timestamp = await signatureTimestamp(seal!.file);
      await verifyTimestamp(timestamp!.token, timestamp!.signatureValue);
      expect(await dss(file)).toBeNull();
    });
  });

  test('B-LT: after the timestamped seal, a DSS with the chains and their checked OCSP responses and CRL', async () => {
    await withSettings(pkiSettings('B-LT'), async () => {
      const { file } = await sealedEnvelope();
      const [seal, ...rest] = await signatures(file);
      expect(rest).toEqual([]);
      expect(seal!.report).toContain('Signature is Valid.');
      const timestamp = await signatureTimestamp(seal!.file);
      await verifyTimestamp(timestamp!.token, timestamp!.signatureValue);
      await expectLongTermValidationData(file);
      await expectQpdfCheckAsOriginal(file);
    });
  });

  test('B-LTA: a document timestamp last, over everything, DSS included; what pyHanko checks for pades-lta holds', async () => {
    await withSettings(pkiSettings(undefined), async () => {
      // With TSA_URL and no SEAL_LEVEL, the level is B-LTA.
      expect(getServices().config.sealLevel).toBe('B-LTA');
      const { file, bytes } = await sealedEnvelope();
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
      await verifyTimestamp(documentTimestamp!.file, signed);
      const signatureTs = await signatureTimestamp(seal!.file);
      await verifyTimestamp(signatureTs!.token, signatureTs!.signatureValue);

      // Revocation data usable where pyHanko uses it: the sealing chain at the signature timestamp's
      // time, the TSA's chain at the document timestamp's (1 s of tolerance): issued no later, valid until then.
      const { thisUpdates, nextUpdates } = await expectLongTermValidationData(file);
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
    await withSettings(pkiSettings('B-LTA'), async () => {
      await sealedEnvelope();
      const before = { ocsp: pki.ocsp.requests, crl: pki.crl.requests, tsa: pki.tsa.requests };
      const { file } = await sealedEnvelope();
      expect({ ocsp: pki.ocsp.requests, crl: pki.crl.requests, tsa: pki.tsa.requests }).toEqual({ ...before, tsa: before.tsa + 2 });
      await expectLongTermValidationData(file);
    });
  });
});

describe('signatures already in the upload (docs/seal-levels.md#how-the-service-gathers-the-data)', () => {
  test('their revocation sources and issuer URLs on ports other than 80 and 443 are not fetched; the seal still reaches B-LT and keeps their signature', async () => {
    // Someone else's signature: a PDF sealed at B-B with another PKI, whose certificates name an
    // OCSP responder, CRLs and an issuer certificate on loopback ports other than 80 and 443.
    const other = await startTestPki();
    try {
      const signedElsewhere = await withSettings({ ...pkiSettings('B-B'), SEAL_P12_BASE64: other.sealP12Base64, SEAL_P12_PASSPHRASE: other.sealPassphrase }, async () => (await sealedEnvelope()).bytes);
      const before = { ocsp: other.ocsp.requests, crl: other.crl.requests, tsa: other.tsa.requests };
      await withSettings(pkiSettings('B-LT'), async () => {
        const { id } = await sentEnvelope(env.api, owner, { signers: [ada], pdf: signedElsewhere });
        const answer = await sign(id);
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
  const cases: [string, 'ocsp' | 'tsa', ServerMode, string][] = [
    ['the OCSP responder is down', 'ocsp', 'down', 'urn:problem:revocation-unavailable'],
    ['the OCSP responder answers garbage', 'ocsp', 'garbage', 'urn:problem:revocation-unavailable'],
    ['the OCSP responder takes over 10 s', 'ocsp', 'slow', 'urn:problem:revocation-unavailable'],
    ['the timestamp authority is down', 'tsa', 'down', 'urn:problem:timestamp-authority-unavailable'],
    ['the timestamp authority answers garbage', 'tsa', 'garbage', 'urn:problem:timestamp-authority-unavailable'],
  ];
  test.each(cases)('%s: the action is kept, the envelope stays sent, health is degraded; once it is back, the sweeper completes it at B-LTA', async (_name, server, mode, type) => {
    await withSettings(pkiSettings('B-LTA'), async () => {
      // A fresh worker: nothing cached, so the failing source is asked.
      await stopSealWorker();
      const { id } = await sentEnvelope(env.api, owner, { signers: [ada] });
      pki[server].mode = mode;
      try {
        const answer = await sign(id);
        expect(answer.status).toBe(200);
        expect(answer.body).toMatchObject({ envelope: { status: 'sent' }, recipient: { status: 'signed' }, signedUrl: null });
        const degraded = await health();
        expect(degraded.status).toBe(200);
        expect(degraded.body).toEqual({ status: 'degraded', reasons: [expect.stringContaining(server === 'tsa' ? 'timestamp authority' : 'revocation data')] });
        if (mode !== 'slow') {
          const retry = await env.api.request('POST', `/envelopes/${id}/complete`, { token: owner.token });
          expectProblem(retry, 503);
          expect(retry.body.type).toBe(type);
        }
        expect((await env.api.request('GET', `/envelopes/${id}`, { token: owner.token })).body.status).toBe('sent');
      } finally {
        pki[server].mode = 'ok';
      }
      expect(await retryCompletion({ services: getServices(), ownerId: owner.userId, envelopeId: id })).toBe(true);
      const envelope = (await env.api.request('GET', `/envelopes/${id}`, { token: owner.token })).body;
      expect(envelope.status).toBe('completed');
      expect((await health()).body).toEqual({ status: 'ok' });
      // Sealed at the configured level, not lower: the seal and the document timestamp, and the DSS.
      const completed = await env.api.request('POST', `/envelopes/${id}/complete`, { token: owner.token });
      const file = await tempFile(Buffer.from(await (await fetch(completed.body.signedUrl)).arrayBuffer()), 'retried.pdf');
      expect(await signatures(file)).toHaveLength(2);
      await expectLongTermValidationData(file);
    });
  });

  test('revocation sources on loopback are refused without OUTBOUND_ALLOW_PRIVATE_NETWORKS: the seal fails rather than reach a lower level', async () => {
    await withSettings({ ...pkiSettings('B-LT'), OUTBOUND_ALLOW_PRIVATE_NETWORKS: undefined }, async () => {
      await stopSealWorker();
      const before = pki.ocsp.requests;
      const { id } = await sentEnvelope(env.api, owner, { signers: [ada] });
      expect((await sign(id)).body.envelope.status).toBe('sent');
      const retry = await env.api.request('POST', `/envelopes/${id}/complete`, { token: owner.token });
      expectProblem(retry, 503);
      expect(retry.body.type).toBe('urn:problem:revocation-unavailable');
      expect(pki.ocsp.requests).toBe(before);
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
    const bare = { ...base, SEAL_P12_BASE64: pki.bareP12Base64, SEAL_P12_PASSPHRASE: pki.sealPassphrase, TSA_URL: pki.tsaUrl };
    for (const level of ['B-LT', 'B-LTA']) {
      expect(() => loadConfig({ ...bare, SEAL_LEVEL: level })).toThrow(/^Invalid setting SEAL_P12_BASE64: the certificate "CN=Seal Without Revocation \(test\), O=Envelope tests" names no revocation source/);
    }
    expect(loadConfig({ ...bare, SEAL_LEVEL: 'B-T' }).sealLevel).toBe('B-T');
    // The PKI's own sealing certificate names both; the local self-signed one is its own trust anchor.
    expect(loadConfig({ ...base, SEAL_P12_BASE64: pki.sealP12Base64, SEAL_P12_PASSPHRASE: pki.sealPassphrase, TSA_URL: pki.tsaUrl }).sealLevel).toBe('B-LTA');
    expect(loadConfig({ ...base, TSA_URL: pki.tsaUrl, SEAL_LEVEL: 'B-LTA' }).sealLevel).toBe('B-LTA');
  });
});
