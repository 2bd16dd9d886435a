/**
 * `npm run verify` (docs/evidence.md, docs/api.md#the-verifier) on sealed PDFs the service made over
 * real HTTP and Azurite: every check passes on a genuine file, and pdfsig and `openssl cms -verify`
 * (on the CMS pdfsig dumps) agree that its seal is valid; each kind of tampering gives its own FAIL
 * line and exit code 1: a byte changed under the seal, an update appended after it that changes a
 * page, an `audit.json` altered and sealed again by someone else (its chain broken, or recomputed
 * and sealed with another certificate), and with `--online` against a loopback log built here from
 * RFC 9162 (its Merkle tree computed in this file, not by the service's code): a proof for another tree
 * size, a head whose signature does not verify, a file the log does not hold.
 */
import { execFile } from 'node:child_process';
import { createHash, generateKeyPairSync, sign as signBytes, type KeyObject } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { beforeAll, describe, expect, test } from '@jest/globals';
import canonicalize from 'canonicalize';
import { createDevelopmentSealingCertificate, sealDocument } from '../../src/lib/pdf/index.js';
import { certificateFor } from '../pdf/pdfTools.js';
import { corpusPdf, serviceForFile, type ApiClient, type TestUser } from '../support/service.js';
import { sentEnvelope, signingTokenFor } from '../support/signing.js';
import { auditPath, hashOf, treeHash } from '../support/merkleTree.js';
import { tempFile, tool } from '../support/tools.js';

let api: ApiClient;
let owner: TestUser;
let serviceOrigin: string;
serviceForFile((started) => {
  ({ api, owner } = started);
  serviceOrigin = new URL(started.env.service.apiUrl).origin;
});

const sha256 = (data: Uint8Array | string): string => createHash('sha256').update(data).digest('hex');

interface Verdict {
  code: number;
  lines: string[];
  /** `check name` → `PASS`/`FAIL` and its reason. */
  checks: Map<string, { passed: boolean; reason: string }>;
}

/** Runs the compiled verifier as `npm run verify` does (`node dist/src/local/verify.js`). */
function verify(file: string, ...options: string[]): Promise<Verdict> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['dist/src/local/verify.js', file, ...options], { maxBuffer: 16 * 1024 * 1024 }, (error, stdout) => {
      const lines = stdout.trimEnd().split('\n');
      const checks = new Map<string, { passed: boolean; reason: string }>();
      for (const line of lines.slice(0, -1)) {
        const match = /^(PASS|FAIL) ([a-z ]+): (.+)$/.exec(line);
        if (match === null) throw new Error(`not a report line: ${line}`);
        checks.set(match[2]!, { passed: match[1] === 'PASS', reason: match[3]! });
      }
      const code = error === null ? 0 : typeof (error as { code?: unknown }).code === 'number' ? (error as { code: number }).code : -1;
      resolve({ code, lines, checks });
    });
  });
}

/** Expects the report's last line to count its lines, and the exit code to follow the failures. */
function expectConsistent(verdict: Verdict): void {
  const failed = [...verdict.checks.values()].filter((check) => !check.passed).length;
  expect(verdict.lines.at(-1)).toBe(`${verdict.checks.size - failed} passed, ${failed} failed`);
  expect(verdict.code).toBe(failed === 0 ? 0 : 1);
}

/** A completed envelope's sealed PDF, in a file, with its id and audit trail (events before `envelope.completed`). */
interface Sealed {
  id: string;
  file: string;
  bytes: Buffer;
  events: Record<string, unknown>[];
}

async function completedEnvelope(): Promise<Sealed> {
  const email = `verifier-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.com`;
  const { id } = await sentEnvelope(api, owner, { signers: [{ email, name: 'Vera' }] });
  const signed = await api.request('POST', '/signing/complete', { token: await signingTokenFor(owner.userId, id, email), json: { consent: true } });
  expect(signed.status).toBe(200);
  expect((signed.body as { envelope: { status: string } }).envelope.status).toBe('completed');
  const bytes = Buffer.from(await (await fetch((signed.body as { signedUrl: string }).signedUrl)).arrayBuffer());
  const audit = await api.request('GET', `/envelopes/${id}/audit`, { token: owner.token });
  const events = (audit.body as Record<string, unknown>[]).filter((event) => event.type !== 'envelope.completed');
  return { id, file: await tempFile(bytes, 'sealed.pdf'), bytes, events };
}

let genuine: Sealed;
/** The service's seal certificate as PEM, as its operator would publish it (taken from the genuine file's CMS by openssl). */
let servicePem: string;

beforeAll(async () => {
  genuine = await completedEnvelope();
  const dumped = await dumpedCms(genuine.file);
  const certificates = await tool('openssl', ['pkcs7', '-inform', 'DER', '-in', dumped, '-print_certs']);
  expect(certificates.code).toBe(0);
  servicePem = await tempFile(Buffer.from(certificates.stdout), 'service-seal.pem');
});

/** The seal's CMS as pdfsig dumps it (`-dump` writes `<name>.sig0` beside the file). */
async function dumpedCms(file: string): Promise<string> {
  const dumped = await tool('pdfsig', ['-nocert', '-dump', file.split('/').at(-1)!], file.slice(0, file.lastIndexOf('/')));
  expect(dumped.code).toBe(0);
  return `${file}.sig0`;
}

describe('a genuine sealed PDF', () => {
  test('every check passes offline, one line each, then the count; exit code 0', async () => {
    const verdict = await verify(genuine.file);
    expectConsistent(verdict);
    expect(verdict.code).toBe(0);
    expect([...verdict.checks.keys()]).toEqual(['byte range', 'seal signature', 'seal certificate', 'audit trail', 'certificate hashes']);
    expect(verdict.checks.get('byte range')!.reason).toContain(`the whole file (${genuine.bytes.length} bytes) but its own signature value`);
    expect(verdict.checks.get('audit trail')!.reason).toContain(`${genuine.events.length} events of envelope ${genuine.id}`);
    expect(verdict.checks.get('audit trail')!.reason).toContain(String(genuine.events.at(-1)!.hash));
    // The certificate it names is the one in the CMS; offline it says what it cannot check.
    expect(verdict.checks.get('seal certificate')!.reason).toMatch(/sealed by .*CN=.*\(certificate SHA-256 [0-9a-f]{64}\)/);
    expect(verdict.checks.get('seal certificate')!.reason).toContain('whether a trusted authority issued it and whether it was revoked is not checked');
  });

  test('npm run verify runs the same', async () => {
    const result = await tool('npm', ['run', '--silent', 'verify', '--', genuine.file]);
    expect(result.code).toBe(0);
    expect(result.stdout.trimEnd().split('\n').at(-1)).toBe('5 passed, 0 failed');
  });

  test('pdfsig and openssl cms -verify, on the CMS pdfsig extracts, find the same seal valid', async () => {
    const report = (await tool('pdfsig', ['-nocert', genuine.file])).stdout;
    expect(report).toContain('Signature is Valid.');
    expect(report).toContain('Total document signed');
    const cms = await dumpedCms(genuine.file);
    // The bytes the /ByteRange covers, cut here with the offsets as written in the file.
    const match = /\/ByteRange\s*\[\s*(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s*\]/.exec(genuine.bytes.toString('latin1'))!;
    const [a, b, c, d] = match.slice(1, 5).map(Number) as [number, number, number, number];
    const content = await tempFile(Buffer.concat([genuine.bytes.subarray(a, a + b), genuine.bytes.subarray(c, c + d)]), 'signed-bytes.bin');
    const checked = await tool('openssl', ['cms', '-verify', '-binary', '-inform', 'DER', '-in', cms, '-content', content, '-noverify', '-purpose', 'any', '-out', '/dev/null']);
    expect(checked.stderr).toContain('Verification successful');
    expect(checked.code).toBe(0);
    // The service's certificate given to expect: it is the one.
    const expected = await verify(genuine.file, '--certificate', servicePem);
    expect(expected.code).toBe(0);
    expect(expected.checks.get('seal certificate')!.reason).toContain('It is the expected certificate.');
  });
});

describe('tampering, each named', () => {
  test('a byte changed under the seal: seal signature fails, as pdfsig says', async () => {
    const text = genuine.bytes.toString('latin1');
    const at = text.indexOf('/Reason');
    expect(at).toBeGreaterThan(0);
    const changed = Buffer.from(genuine.bytes);
    changed[at + 10] = changed[at + 10] === 0x58 ? 0x59 : 0x58; // a letter of the seal's reason
    const file = await tempFile(changed, 'changed.pdf');
    const verdict = await verify(file);
    expectConsistent(verdict);
    expect(verdict.code).toBe(1);
    expect(verdict.checks.get('seal signature')).toEqual({ passed: false, reason: expect.stringContaining('the file was changed after it was sealed') });
    expect((await tool('pdfsig', ['-nocert', file])).stdout).not.toContain('Signature is Valid.');
  });

  test('an update appended after the seal that changes a page: byte range fails, naming the page', async () => {
    const text = genuine.bytes.toString('latin1');
    const pages = [...text.matchAll(/(?<![0-9])(\d+) (\d+) obj\s*(<<(?:(?!endobj)[\s\S])*?\/Type\s*\/Page\b(?:(?!endobj)[\s\S])*?)endobj/g)];
    const page = pages.at(-1)!;
    const startxref = [...text.matchAll(/startxref\s+(\d+)/g)].at(-1)![1];
    const root = [...text.matchAll(/\/Root\s+(\d+ \d+ R)/g)].at(-1)![1];
    const size = Math.max(...[...text.matchAll(/\/Size\s+(\d+)/g)].map((found) => Number(found[1])));
    const object = `${page[1]} ${page[2]} obj\n${page[3]!.trimEnd().replace(/>>\s*$/, '/Rotate 90 >>')}\nendobj\n`;
    const offset = genuine.bytes.length + 1;
    const xref = `xref\n${page[1]} 1\n${String(offset).padStart(10, '0')} ${String(page[2]).padStart(5, '0')} n \n`;
    const update = `\n${object}${xref}trailer\n<< /Size ${size} /Root ${root} /Prev ${startxref} >>\nstartxref\n${offset + object.length}\n%%EOF\n`;
    const file = await tempFile(Buffer.concat([genuine.bytes, Buffer.from(update, 'latin1')]), 'updated.pdf');
    const verdict = await verify(file);
    expectConsistent(verdict);
    expect(verdict.code).toBe(1);
    expect(verdict.checks.get('byte range')).toEqual({ passed: false, reason: expect.stringContaining(`object ${page[1]} ${page[2]} (the page) changes /Rotate`) });
    // The seal itself still verifies over what it covers: the failure is what came after.
    expect(verdict.checks.get('seal signature')!.passed).toBe(true);
    expect((await tool('pdfsig', ['-nocert', file])).stdout).toContain('Not total document signed');
  });

  /** `events` with event 2's ip changed, re-chained from the start when `rechain` (as a forger would). */
  function alteredTrail(events: Record<string, unknown>[], rechain: boolean): Record<string, unknown>[] {
    const altered = events.map((event) => ({ ...event }));
    altered[1]!.ip = '198.51.100.66';
    if (!rechain) return altered;
    let previous = sha256(genuine.id);
    for (const event of altered) {
      const { hash: _hash, ...rest } = event;
      event.prevHash = previous;
      event.hash = sha256(canonicalize({ ...rest, prevHash: previous })!);
      previous = event.hash as string;
    }
    return altered;
  }

  /** The genuine file's document sealed anew by someone else, with their own certificate, carrying `trail` as `audit.json`. */
  async function resealed(trail: Record<string, unknown>[]): Promise<string> {
    const { p12Base64, passphrase } = await createDevelopmentSealingCertificate({ commonName: 'Not the envelope service' });
    const document = await corpusPdf('normal.pdf');
    const sent = genuine.events.find((event) => event.type === 'envelope.sent')!.details as { documentSha256: string; uploadSha256: string | null };
    const head = String(trail.at(-1)!.hash);
    const result = await sealDocument({
      document,
      certificate: certificateFor(document, { envelopeId: genuine.id, documentSha256: sent.documentSha256, ...(sent.uploadSha256 === null ? {} : { uploadSha256: sent.uploadSha256, removed: [] }), auditHead: head }),
      auditTrail: Buffer.from(JSON.stringify(trail), 'utf8'),
      sealingP12: new Uint8Array(Buffer.from(p12Base64, 'base64')),
      sealingPassphrase: passphrase,
    });
    return await tempFile(result.sealed, 'resealed.pdf');
  }

  test('audit.json altered and sealed again by someone else, its chain left broken: audit trail fails naming the event', async () => {
    const file = await resealed(alteredTrail(genuine.events, false));
    const verdict = await verify(file);
    expectConsistent(verdict);
    expect(verdict.code).toBe(1);
    expect(verdict.checks.get('audit trail')).toEqual({ passed: false, reason: expect.stringMatching(/^event 2 \(.+\) was changed: its hash is [0-9a-f]{64}, its content hashes to [0-9a-f]{64}$/) });
    // Its own seal is sound: only who made it tells it apart, and the certificate expected says so.
    expect(verdict.checks.get('seal signature')!.passed).toBe(true);
    expect(verdict.checks.get('seal certificate')!.reason).toContain('CN=Not the envelope service');
  });

  test('audit.json altered, re-chained and sealed by someone else: the expected certificate, the service and the log each say it is not the service\'s', async () => {
    const file = await resealed(alteredTrail(genuine.events, true));
    const offline = await verify(file);
    // A consistent forgery: the chain and the hashes it printed agree with each other ...
    expect(offline.checks.get('audit trail')!.passed).toBe(true);
    expect(offline.checks.get('certificate hashes')!.passed).toBe(true);
    // ... but it is not sealed with the service's certificate,
    const withCertificate = await verify(file, '--certificate', servicePem);
    expectConsistent(withCertificate);
    expect(withCertificate.code).toBe(1);
    expect(withCertificate.checks.get('seal certificate')).toEqual({ passed: false, reason: expect.stringContaining('not with the expected certificate') });
    // ... the service never sealed it, and the log does not hold it.
    const log = await startLog([genuine]);
    try {
      const online = await verify(file, '--online', log.origin);
      expectConsistent(online);
      expect(online.code).toBe(1);
      expect(online.checks.get('service record')).toEqual({ passed: false, reason: expect.stringContaining('did not seal this file') });
      expect(online.checks.get('log head')!.passed).toBe(true);
      expect(online.checks.get('log inclusion')).toEqual({ passed: false, reason: expect.stringContaining('is not in the log') });
    } finally {
      await log.close();
    }
  });
});

// --- A loopback public log, its Merkle tree computed from RFC 9162 §2.1 (tests/support/merkleTree.ts) ---

interface LogOptions {
  /** Answer proofs for a tree one leaf smaller than asked (a proof for another tree size). */
  proofForOtherSize?: boolean;
  /** Sign heads with a key other than the one `/api/log/key` publishes. */
  wrongKey?: boolean;
}

/**
 * A log serving `GET /api/log/sth`, `/api/log/proof`, `/api/log/key` in the service's shapes over
 * leaves: some other envelopes' hashes, then each sealed file's SHA-256 and audit head (raw 32 bytes),
 * then more; and `GET /api/verify/{sha256}` passed through to the real service.
 */
async function startLog(sealed: readonly Sealed[], options: LogOptions = {}): Promise<{ origin: string; close: () => Promise<void> }> {
  const filler = (label: string): Buffer => createHash('sha256').update(label).digest();
  const leaves = [filler('a'), filler('b'), filler('c')];
  for (const { bytes, events } of sealed) leaves.push(Buffer.from(sha256(bytes), 'hex'), Buffer.from(String(events.at(-1)!.hash), 'hex'));
  leaves.push(filler('d'), filler('e'));
  const keyPair = (): { publicKey: KeyObject; privateKey: KeyObject } => generateKeyPairSync('ed25519');
  const published = keyPair();
  const signing = options.wrongKey === true ? keyPair().privateKey : published.privateKey;
  const jwk = { ...published.publicKey.export({ format: 'jwk' }), kid: 'test-log-key', use: 'sig', alg: 'EdDSA' };
  const head = { treeSize: leaves.length, rootHash: treeHash(leaves).toString('hex'), timestamp: new Date().toISOString(), keyId: 'test-log-key' };
  const sth = { ...head, signature: signBytes(null, Buffer.from(canonicalize(head)!, 'utf8'), signing).toString('base64url') };
  const server = http.createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://log.test');
    const answer = (status: number, body: unknown): void => {
      response.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
    };
    if (url.pathname === '/api/log/sth') return answer(200, sth);
    if (url.pathname === '/api/log/key') return answer(200, jwk);
    if (url.pathname === '/api/log/proof') {
      const hash = url.searchParams.get('hash') ?? '';
      const treeSize = Number(url.searchParams.get('treeSize') ?? leaves.length) - (options.proofForOtherSize === true ? 1 : 0);
      const index = leaves.slice(0, treeSize).findIndex((leaf) => leaf.toString('hex') === hash);
      if (index === -1) return answer(404, { type: 'urn:problem:log-leaf-not-found' });
      return answer(200, { leafIndex: index, treeSize, auditPath: auditPath(index, leaves.slice(0, treeSize)).map((node) => node.toString('hex')) });
    }
    if (url.pathname.startsWith('/api/verify/')) {
      void fetch(`${serviceOrigin}${url.pathname}`).then(async (upstream) => answer(upstream.status, await upstream.json()));
      return undefined;
    }
    return answer(404, {});
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

describe('--online against a log (RFC 9162)', () => {
  test('the loopback log\'s own tree agrees with RFC 9162\'s definitions on a hand-checked case', () => {
    const d = [Buffer.from('0'), Buffer.from('1'), Buffer.from('2')];
    // MTH(D[3]) = H(1 || H(1 || H(0||d0) || H(0||d1)) || H(0||d2)); PATH(2, D[3]) = [MTH(D[0:2])].
    const left = hashOf(Buffer.of(1), hashOf(Buffer.of(0), d[0]!), hashOf(Buffer.of(0), d[1]!));
    expect(treeHash(d)).toEqual(hashOf(Buffer.of(1), left, hashOf(Buffer.of(0), d[2]!)));
    expect(auditPath(2, d)).toEqual([left]);
    expect(auditPath(0, d)).toEqual([hashOf(Buffer.of(0), d[1]!), hashOf(Buffer.of(0), d[2]!)]);
  });

  test('a genuine file: the service records it, the head is signed by the log key, both leaves are proven', async () => {
    const log = await startLog([genuine]);
    try {
      const verdict = await verify(genuine.file, '--online', log.origin);
      expectConsistent(verdict);
      expect(verdict.code).toBe(0);
      expect([...verdict.checks.keys()].slice(-3)).toEqual(['service record', 'log head', 'log inclusion']);
      expect(verdict.checks.get('service record')!.reason).toContain(`for envelope ${genuine.id}`);
      expect(verdict.checks.get('log inclusion')!.reason).toBe('the sealed PDF is leaf 3 and the audit trail head is leaf 4 of the 7-leaf tree: the RFC 9162 inclusion proofs lead to the signed root');
    } finally {
      await log.close();
    }
  });

  test('a proof for another tree size: log inclusion fails, naming both sizes', async () => {
    const log = await startLog([genuine], { proofForOtherSize: true });
    try {
      const verdict = await verify(genuine.file, '--online', log.origin);
      expectConsistent(verdict);
      expect(verdict.code).toBe(1);
      expect(verdict.checks.get('log inclusion')).toEqual({ passed: false, reason: 'the proof for the sealed PDF is for a tree of 6 leaves, not the head\'s 7' });
    } finally {
      await log.close();
    }
  });

  test('a head whose signature does not verify with the published key: log head fails', async () => {
    const log = await startLog([genuine], { wrongKey: true });
    try {
      const verdict = await verify(genuine.file, '--online', log.origin);
      expectConsistent(verdict);
      expect(verdict.code).toBe(1);
      expect(verdict.checks.get('log head')).toEqual({ passed: false, reason: expect.stringContaining("does not verify with the log's key test-log-key: it is not the log's") });
      expect(verdict.checks.has('log inclusion')).toBe(false);
    } finally {
      await log.close();
    }
  });
});
