/**
 * Webhook receivers on loopback, over real HTTP or HTTPS, behaving as receivers in the field do:
 * answering 2xx, answering slowly, failing with 500 (always, or a given number of times), redirecting, resetting the connection, or never
 * answering. Every request is recorded with its exact body and headers, so tests verify signatures
 * with the `standardwebhooks` library as a receiver would.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { patience } from './patience.js';

export type ReceiverMode =
  | { kind: 'status'; status: number }
  /** Answers the n-th request with `statuses[n]`, and every request after the last with the last status. */
  | { kind: 'sequence'; statuses: number[] }
  | { kind: 'slow'; delayMs: number; status: number }
  | { kind: 'redirect'; location: string; status?: number }
  | { kind: 'reset' }
  | { kind: 'hang' };

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  /** When the request's body was complete, epoch ms. */
  at: number;
}

export interface Receiver {
  /** `http(s)://<host>:<port>/hook`. */
  url: string;
  port: number;
  mode: ReceiverMode;
  requests: ReceivedRequest[];
  /** Resolves when `count` requests have arrived (rejects after `timeoutMs`). */
  waitForRequests(count: number, timeoutMs?: number): Promise<ReceivedRequest[]>;
  close(): Promise<void>;
}

export interface ReceiverOptions {
  /** Host name in `url` (it must resolve to 127.0.0.1 for the sender); default `127.0.0.1`. */
  hostname?: string;
  /** Serve HTTPS with this key and certificate. */
  tls?: { key: string; cert: string };
}

/** Starts a receiver on a free loopback port. */
export async function startReceiver(mode: ReceiverMode, options: ReceiverOptions = {}): Promise<Receiver> {
  const requests: ReceivedRequest[] = [];
  const sockets = new Set<Socket>();
  const waiters: { count: number; resolve: () => void }[] = [];
  const receiver: Omit<Receiver, 'url' | 'port' | 'close'> & { mode: ReceiverMode } = {
    mode,
    requests,
    waitForRequests: (count, timeoutMs = patience(30_000)) =>
      new Promise<ReceivedRequest[]>((resolve, reject) => {
        if (requests.length >= count) return resolve(requests);
        const timer = setTimeout(() => reject(new Error(`only ${requests.length} of ${count} webhook requests arrived in ${timeoutMs} ms`)), timeoutMs);
        waiters.push({
          count,
          resolve: () => {
            clearTimeout(timer);
            resolve(requests);
          },
        });
      }),
  };
  const handler: http.RequestListener = (request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      requests.push({ method: request.method ?? '', path: request.url ?? '', headers: request.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() });
      for (const waiter of waiters.filter((candidate) => requests.length >= candidate.count)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
      const current = receiver.mode;
      switch (current.kind) {
        case 'status':
          response.writeHead(current.status, { 'content-type': 'text/plain' }).end('ok');
          return;
        case 'sequence':
          response.writeHead(current.statuses[Math.min(requests.length, current.statuses.length) - 1] ?? 200, { 'content-type': 'text/plain' }).end('ok');
          return;
        case 'slow':
          setTimeout(() => response.writeHead(current.status).end(), current.delayMs);
          return;
        case 'redirect':
          response.writeHead(current.status ?? 302, { location: current.location }).end();
          return;
        case 'reset':
          request.socket.resetAndDestroy();
          return;
        case 'hang':
          return;
      }
    });
  };
  const server = options.tls === undefined ? http.createServer(handler) : https.createServer({ key: options.tls.key, cert: options.tls.cert }, handler);
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const scheme = options.tls === undefined ? 'http' : 'https';
  return Object.assign(receiver, {
    port,
    url: `${scheme}://${options.hostname ?? '127.0.0.1'}:${port}/hook`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  });
}

/** A throwaway certificate authority and a server certificate it issued for `hostname`. */
export interface TestCertificates {
  /** PEM of the CA certificate: what a client trusts. */
  ca: string;
  key: string;
  cert: string;
}

/** Issues certificates with openssl (a CA, then a leaf for `hostname` with a DNS subjectAltName). */
export async function issueTestCertificates(hostname: string): Promise<TestCertificates> {
  const run = promisify(execFile);
  const dir = await mkdtemp(path.join(tmpdir(), 'webhook-tls-'));
  const file = (name: string) => path.join(dir, name);
  try {
    await run('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', file('ca.key'), '-out', file('ca.pem'), '-days', '1', '-subj', '/CN=Webhook Test CA', '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign']);
    await run('openssl', ['req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', file('leaf.key'), '-out', file('leaf.csr'), '-subj', `/CN=${hostname}`]);
    await run('openssl', ['x509', '-req', '-in', file('leaf.csr'), '-CA', file('ca.pem'), '-CAkey', file('ca.key'), '-CAcreateserial', '-out', file('leaf.pem'), '-days', '1', '-extfile', await extFile(dir, hostname)]);
    return { ca: await readFile(file('ca.pem'), 'utf8'), key: await readFile(file('leaf.key'), 'utf8'), cert: await readFile(file('leaf.pem'), 'utf8') };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function extFile(dir: string, hostname: string): Promise<string> {
  const { writeFile } = await import('node:fs/promises');
  const name = path.join(dir, 'leaf.ext');
  await writeFile(name, `subjectAltName=DNS:${hostname}\nextendedKeyUsage=serverAuth\n`);
  return name;
}
