/**
 * A webhook receiver on loopback for the webhook-burst benchmark, in a process of its own: answers
 * every POST with 204 at once, as a well-behaved receiver does, and counts the distinct events
 * (`webhook-id`) whose signature verifies with the webhook's secret (`standardwebhooks`, as a
 * receiver in the field checks it). Requests over IPC: `{type: 'secret', secret}` (before the
 * burst), `{type: 'reset'}`, `{type: 'count'}` → {@link ReceiverCount}.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { failToParent, tellParent } from '../lib/child.js';

export interface ReceiverCount {
  /** Distinct events with a valid signature since the last reset. */
  verified: number;
  /** Requests since the last reset (retries and duplicates included). */
  requests: number;
  /** Requests whose signature did not verify. */
  invalid: number;
}

try {
  let verifier: Webhook | undefined;
  let ids = new Set<string>();
  let requests = 0;
  let invalid = 0;
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      requests++;
      const body = Buffer.concat(chunks).toString('utf8');
      try {
        verifier!.verify(body, {
          'webhook-id': String(request.headers['webhook-id']),
          'webhook-timestamp': String(request.headers['webhook-timestamp']),
          'webhook-signature': String(request.headers['webhook-signature']),
        });
        ids.add(String(request.headers['webhook-id']));
      } catch {
        invalid++;
      }
      response.writeHead(204);
      response.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  process.on('message', (message: { type?: string; id?: number; secret?: string }) => {
    if (message.type === 'stop') {
      server.closeAllConnections();
      server.close(() => process.exit(0));
      return;
    }
    if (message.type === 'secret') verifier = new Webhook(message.secret!);
    if (message.type === 'reset') {
      ids = new Set();
      requests = 0;
      invalid = 0;
    }
    const count: ReceiverCount = { verified: ids.size, requests, invalid };
    tellParent({ type: 'reply', id: message.id ?? 0, result: count });
  });
  tellParent({ type: 'ready', url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook` });
} catch (error) {
  failToParent(error);
}
