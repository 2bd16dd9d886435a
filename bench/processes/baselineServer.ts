/**
 * The hot-read baseline: a bare `node:http` server that does only the Table point read the service
 * does for `GET /api/envelopes/{id}` (same table, same row, same Azurite, same SDK client settings)
 * and answers with the entity as JSON. No routing, no token, no user lookup, no SAS, no view.
 *
 * Argv: ownerId envelopeId. The envelope's row is located once at start.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { TableClient, odata } from '@azure/data-tables';
import { TABLES } from '../../src/lib/storage/clients.js';
import { failToParent, tellParent } from '../lib/child.js';

try {
  const [ownerId, envelopeId] = process.argv.slice(2);
  if (ownerId === undefined || envelopeId === undefined) throw new Error('usage: baselineServer.js <ownerId> <envelopeId>');
  const table = TableClient.fromConnectionString(process.env.STORAGE_CONNECTION_STRING!, TABLES.envelopes, { allowInsecureConnection: true });
  let rowKey: string | undefined;
  const filter = odata`PartitionKey eq ${ownerId} and id eq ${envelopeId} and RowKey ge ${'envelope_'} and RowKey lt ${'envelope_~'}`;
  for await (const entity of table.listEntities({ queryOptions: { filter } })) rowKey = entity.rowKey;
  if (rowKey === undefined) throw new Error(`envelope ${envelopeId} not found`);
  const key = rowKey;

  const server = http.createServer((_request, response) => {
    table.getEntity(ownerId, key).then(
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
