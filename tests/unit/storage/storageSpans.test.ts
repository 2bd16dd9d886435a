/**
 * The names of storage calls' spans (docs/api.md#telemetry): the operation and the table, container or
 * queue, read from the method and URL, and nothing of the keys, the blob's name or the query.
 */
import { describe, expect, test } from '@jest/globals';
import { storageCall } from '../../../src/lib/storage/storageSpans.js';

const azurite = (port: number, rest: string) => new URL(`http://127.0.0.1:${port}/devstoreaccount1/${rest}`);
const azure = (service: string, rest: string) => new URL(`https://acct.${service}.core.windows.net/${rest}`);

describe('storageCall', () => {
  test('tables: point reads, queries, inserts, replaces, merges, deletes and transactions, on Azurite and Azure', () => {
    expect(storageCall('table', 'GET', azurite(10002, "users(PartitionKey='ada%40example.com',RowKey='user')"), '/devstoreaccount1')).toEqual({ operation: 'getEntity', collection: 'users' });
    expect(storageCall('table', 'GET', azure('table', "envelopes(PartitionKey='u1',RowKey='envelope_1')"), '/')).toEqual({ operation: 'getEntity', collection: 'envelopes' });
    expect(storageCall('table', 'GET', azure('table', "envelopes()?$filter=PartitionKey%20eq%20'u1'"), '/')).toEqual({ operation: 'listEntities', collection: 'envelopes' });
    expect(storageCall('table', 'POST', azure('table', 'envelopes'), '/')).toEqual({ operation: 'createEntity', collection: 'envelopes' });
    expect(storageCall('table', 'PUT', azure('table', "envelopes(PartitionKey='u1',RowKey='r')"), '/')).toEqual({ operation: 'replaceEntity', collection: 'envelopes' });
    expect(storageCall('table', 'PATCH', azure('table', "envelopes(PartitionKey='u1',RowKey='r')"), '/')).toEqual({ operation: 'mergeEntity', collection: 'envelopes' });
    expect(storageCall('table', 'DELETE', azure('table', "envelopes(PartitionKey='u1',RowKey='r')"), '/')).toEqual({ operation: 'deleteEntity', collection: 'envelopes' });
    expect(storageCall('table', 'POST', azurite(10002, '$batch'), '/devstoreaccount1', 'envelopes')).toEqual({ operation: 'submitTransaction', collection: 'envelopes' });
    expect(storageCall('table', 'POST', azure('table', 'Tables'), '/')).toEqual({ operation: 'createTable', collection: null });
  });

  test('blobs: the container, never the blob name', () => {
    expect(storageCall('blob', 'PUT', azurite(10000, 'sealed/0193a7b2/contract.pdf'), '/devstoreaccount1')).toEqual({ operation: 'upload', collection: 'sealed' });
    expect(storageCall('blob', 'GET', azure('blob', 'originals/e1/contract.pdf'), '/')).toEqual({ operation: 'download', collection: 'originals' });
    expect(storageCall('blob', 'HEAD', azure('blob', 'sealed/e1/contract.pdf'), '/')).toEqual({ operation: 'getProperties', collection: 'sealed' });
    expect(storageCall('blob', 'PUT', azure('blob', 'sealed/e1/contract.pdf?comp=metadata'), '/')).toEqual({ operation: 'setMetadata', collection: 'sealed' });
    expect(storageCall('blob', 'PUT', azure('blob', 'documents?restype=container'), '/')).toEqual({ operation: 'createContainer', collection: 'documents' });
    expect(storageCall('blob', 'GET', azure('blob', 'documents?restype=container&comp=list&prefix=e1'), '/')).toEqual({ operation: 'listBlobs', collection: 'documents' });
    expect(storageCall('blob', 'POST', azure('blob', '?restype=service&comp=userdelegationkey'), '/')).toEqual({ operation: 'getUserDelegationKey', collection: null });
  });

  test('queues: send, receive, peek, update and delete messages', () => {
    expect(storageCall('queue', 'POST', azurite(10001, 'outbox-email/messages'), '/devstoreaccount1')).toEqual({ operation: 'sendMessage', collection: 'outbox-email' });
    expect(storageCall('queue', 'GET', azure('queue', 'outbox-email/messages?numofmessages=1'), '/')).toEqual({ operation: 'receiveMessages', collection: 'outbox-email' });
    expect(storageCall('queue', 'GET', azure('queue', 'outbox-email/messages?peekonly=true'), '/')).toEqual({ operation: 'peekMessages', collection: 'outbox-email' });
    expect(storageCall('queue', 'PUT', azure('queue', 'outbox-email/messages/m1?popreceipt=x&visibilitytimeout=60'), '/')).toEqual({ operation: 'updateMessage', collection: 'outbox-email' });
    expect(storageCall('queue', 'DELETE', azure('queue', 'outbox-email/messages/m1?popreceipt=x'), '/')).toEqual({ operation: 'deleteMessage', collection: 'outbox-email' });
    expect(storageCall('queue', 'PUT', azure('queue', 'outbox-email-poison'), '/')).toEqual({ operation: 'createQueue', collection: 'outbox-email-poison' });
  });
});
