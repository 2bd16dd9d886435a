/**
 * A loopback proxy in front of Azurite's Blob service that behaves as Azure Storage does for blobs
 * under a version-level immutability policy (WORM), which Azurite does not implement: a DELETE (or a
 * Set Blob Metadata) of a locked blob in container `sealed` is answered 409 with `x-ms-error-code: BlobImmutableDueToPolicy`
 * and Azure's XML error body, and a HEAD (Get Blob Properties) of it carries
 * `x-ms-immutability-policy-until-date` and `x-ms-immutability-policy-mode`, as Azure sends them.
 * Every other request goes to Azurite unchanged (the shared-key signature covers the path, not the host).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';

export interface ImmutableBlobProxy {
  /** The connection string of `connectionString`'s account with its Blob endpoint through the proxy. */
  connectionString: string;
  /** Puts every blob under `sealed/<envelopeId>/` under an immutability policy until `until`. */
  lock(envelopeId: string, until: Date): void;
  /** DELETE and Set Blob Metadata requests refused so far, by blob path. */
  refused: string[];
  close(): Promise<void>;
}

/**
 * Starts the proxy for the Azurite of `connectionString` (its `BlobEndpoint=http://host:port/<account>`).
 * @throws Error when the connection string names no http Blob endpoint
 */
export async function startImmutableBlobProxy(connectionString: string): Promise<ImmutableBlobProxy> {
  const match = /BlobEndpoint=(http:\/\/[^/;]+)(\/[^;]*)?/.exec(connectionString);
  if (match === null) throw new Error('no http BlobEndpoint in the connection string');
  const target = new URL(match[1]!);
  const locks = new Map<string, Date>();
  const refused: string[] = [];
  const lockOf = (url: string): Date | undefined => {
    const path = decodeURIComponent(new URL(url, 'http://proxy').pathname);
    const found = /^\/[^/]+\/sealed\/([^/]+)\//.exec(path);
    return found === null ? undefined : locks.get(found[1]!);
  };
  const server = http.createServer((request, response) => {
    const until = lockOf(request.url ?? '/');
    const versionQuery = new URL(request.url ?? '/', 'http://proxy').searchParams;
    // A blob DELETE (not a container or service operation), or Set Blob Metadata: refused as Azure
    // refuses them on a version under a version-level WORM policy (a Put Blob over it makes a new version).
    const refusedOperation = (request.method === 'DELETE' && !versionQuery.has('restype')) || (request.method === 'PUT' && versionQuery.get('comp') === 'metadata');
    if (until !== undefined && until.getTime() > Date.now() && refusedOperation) {
      request.resume();
      const requestId = randomUUID();
      refused.push(new URL(request.url ?? '/', 'http://proxy').pathname);
      const body =
        '\uFEFF<?xml version="1.0" encoding="utf-8"?><Error><Code>BlobImmutableDueToPolicy</Code>' +
        `<Message>This operation is not permitted as the blob is immutable due to a policy.\nRequestId:${requestId}\nTime:${new Date().toISOString().replace(/Z$/, '0000Z')}</Message></Error>`;
      response.writeHead(409, 'This operation is not permitted as the blob is immutable due to a policy.', {
        'Content-Type': 'application/xml',
        'Content-Length': Buffer.byteLength(body),
        'x-ms-error-code': 'BlobImmutableDueToPolicy',
        'x-ms-request-id': requestId,
        'x-ms-version': String(request.headers['x-ms-version'] ?? '2025-01-05'),
        Date: new Date().toUTCString(),
      });
      response.end(body);
      return;
    }
    const forwarded = http.request(
      { host: target.hostname, port: target.port, method: request.method, path: request.url, headers: request.headers },
      (answer) => {
        const headers = { ...answer.headers };
        if (until !== undefined && request.method === 'HEAD' && (answer.statusCode ?? 500) < 300) {
          headers['x-ms-immutability-policy-until-date'] = until.toUTCString();
          headers['x-ms-immutability-policy-mode'] = 'unlocked';
        }
        response.writeHead(answer.statusCode ?? 502, answer.statusMessage, headers);
        answer.pipe(response);
      },
    );
    forwarded.on('error', () => {
      response.destroy();
    });
    request.pipe(forwarded);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    connectionString: connectionString.replace(`BlobEndpoint=${match[1]!}`, `BlobEndpoint=http://127.0.0.1:${port}`),
    lock: (envelopeId, until) => {
      locks.set(envelopeId, until);
    },
    refused,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
