/**
 * The documents of an envelope as the envelope holds them (docs/api.md#several-documents): an
 * envelope stored before several documents reads as one, its id the envelope's; the envelope's own
 * document fields follow the first; fields keep their document through moves and carry no
 * `documentId` while there is one document; sealed PDFs are named per document, one per document
 * with `separate` output, one for all with `combined`.
 */
import { describe, expect, test } from '@jest/globals';
import { documentsOf, fieldsWithDocuments, sealedDocuments, sealedHashesOf, setDocuments } from '../../../src/lib/envelopes/documents.js';
import { newDraftEnvelope } from '../../../src/lib/envelopes/createUpload.js';
import type { Actor, EnvelopeDocument, EnvelopeRecord, Field } from '../../../src/lib/envelopes/model.js';

const actor: Actor = { userId: '0193a5b0-1f2e-7a6b-8c9d-0e1f2a3b4c5d', email: 'owner@example.com', emailVerified: true, ip: null, userAgent: null, apiKeyId: null, organizationId: 'org', role: 'owner' };
const field = (id: string, documentId?: string): Field => ({ id, recipientId: 'r', ...(documentId === undefined ? {} : { documentId }), type: 'signature', page: 1, x: 0.1, y: 0.1, width: 0.2, height: 0.1, required: true, label: null });
const added = (id: string, name: string): EnvelopeDocument => ({ id, name, order: 0, blobName: `e/${id}/${name}`, sha256: null, uploadSha256: null, pageCount: null });

function draft(): EnvelopeRecord {
  return newDraftEnvelope({ actor, documentName: 'lease.pdf', now: new Date('2026-11-29T07:00:00.000Z') }).record;
}

describe('documentsOf', () => {
  test('an envelope with no list holds one document: its own name, blob, hash and pages, the envelope\'s id', () => {
    const record = { ...draft(), documentSha256: 'a'.repeat(64), pageCount: 3 };
    expect(documentsOf(record)).toEqual([{ id: record.id, name: 'lease.pdf', order: 1, blobName: record.blobName, sha256: 'a'.repeat(64), uploadSha256: null, pageCount: 3 }]);
  });

  test('a stored list is read in order, numbered 1, 2, ...', () => {
    const record = { ...draft(), documents: [{ ...added('b', 'b.pdf'), order: 7 }, { ...added('a', 'a.pdf'), order: 2 }] };
    expect(documentsOf(record).map(({ id, order }) => [id, order])).toEqual([['a', 1], ['b', 2]]);
  });
});

describe('setDocuments', () => {
  test('the envelope\'s own fields follow the first; fields keep their document through a move; one document left: no documentId stored', () => {
    const record = draft();
    record.fields = [field('f1')];
    setDocuments(record, [...documentsOf(record), added('d2', 'annex.pdf')]);
    expect(record.fields).toEqual([field('f1', record.id)]);
    record.fields.push(field('f2', 'd2'));
    setDocuments(record, [documentsOf(record)[1]!, documentsOf(record)[0]!]);
    expect(record).toMatchObject({ documentName: 'annex.pdf', blobName: 'e/d2/annex.pdf' });
    expect(record.fields.map((entry) => entry.documentId)).toEqual([record.id, 'd2']);
    expect(fieldsWithDocuments(record).map((entry) => entry.documentId)).toEqual([record.id, 'd2']);
    record.fields = record.fields.filter((entry) => entry.documentId === 'd2');
    setDocuments(record, [documentsOf(record)[0]!]);
    expect(record.fields).toEqual([field('f2')]);
    expect(fieldsWithDocuments(record)).toEqual([field('f2', 'd2')]);
    // Key order is the same for every stored field: comparing them as JSON compares what they say.
    expect(Object.keys(fieldsWithDocuments(record)[0]!).slice(0, 3)).toEqual(['id', 'recipientId', 'documentId']);
  });
});

describe('sealedDocuments', () => {
  const completed = (output?: 'combined'): EnvelopeRecord => {
    const record = draft();
    setDocuments(record, [...documentsOf(record), added('d2', 'annex.pdf')]);
    return { ...record, status: 'completed', hash: '1'.repeat(64), sealedHashes: output === 'combined' ? ['1'.repeat(64)] : ['1'.repeat(64), '2'.repeat(64)], ...(output === undefined ? {} : { output }) };
  };

  test('separate: each document its own sealed PDF, under its own blob name', () => {
    const record = completed();
    expect(sealedDocuments(record).map(({ document, hash, blobName }) => [document.id, hash, blobName])).toEqual([
      [record.id, '1'.repeat(64), record.blobName],
      ['d2', '2'.repeat(64), 'e/d2/annex.pdf'],
    ]);
    expect(sealedHashesOf(record)).toEqual(['1'.repeat(64), '2'.repeat(64)]);
  });

  test('combined: every document the one PDF, under the first document\'s blob name', () => {
    const record = completed('combined');
    expect(sealedDocuments(record).map(({ hash, blobName }) => [hash, blobName])).toEqual([
      ['1'.repeat(64), record.blobName],
      ['1'.repeat(64), record.blobName],
    ]);
  });

  test('an envelope completed before sealed hashes were listed: its one hash', () => {
    const record = { ...draft(), status: 'completed' as const, hash: '3'.repeat(64) };
    expect(sealedHashesOf(record)).toEqual(['3'.repeat(64)]);
    expect(sealedDocuments(record)).toEqual([{ document: documentsOf(record)[0], hash: '3'.repeat(64), blobName: record.blobName }]);
  });
});
