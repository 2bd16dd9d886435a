/**
 * What the seal-level tests share (`tests/e2e/sealLevels.test.ts`, `tests/e2e/sealLevelOcspOutages.test.ts`):
 * a test file's own Azurite, real PKI on loopback (`./pki.ts`) and service, and the checks with
 * tools nobody here wrote: `pdfsig` for the signatures (and `-dump` for their CMS), `qpdf --json` to
 * read the DSS back, `openssl ocsp -respin` for each OCSP response, `openssl crl` for each CRL,
 * `openssl ts -verify` for the signature and document timestamps against the PKI's root
 * (docs/seal-levels.md).
 */
import { readFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, expect } from '@jest/globals';
import { retryCompletion } from '../../src/lib/envelopes/complete.js';
import { stopSealWorker } from '../../src/lib/pdf/index.js';
import { getServices } from '../../src/lib/services.js';
import { withSettings } from './contract.js';
import { startTestPki, type ServerMode, type TestPki } from './pki.js';
import { corpusPdf, expectProblem, ownAzuriteForFile, startTestService, type ApiResponse, type TestService, type TestUser } from './service.js';
import { sentEnvelope, signingTokenFor } from './signing.js';
import { tempFile, tool } from './tools.js';

/** What {@link sealLevelsForFile} started; its fields are set once the file's `beforeAll` ran. */
export interface SealBench {
  env: TestService;
  owner: TestUser;
  pki: TestPki;
}

/**
 * Starts, for the test file, an Azurite of its own, a test PKI, the service and an owner, and stops
 * them after the file. An Azurite of its own: the completions the file leaves failing (its settings,
 * its PKI) are retried there, never by another test process's sweeper with the suite's settings (a
 * seal below its level).
 */
export function sealLevelsForFile(): SealBench {
  const bench = {} as SealBench;
  const azurite = ownAzuriteForFile();
  beforeAll(async () => {
    bench.pki = await startTestPki();
    bench.env = await startTestService();
    bench.owner = await bench.env.newUser();
  });
  afterAll(async () => {
    await bench.env?.close();
    await bench.pki?.close();
    await azurite.stop();
  });
  return bench;
}

export const ada = { email: 'ada@example.com', name: 'Ada Lovelace', role: 'signer' };

/** The settings of a service sealing with the test PKI (its servers are on loopback). */
export function pkiSettings(pki: TestPki, level: string | undefined): Record<string, string | undefined> {
  return {
    SEAL_P12_BASE64: pki.sealP12Base64,
    SEAL_P12_PASSPHRASE: pki.sealPassphrase,
    TSA_URL: level === 'B-B' ? undefined : pki.tsaUrl,
    SEAL_LEVEL: level,
    OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true',
  };
}

/** Ada's answer to the envelope `id` (consent), which completes it. */
export async function sign(bench: SealBench, id: string): Promise<ApiResponse<any>> {
  return await bench.env.api.request('POST', '/signing/complete', { token: await signingTokenFor(bench.owner.userId, id, ada.email), json: { consent: true } });
}

export async function health(bench: SealBench): Promise<ApiResponse<any>> {
  return await bench.env.api.request('GET', '/health');
}

/** Sends an envelope, has its signer act (which completes and seals it), and returns the sealed PDF. */
export async function sealedEnvelope(bench: SealBench): Promise<{ id: string; file: string; bytes: Buffer }> {
  const { id } = await sentEnvelope(bench.env.api, bench.owner, { signers: [ada] });
  const answer = await sign(bench, id);
  expect(answer.status).toBe(200);
  expect(answer.body.envelope.status).toBe('completed');
  const bytes = Buffer.from(await (await fetch(answer.body.signedUrl)).arrayBuffer());
  return { id, bytes, file: await tempFile(bytes, 'sealed.pdf') };
}

export interface DumpedSignature {
  /** The signature's /Contents (CMS, or the timestamp token of a document timestamp). */
  file: string;
  /** pdfsig's report of it. */
  report: string;
  /** Signed byte ranges, [start, end). */
  ranges: [number, number][];
}

/** Every signature of the PDF as pdfsig reports and dumps it. */
export async function signatures(file: string): Promise<DumpedSignature[]> {
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
export async function dss(file: string): Promise<{ certs: string[]; ocsps: string[]; crls: string[]; vriKeys: string[] } | null> {
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
export async function signatureTimestamp(cmsFile: string): Promise<{ signatureValue: string; token: string } | null> {
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
export async function verifyTimestamp(pki: TestPki, token: string, dataFile: string): Promise<void> {
  const result = await tool('openssl', ['ts', '-verify', '-in', token, '-token_in', '-data', dataFile, '-CAfile', pki.rootFile, '-untrusted', pki.intermediateFile]);
  expect(`${result.stdout}${result.stderr}`).toContain('Verification: OK');
}

/** The genTime of a timestamp token, as openssl prints it. */
export async function timestampTime(token: string): Promise<number> {
  const { stdout } = await tool('openssl', ['ts', '-reply', '-in', token, '-token_in', '-token_out', '-text']);
  return Date.parse(/Time stamp: (.+)/.exec(stdout)![1]!);
}

async function chainFile(pki: TestPki): Promise<string> {
  return await tempFile(Buffer.from((await readFile(pki.intermediateFile, 'utf8')) + (await readFile(pki.rootFile, 'utf8'))), 'chain.pem');
}

/**
 * Checks every OCSP response and CRL of a DSS with openssl, and returns which certificates they
 * cover ("good") and when each was issued and expires.
 */
async function checkRevocationData(pki: TestPki, store: { ocsps: string[]; crls: string[] }): Promise<{ ocspGood: string[]; crlIssuers: string[]; thisUpdates: number[]; nextUpdates: number[] }> {
  const chain = await chainFile(pki);
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
export async function expectLongTermValidationData(pki: TestPki, file: string): Promise<{ thisUpdates: number[]; nextUpdates: number[] }> {
  const store = await dss(file);
  expect(store).not.toBeNull();
  const fingerprints = await Promise.all(
    store!.certs.map(async (der) => (await tool('openssl', ['x509', '-inform', 'DER', '-in', der, '-noout', '-subject'])).stdout.trim()),
  );
  expect(fingerprints).toEqual(
    expect.arrayContaining([expect.stringContaining('CN = Envelope Seal (test)'), expect.stringContaining('CN = Test Seal Issuing CA'), expect.stringContaining('CN = Test Timestamp Authority')]),
  );
  const { ocspGood, crlIssuers, thisUpdates, nextUpdates } = await checkRevocationData(pki, store!);
  // The sealing and TSA certificates name an OCSP responder: their OCSP responses; the issuing CA names only a CRL: the root's CRL.
  expect(ocspGood.sort()).toEqual(['seal', 'tsa']);
  expect(crlIssuers).toEqual([expect.stringContaining('CN = Test Seal Root CA')]);
  expect(store!.vriKeys.length).toBeGreaterThan(0);
  return { thisUpdates, nextUpdates };
}

/** `qpdf --check` finds no error, and no warning the original document (normal.pdf) did not already have. */
export async function expectQpdfCheckAsOriginal(file: string): Promise<void> {
  const warnings = async (pdf: string) => {
    const result = await tool('qpdf', ['--check', pdf]);
    expect(result.code).not.toBe(2);
    return `${result.stdout}${result.stderr}`.split('\n').filter((line) => line.startsWith('WARNING')).map((line) => line.replace(pdf, 'file'));
  };
  const original = await tempFile(await corpusPdf('normal.pdf'));
  expect(await warnings(file)).toEqual(await warnings(original));
}

/**
 * One failing source of a B-LTA seal (docs/api.md#the-recipients-api, docs/seal-levels.md): with the
 * PKI's `server` in `mode`, the recipient's action is kept, the envelope stays sent, health is
 * degraded and the owner's retry is refused with `type` (a slow source only keeps the envelope sent);
 * once the source is back, the sweeper's retry completes it at B-LTA.
 */
export async function expectCompletionRetriedOnceBack(bench: SealBench, server: 'ocsp' | 'tsa', mode: ServerMode, type: string): Promise<void> {
  const { env, owner, pki } = bench;
  await withSettings(pkiSettings(pki, 'B-LTA'), async () => {
    // A fresh worker: nothing cached, so the failing source is asked.
    await stopSealWorker();
    const { id } = await sentEnvelope(env.api, owner, { signers: [ada] });
    pki[server].mode = mode;
    try {
      const answer = await sign(bench, id);
      expect(answer.status).toBe(200);
      expect(answer.body).toMatchObject({ envelope: { status: 'sent' }, recipient: { status: 'signed' }, signedUrl: null });
      const degraded = await health(bench);
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
    expect((await health(bench)).body).toEqual({ status: 'ok' });
    // Sealed at the configured level, not lower: the seal and the document timestamp, and the DSS.
    const completed = await env.api.request('POST', `/envelopes/${id}/complete`, { token: owner.token });
    const file = await tempFile(Buffer.from(await (await fetch(completed.body.signedUrl)).arrayBuffer()), 'retried.pdf');
    expect(await signatures(file)).toHaveLength(2);
    await expectLongTermValidationData(pki, file);
  });
}
