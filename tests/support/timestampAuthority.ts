/**
 * A real RFC 3161 timestamp authority on loopback, for tests: a node:http server that answers
 * `application/timestamp-query` requests with `openssl ts -reply`, signing with a throwaway CA and
 * TSA certificate that it generates with openssl into a temporary folder. It can also answer every
 * request with an HTTP error, or never answer, to test a failing TSA.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface TimestampAuthority {
  /** `http://127.0.0.1:<port>/tsr` */
  url: string;
  /** PEM file of the CA that issued the TSA certificate (for `openssl ts -verify -CAfile`). */
  caFile: string;
  /** PEM file of the TSA's signing certificate. */
  tsaCertificateFile: string;
  /** Timestamp requests received so far (those refused for their media type aside). */
  readonly requests: number;
  close(): Promise<void>;
}

/**
 * Starts a TSA on 127.0.0.1 with a random port.
 * @param options.failWith an HTTP status to answer every request with instead of a timestamp, or
 *   `'silence'` to read requests and never answer them (until `close()`)
 */
export async function startTimestampAuthority(options: { failWith?: number | 'silence' } = {}): Promise<TimestampAuthority> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'test-tsa-'));
  const file = (name: string): string => path.join(dir, name);
  const openssl = async (...args: string[]): Promise<void> => {
    await run('openssl', args, { cwd: dir });
  };
  await openssl('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', file('ca.key'), '-out', file('ca.crt'), '-days', '2',
    '-subj', '/CN=Test Timestamp CA', '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign');
  await openssl('req', '-newkey', 'rsa:2048', '-nodes', '-keyout', file('tsa.key'), '-out', file('tsa.csr'), '-subj', '/CN=Test Timestamp Authority');
  await writeFile(file('tsa.ext'), 'basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature,nonRepudiation\nextendedKeyUsage=critical,timeStamping\n');
  await openssl('x509', '-req', '-in', file('tsa.csr'), '-CA', file('ca.crt'), '-CAkey', file('ca.key'), '-CAcreateserial',
    '-days', '2', '-extfile', file('tsa.ext'), '-out', file('tsa.crt'));
  const timestamp = await opensslTimestampResponder(dir, { certificateFile: file('tsa.crt'), keyFile: file('tsa.key'), chainFile: file('ca.crt') });

  let requests = 0;
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      if (options.failWith === 'silence') {
        requests++;
        return;
      }
      if (options.failWith !== undefined) {
        requests++;
        response.writeHead(options.failWith, { 'content-type': 'text/plain' }).end('failing on purpose');
        return;
      }
      if (request.method !== 'POST' || request.headers['content-type'] !== 'application/timestamp-query') {
        response.writeHead(415, { 'content-type': 'text/plain' }).end('expected application/timestamp-query');
        return;
      }
      requests++;
      timestamp(Buffer.concat(chunks)).then(
        (body) => response.writeHead(200, { 'content-type': 'application/timestamp-reply' }).end(body),
        (error: unknown) => response.writeHead(500, { 'content-type': 'text/plain' }).end(String(error)),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}/tsr`,
    caFile: file('ca.crt'),
    tsaCertificateFile: file('tsa.crt'),
    get requests() {
      return requests;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** A loopback URL where nothing listens (a port that was free a moment ago). */
export async function unusedLoopbackUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}/tsr`;
}

/** The signer of an {@link opensslTimestampResponder}: PEM files. */
export interface TimestampSigner {
  /** The TSA certificate (extended key usage `timeStamping`). */
  certificateFile: string;
  /** Its private key. */
  keyFile: string;
  /** The certificates each token carries besides the TSA's (its CA, or its chain up to the root). */
  chainFile: string;
}

/**
 * An RFC 3161 responder made with `openssl ts -reply`, its configuration (`tsa.cnf`, serial file
 * `tsaserial`) and each query and reply written into `dir`: SHA-256 signatures, policy 1.2.3.4.1,
 * accuracy 1 s, ordering, the TSA's name and an ESS signing-certificate-v2 identifier in each token.
 * @returns a function that answers one DER `TimeStampReq` with a DER `TimeStampResp`; calls are
 *   answered one at a time, since openssl keeps its serial number in a file. It rejects when openssl fails.
 */
export async function opensslTimestampResponder(dir: string, signer: TimestampSigner): Promise<(query: Buffer) => Promise<Buffer>> {
  const file = (name: string): string => path.join(dir, name);
  await writeFile(file('tsaserial'), '01\n');
  await writeFile(
    file('tsa.cnf'),
    [
      '[ tsa ]',
      'default_tsa = tsa_config',
      '[ tsa_config ]',
      `serial = ${file('tsaserial')}`,
      'crypto_device = builtin',
      `signer_cert = ${signer.certificateFile}`,
      `certs = ${signer.chainFile}`,
      `signer_key = ${signer.keyFile}`,
      'signer_digest = sha256',
      'default_policy = 1.2.3.4.1',
      'digests = sha256, sha384, sha512',
      'accuracy = secs:1',
      'ordering = yes',
      'tsa_name = yes',
      'ess_cert_id_chain = no',
      'ess_cert_id_alg = sha256',
      '',
    ].join('\n'),
  );
  let count = 0;
  let queue: Promise<unknown> = Promise.resolve();
  return async (query) => {
    const id = ++count;
    const reply = queue.then(async () => {
      await writeFile(file(`ts-${id}.tsq`), query);
      await run('openssl', ['ts', '-reply', '-config', file('tsa.cnf'), '-section', 'tsa_config', '-queryfile', file(`ts-${id}.tsq`), '-out', file(`ts-${id}.tsr`)], { cwd: dir });
      return await readFile(file(`ts-${id}.tsr`));
    });
    queue = reply.catch(() => undefined);
    return await reply;
  };
}
