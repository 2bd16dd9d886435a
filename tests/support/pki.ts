/**
 * A real public-key infrastructure on loopback, for tests of the seal levels (PAdES B-LT, B-LTA), all
 * made and run with openssl: a root CA, an intermediate CA that issues the sealing certificate and
 * the timestamp authority's certificate (both naming an OCSP responder in their Authority
 * Information Access and a CRL distribution point, on loopback), an OCSP responder (`openssl ocsp`
 * answering each request), a CRL server (CRLs made with `openssl ca -gencrl`; the intermediate
 * names the root's CRL) and an RFC 3161 timestamp authority (`openssl ts -reply`).
 *
 * Each server counts the requests it receives, and can be switched to fail: `down` (the connection
 * is closed without an answer), `slow` (no answer for 12 s, beyond the service's 10 s deadline) or
 * `garbage` (200 with random bytes).
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { opensslTimestampResponder } from './timestampAuthority.js';

const run = promisify(execFile);

export type ServerMode = 'ok' | 'down' | 'slow' | 'garbage';

/** One loopback server of the PKI. */
export interface PkiServer {
  /** Base URL, `http://127.0.0.1:<port>`. */
  readonly origin: string;
  /** Requests received so far (every mode counts). */
  readonly requests: number;
  /** How it answers from now on. */
  mode: ServerMode;
}

export interface TestPki {
  dir: string;
  /** PEM of the root CA: the trust anchor. */
  rootFile: string;
  /** PEM of the intermediate CA. */
  intermediateFile: string;
  /** PEM of the sealing certificate and of the TSA certificate. */
  sealCertificateFile: string;
  tsaCertificateFile: string;
  /** `SEAL_P12_BASE64` and `SEAL_P12_PASSPHRASE` of the sealing certificate, its chain included. */
  sealP12Base64: string;
  sealPassphrase: string;
  /** A PKCS#12 (same passphrase) whose certificate, issued by the intermediate, names no revocation source. */
  bareP12Base64: string;
  /** `TSA_URL`. */
  tsaUrl: string;
  ocsp: PkiServer;
  crl: PkiServer;
  tsa: PkiServer;
  close(): Promise<void>;
}

const SLOW_MS = 12_000;

interface Handler {
  (request: IncomingMessage, body: Buffer): Promise<{ type: string; body: Buffer }>;
}

async function startServer(handler: () => Handler): Promise<{ server: Server; state: PkiServer & { requests: number }; pending: Set<NodeJS.Timeout> }> {
  const pending = new Set<NodeJS.Timeout>();
  const state = { origin: '', requests: 0, mode: 'ok' as ServerMode };
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      state.requests++;
      if (process.env.PKI_DEBUG) console.log("PKI", request.method, request.url);
      if (state.mode === 'down') {
        request.socket.destroy();
        return;
      }
      if (state.mode === 'garbage') {
        response.writeHead(200, { 'content-type': 'application/octet-stream' }).end(randomBytes(600));
        return;
      }
      const answer = () =>
        handler()(request, Buffer.concat(chunks)).then(
          ({ type, body }) => response.writeHead(200, { 'content-type': type }).end(body),
          (error: unknown) => response.writeHead(500, { 'content-type': 'text/plain' }).end(String(error)),
        );
      if (state.mode === 'slow') {
        const timer = setTimeout(() => {
          pending.delete(timer);
          void answer();
        }, SLOW_MS);
        pending.add(timer);
        return;
      }
      void answer();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { server, state, pending };
}

/** An `openssl ca` configuration for the CA in `dir` (ca.crt, ca.key, index.txt, serial, crlnumber). */
function caConfig(dir: string): string {
  return [
    '[ ca ]',
    'default_ca = ca_section',
    '[ ca_section ]',
    `database = ${dir}/index.txt`,
    `new_certs_dir = ${dir}/issued`,
    `serial = ${dir}/serial`,
    `crlnumber = ${dir}/crlnumber`,
    `certificate = ${dir}/ca.crt`,
    `private_key = ${dir}/ca.key`,
    'default_md = sha256',
    'default_days = 30',
    'default_crl_days = 2',
    'policy = policy_any',
    'unique_subject = no',
    'copy_extensions = none',
    '[ policy_any ]',
    'commonName = supplied',
    'organizationName = optional',
    '',
  ].join('\n');
}

/**
 * Creates the PKI in a temporary folder and starts its servers on 127.0.0.1.
 */
export async function startTestPki(): Promise<TestPki> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'test-pki-'));
  const file = (...parts: string[]): string => path.join(dir, ...parts);
  const openssl = async (...args: string[]): Promise<string> => (await run('openssl', args, { cwd: dir })).stdout;

  // The servers listen first: the certificates name their ports.
  let ocspHandler: Handler = async () => ({ type: 'text/plain', body: Buffer.alloc(0) });
  let crlHandler: Handler = ocspHandler;
  let tsaHandler: Handler = ocspHandler;
  const ocsp = await startServer(() => ocspHandler);
  const crl = await startServer(() => crlHandler);
  const tsa = await startServer(() => tsaHandler);

  const makeCaDir = async (name: string) => {
    await mkdir(file(name, 'issued'), { recursive: true });
    await writeFile(file(name, 'index.txt'), '');
    await writeFile(file(name, 'serial'), `${randomBytes(8).toString('hex').toUpperCase().replace(/^./, '1')}\n`);
    await writeFile(file(name, 'crlnumber'), '01\n');
    await writeFile(file(name, 'ca.cnf'), caConfig(file(name)));
  };
  await makeCaDir('root');
  await makeCaDir('intermediate');

  await openssl('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', file('root', 'ca.key'), '-out', file('root', 'ca.crt'), '-days', '30',
    '-subj', '/CN=Test Seal Root CA/O=Envelope tests', '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign');

  const issue = async (ca: string, name: string, subject: string, extensions: string[]) => {
    await openssl('req', '-newkey', 'rsa:2048', '-nodes', '-keyout', file(`${name}.key`), '-out', file(`${name}.csr`), '-subj', subject);
    await writeFile(file(`${name}.ext`), `${extensions.join('\n')}\n`);
    await openssl('ca', '-batch', '-config', file(ca, 'ca.cnf'), '-in', file(`${name}.csr`), '-out', file(`${name}.crt`), '-extfile', file(`${name}.ext`), '-notext');
  };
  await issue('root', 'intermediate', '/CN=Test Seal Issuing CA/O=Envelope tests', [
    'basicConstraints=critical,CA:TRUE,pathlen:0',
    'keyUsage=critical,keyCertSign,cRLSign',
    'subjectKeyIdentifier=hash',
    'authorityKeyIdentifier=keyid',
    `crlDistributionPoints=URI:${crl.state.origin}/root.crl`,
  ]);
  await run('cp', [file('intermediate.crt'), file('intermediate', 'ca.crt')]);
  await run('cp', [file('intermediate.key'), file('intermediate', 'ca.key')]);
  const leafExtensions = [
    'subjectKeyIdentifier=hash',
    'authorityKeyIdentifier=keyid',
    `authorityInfoAccess=OCSP;URI:${ocsp.state.origin}/ocsp,caIssuers;URI:${crl.state.origin}/intermediate.crt`,
    `crlDistributionPoints=URI:${crl.state.origin}/intermediate.crl`,
  ];
  await issue('intermediate', 'seal', '/CN=Envelope Seal (test)/O=Envelope tests', [
    'basicConstraints=critical,CA:FALSE',
    'keyUsage=critical,digitalSignature,nonRepudiation',
    ...leafExtensions,
  ]);
  await issue('intermediate', 'tsa', '/CN=Test Timestamp Authority/O=Envelope tests', [
    'basicConstraints=critical,CA:FALSE',
    'keyUsage=critical,digitalSignature,nonRepudiation',
    'extendedKeyUsage=critical,timeStamping',
    ...leafExtensions,
  ]);
  // A certificate of the same CA that names no revocation source (B-LT and B-LTA refuse it at start).
  await issue('intermediate', 'bare', '/CN=Seal Without Revocation (test)/O=Envelope tests', ['basicConstraints=critical,CA:FALSE', 'keyUsage=critical,digitalSignature,nonRepudiation']);
  const chainPem = (await readFile(file('intermediate.crt'), 'utf8')) + (await readFile(file('root', 'ca.crt'), 'utf8'));
  await writeFile(file('chain.pem'), chainPem);

  // CRLs, in DER as CRL distribution points serve them.
  const crls = new Map<string, Buffer>();
  for (const ca of ['root', 'intermediate']) {
    await openssl('ca', '-config', file(ca, 'ca.cnf'), '-gencrl', '-out', file(`${ca}.crl.pem`));
    await openssl('crl', '-in', file(`${ca}.crl.pem`), '-outform', 'DER', '-out', file(`${ca}.crl`));
    crls.set(`/${ca}.crl`, await readFile(file(`${ca}.crl`)));
  }
  await openssl('x509', '-in', file('intermediate.crt'), '-outform', 'DER', '-out', file('intermediate.der'));
  const intermediateDer = await readFile(file('intermediate.der'));
  crlHandler = async (request) => {
    const url = request.url ?? '';
    if (url === '/intermediate.crt') return { type: 'application/pkix-cert', body: intermediateDer };
    const body = crls.get(url);
    if (body === undefined) throw new Error(`no such CRL: ${url}`);
    return { type: 'application/pkix-crl', body };
  };

  // OCSP: `openssl ocsp` answers each request from the intermediate's index, signed by the intermediate; valid 60 minutes.
  let ocspCount = 0;
  let ocspQueue: Promise<unknown> = Promise.resolve();
  ocspHandler = async (_request, body) => {
    const id = ++ocspCount;
    const answer = ocspQueue.then(async () => {
      await writeFile(file(`ocsp-${id}.req`), body);
      await openssl('ocsp', '-index', file('intermediate', 'index.txt'), '-CA', file('intermediate', 'ca.crt'), '-rsigner', file('intermediate', 'ca.crt'),
        '-rkey', file('intermediate', 'ca.key'), '-reqin', file(`ocsp-${id}.req`), '-respout', file(`ocsp-${id}.resp`), '-nmin', '60');
      return { type: 'application/ocsp-response', body: await readFile(file(`ocsp-${id}.resp`)) };
    });
    ocspQueue = answer.catch(() => undefined);
    return await answer;
  };

  // RFC 3161: `openssl ts -reply` with the TSA certificate and its chain in each token.
  const timestamp = await opensslTimestampResponder(dir, { certificateFile: file('tsa.crt'), keyFile: file('tsa.key'), chainFile: file('chain.pem') });
  tsaHandler = async (_request, body) => ({ type: 'application/timestamp-reply', body: await timestamp(body) });

  const sealPassphrase = randomBytes(12).toString('base64url');
  await openssl('pkcs12', '-export', '-inkey', file('seal.key'), '-in', file('seal.crt'), '-certfile', file('chain.pem'), '-passout', `pass:${sealPassphrase}`, '-out', file('seal.p12'));

  await openssl('pkcs12', '-export', '-inkey', file('bare.key'), '-in', file('bare.crt'), '-certfile', file('chain.pem'), '-passout', `pass:${sealPassphrase}`, '-out', file('bare.p12'));

  const servers = [ocsp, crl, tsa];
  return {
    dir,
    rootFile: file('root', 'ca.crt'),
    intermediateFile: file('intermediate.crt'),
    sealCertificateFile: file('seal.crt'),
    tsaCertificateFile: file('tsa.crt'),
    sealP12Base64: (await readFile(file('seal.p12'))).toString('base64'),
    sealPassphrase,
    bareP12Base64: (await readFile(file('bare.p12'))).toString('base64'),
    tsaUrl: `${tsa.state.origin}/tsr`,
    ocsp: ocsp.state,
    crl: crl.state,
    tsa: tsa.state,
    async close() {
      for (const { server, pending } of servers) {
        for (const timer of pending) clearTimeout(timer);
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      }
      await rm(dir, { recursive: true, force: true });
    },
  };
}
