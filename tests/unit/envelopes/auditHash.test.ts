/**
 * The hashes of the chained audit trail (docs/api.md#chained-audit-trail), against canonical JSON
 * written out by hand here.
 */
import { createHash } from 'node:crypto';
import { describe, expect, test } from '@jest/globals';
import { auditEventHash, chainEvents, chainStart } from '../../../src/lib/envelopes/auditHash.js';
import type { AuditEvent } from '../../../src/lib/envelopes/model.js';

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
const id = '0193a5b2-7c1e-7d3f-9a41-3f1c2b9e8d70';
const event: AuditEvent = { sequence: 1, type: 'envelope.created', at: '2026-11-22T10:15:30.123Z', actorId: 'u1', actorEmail: 'ö@example.com', ip: null, userAgent: 'curl/8.5.0', apiKeyId: null, details: { documentName: 'Lease "A".pdf', blobName: `${id}/a.pdf` } };

describe('chained audit trail hashes', () => {
  test("the first prevHash is the SHA-256 of the envelope id's UTF-8 text", () => {
    expect(chainStart(id)).toBe(sha256(id));
    expect(chainStart(id)).toMatch(/^[0-9a-f]{64}$/);
  });

  test('an event hashes as its RFC 8785 form: keys sorted, no white space, non-ASCII as it is', () => {
    const [chained] = chainEvents([event], 'org-1', chainStart(id));
    const canonical =
      `{"actorEmail":"ö@example.com","actorId":"u1","apiKeyId":null,"at":"2026-11-22T10:15:30.123Z","details":{"blobName":"${id}/a.pdf","documentName":"Lease \\"A\\".pdf"},` +
      `"ip":null,"organizationId":"org-1","prevHash":"${sha256(id)}","sequence":1,"type":"envelope.created","userAgent":"curl/8.5.0"}`;
    expect(chained).toEqual({ ...event, organizationId: 'org-1', prevHash: sha256(id), hash: sha256(canonical) });
    const { hash: _hash, ...shown } = chained!;
    expect(auditEventHash(shown)).toBe(chained!.hash);
  });

  test('each event names the one before; what is hashed is what is stored (user agent cut to 1024, undefined dropped)', () => {
    const second: AuditEvent = { ...event, sequence: 2, type: 'recipient.opened', userAgent: 'u'.repeat(2000), details: { recipientId: 'r1', locale: undefined } };
    const [first, next] = chainEvents([event, second], 'org-1', chainStart(id));
    expect(next!.prevHash).toBe(first!.hash);
    expect(next!.userAgent).toHaveLength(1024);
    expect(next!.details).toEqual({ recipientId: 'r1' });
    expect(Object.keys(next!.details)).toEqual(['recipientId']);
    const { hash, ...shown } = next!;
    expect(auditEventHash(JSON.parse(JSON.stringify(shown)))).toBe(hash);
  });

  test('an event that records its organisation keeps it', () => {
    const [chained] = chainEvents([{ ...event, organizationId: 'recorded' }], 'other', chainStart(id));
    expect(chained!.organizationId).toBe('recorded');
  });
});
