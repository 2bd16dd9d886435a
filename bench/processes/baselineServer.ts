/**
 * The hot-read baseline: a bare `node:http` server that does only the Table point read the service
 * does for `GET /api/envelopes/{id}` (same table, same row, same Azurite, same SDK client settings)
 * and answers with the entity as JSON. No routing, no token, no user lookup, no SAS, no view.
 *
 * `/two-reads` does the two point reads of the recipient's `GET /api/signing` one after the other:
 * the signing link's row in `signingLinks` (by the token's hash), then the envelope it names; it
 * answers both entities as JSON.
 *
 * Argv: ownerId envelopeId [tokenSha256]. The envelopes' rows are located once at start.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { TableClient, odata } from '@azure/data-tables';
import { TABLES } from '../../src/lib/storage/clients.js';
import { failToParent, tellParent } from '../lib/child.js';

try {
  const [ownerId, envelopeId, tokenSha256] = process.argv.slice(2);
  if (ownerId === undefined || envelopeId === undefined) throw new Error('usage: baselineServer.js <ownerId> <envelopeId> [tokenSha256]');
  const connectionString = process.env.STORAGE_CONNECTION_STRING!;
  const table = TableClient.fromConnectionString(connectionString, TABLES.envelopes, { allowInsecureConnection: true });
  const links = TableClient.fromConnectionString(connectionString, TABLES.signingLinks, { allowInsecureConnection: true });
  const locate = async (owner: string, id: string): Promise<string> => {
    let rowKey: string | undefined;
    const filter = odata`PartitionKey eq ${owner} and id eq ${id} and RowKey ge ${'envelope_'} and RowKey lt ${'envelope_~'}`;
    for await (const entity of table.listEntities({ queryOptions: { filter } })) rowKey = entity.rowKey;
    if (rowKey === undefined) throw new Error(`envelope ${id} not found`);
    return rowKey;
  };
  const key = await locate(ownerId, envelopeId);
  // The row of the envelope each link names, found once (the service reads it by the link's ids).
  const linkRows = new Map<string, string>();
  const readTwo = async (): Promise<unknown[]> => {
    const link = await links.getEntity<{ ownerId: string; envelopeId: string }>(tokenSha256!, 'link');
    const cacheKey = `${link.ownerId}/${link.envelopeId}`;
    let row = linkRows.get(cacheKey);
    if (row === undefined) {
      row = await locate(link.ownerId, link.envelopeId);
      linkRows.set(cacheKey, row);
    }
    return [link, await table.getEntity(link.ownerId, row)];
  };

  const server = http.createServer((request, response) => {
    const read: Promise<unknown> = request.url === '/two-reads' && tokenSha256 !== undefined ? readTwo() : table.getEntity(ownerId, key);
    read.then(
      (entity) => {
        const body = JSON.stringify(entity);
        response.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(body) });
        response.end(body);
      },
      () => {
        response.writeHead(500);
        response.end();
      },
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  process.on('message', (message: { type?: string }) => {
    if (message.type === 'stop') {
      server.closeAllConnections();
      server.close(() => process.exit(0));
    }
  });
  tellParent({ type: 'ready', url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/` });
} catch (error) {
  failToParent(error);
}
