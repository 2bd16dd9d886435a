/**
 * The chained audit trail (docs/api.md#chained-audit-trail), over real HTTP and Azurite: every event's
 * `hash` recomputed here with a canonical JSON written in this file from RFC 8785 (not the service's);
 * one linear chain however many recipients act at once; envelopes whose events were recorded before
 * the chain hashed on first read without a recorded field changing; `audit.json` sealed into the PDF
 * (qpdf lists and extracts it, pdfsig still finds the seal valid over the whole file) and its head on
 * the certificate.
 */
import { createHash } from 'node:crypto';
import { describe, expect, test } from '@jest/globals';
import { getServices } from '../../src/lib/services.js';
import { Change, commitChange } from '../../src/lib/envelopes/change.js';
import { SYSTEM_ACTOR } from '../../src/lib/envelopes/model.js';
import { EnvelopeChangedError, invertId } from '../../src/lib/storage/envelopeRepository.js';
import { corpusPdf, createEnvelopeWithDocument, serviceForFile, type ApiClient, type ApiResponse, type TestUser } from '../support/service.js';
import { emailsDispatched, sentEnvelope, signingTokenFor } from '../support/signing.js';
import { tempFile, tool } from '../support/tools.js';

let api: ApiClient;
let owner: TestUser;
serviceForFile((started) => ({ api, owner } = started));

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Event = { sequence: number; type: string; prevHash: string; hash: string; details: Record<string, Json> } & Record<string, Json>;

// --- RFC 8785 (JSON Canonicalization Scheme), for the values audit events hold ---

/** RFC 8785 §3.2.2.2: a string as ECMAScript's JSON.stringify writes it, spelled out here. */
function canonicalString(text: string): string {
  let out = '"';
  for (let index = 0; index < text.length; index++) {
    const unit = text.charCodeAt(index);
    if (unit >= 0xd800 && unit <= 0xdbff) {
      const next = text.charCodeAt(index + 1);
      if (!(next >= 0xdc00 && next <= 0xdfff)) throw new Error('lone surrogate');
      out += text[index]! + text[index + 1]!;
      index++;
      continue;
    }
    if (unit >= 0xdc00 && unit <= 0xdfff) throw new Error('lone surrogate');
    const short: Record<number, string> = { 0x08: '\\b', 0x09: '\\t', 0x0a: '\\n', 0x0c: '\\f', 0x0d: '\\r', 0x22: '\\"', 0x5c: '\\\\' };
    if (short[unit] !== undefined) out += short[unit];
    else if (unit < 0x20) out += `\\u${unit.toString(16).padStart(4, '0')}`;
    else out += text[index]!;
  }
  return `${out}"`;
}

/** RFC 8785 §3.2.2.3: numbers as ECMAScript's Number.prototype.toString writes them (−0 as 0). */
function canonicalNumber(value: number): string {
  if (!Number.isFinite(value)) throw new Error('not a JSON number');
  return Object.is(value, -0) ? '0' : String(value);
}

/** RFC 8785 §3.2: no white space; object members sorted by their names' UTF-16 code units (§3.2.3). */
function canonical(value: Json): string {
  if (value === null) return 'null';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number') return canonicalNumber(value);
  if (typeof value === 'string') return canonicalString(value);
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  const names = Object.keys(value).sort((a, b) => {
    for (let index = 0; index < Math.min(a.length, b.length); index++) {
      const difference = a.charCodeAt(index) - b.charCodeAt(index);
      if (difference !== 0) return difference;
    }
    return a.length - b.length;
  });
  return `{${names.map((name) => `${canonicalString(name)}:${canonical(value[name]!)}`).join(',')}}`;
}

const sha256 = (data: string | Uint8Array): string => createHash('sha256').update(data).digest('hex');

/**
 * Checks the chain of `events` from the envelope's start as docs/api.md#chained-audit-trail defines
 * it, with the canonical form above: `sequence` 1, 2, 3, ...; the first `prevHash` the SHA-256 of the
 * id; each `prevHash` the previous `hash`; each `hash` the SHA-256 of the event less `hash`.
 * @returns the last hash (the head)
 */
function verifyChain(envelopeId: string, events: readonly Event[]): string {
  let previous = sha256(Buffer.from(envelopeId, 'utf8'));
  events.forEach((event, index) => {
    const { hash, ...rest } = event;
    expect(event.sequence).toBe(index + 1);
    expect(event.prevHash).toBe(previous);
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    expect(sha256(Buffer.from(canonical(rest as unknown as Json), 'utf8'))).toBe(hash);
    previous = hash;
  });
  return previous;
}

async function audit(id: string): Promise<Event[]> {
  const response = await api.request('GET', `/envelopes/${id}/audit`, { token: owner.token });
  expect(response.status).toBe(200);
  return response.body as Event[];
}

const sign = async (id: string, email: string): Promise<ApiResponse<any>> =>
  api.request('POST', '/signing/complete', { token: await signingTokenFor(owner.userId, id, email), json: { consent: true } });

/** The sealed PDF of a completed envelope, in a file, with its bytes. */
async function sealedFile(signedUrl: string): Promise<{ file: string; bytes: Buffer }> {
  const bytes = Buffer.from(await (await fetch(signedUrl)).arrayBuffer());
  return { file: await tempFile(bytes, 'sealed.pdf'), bytes };
}

/** One object of qpdf's JSON (version 2): its value, or its stream's dictionary. */
function qpdfObject(objects: Record<string, { value?: unknown; stream?: { dict: Record<string, unknown> } }>, ref: unknown): Record<string, unknown> {
  const entry = typeof ref === 'string' ? objects[`obj:${ref}`] : undefined;
  if (entry === undefined) return ref as Record<string, unknown>;
  return (entry.stream?.dict ?? entry.value) as Record<string, unknown>;
}

/**
 * Checks the sealed file's `audit.json` (docs/api.md#chained-audit-trail): listed and extracted by
 * qpdf, an associated file of the catalog with `/AFRelationship /Supplement`, `application/json`,
 * its size and MD5 checksum in `/Params`; the seal still valid over the whole file.
 * @returns the events it holds, its bytes
 */
async function embeddedAuditTrail(file: string): Promise<{ events: Event[]; bytes: Buffer }> {
  expect((await tool('qpdf', ['--list-attachments', file])).stdout).toMatch(/^audit\.json -> /m);
  const shown = await tool('qpdf', ['--show-attachment=audit.json', file]);
  expect(shown.code).toBe(0);
  const bytes = Buffer.from(shown.stdout, 'utf8');

  const json = JSON.parse((await tool('qpdf', ['--json=2', '--json-key=qpdf', file])).stdout) as { qpdf: [unknown, Record<string, { value?: unknown; stream?: { dict: Record<string, unknown> } }>] };
  const objects = json.qpdf[1];
  const trailer = objects.trailer!.value as Record<string, unknown>;
  const catalog = qpdfObject(objects, trailer['/Root']);
  const associated = qpdfObject(objects, catalog['/AF']) as unknown as string[];
  expect(associated).toHaveLength(1);
  const fileSpec = qpdfObject(objects, associated[0]);
  expect(fileSpec['/AFRelationship']).toBe('/Supplement');
  expect(fileSpec['/UF']).toBe('u:audit.json');
  const stream = qpdfObject(objects, (qpdfObject(objects, fileSpec['/EF']) as Record<string, unknown>)['/F']);
  expect(stream['/Type']).toBe('/EmbeddedFile');
  const params = qpdfObject(objects, stream['/Params']);
  expect(params['/Size']).toBe(bytes.byteLength);
  // The MIME type and the MD5 checksum of /Params, as qpdf reads them.
  const listing = (await tool('qpdf', ['--list-attachments', '--verbose', file])).stdout;
  expect(listing).toMatch(/mime type: application\/json$/m);
  expect(listing).toMatch(new RegExp(`checksum: ${createHash('md5').update(bytes).digest('hex')}$`, 'mi'));
  // Listed in the name tree the readers list attachments from, naming the same file specification.
  const names = qpdfObject(objects, qpdfObject(objects, catalog['/Names'])['/EmbeddedFiles'])['/Names'] as unknown[];
  expect(names).toEqual(['u:audit.json', associated[0]]);

  const signatures = (await tool('pdfsig', ['-nocert', file])).stdout;
  expect(signatures).toContain('Signature is Valid.');
  expect(signatures).toContain('Total document signed');
  return { events: JSON.parse(bytes.toString('utf8')) as Event[], bytes };
}

describe('the canonical form this file checks with', () => {
  test('is RFC 8785\'s own example (Appendix B and §3.2.3)', () => {
    const input = JSON.parse('{"numbers":[333333333.33333329,1E30,4.50,2e-3,0.000000000000000000000000001],"string":"\\u20ac$\\u000F\\u000aA\'\\u0042\\u0022\\u005c\\\\\\"\\/","literals":[null,true,false]}') as Json;
    expect(canonical(input)).toBe('{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\\u000f\\nA\'B\\"\\\\\\\\\\"/"}');
    expect(canonical({ '\u20ac': 'Euro Sign', '\r': 'Carriage Return', '\ufb33': 'Hebrew Letter Dalet With Dagesh', '1': 'One', '\ud83d\ude00': 'Emoji: Grinning Face', '\u0080': 'Control', '\u00f6': 'Latin Small Letter O With Diaeresis' })).toBe(
      '{"\\r":"Carriage Return","1":"One","\u0080":"Control","\u00f6":"Latin Small Letter O With Diaeresis","\u20ac":"Euro Sign","\ud83d\ude00":"Emoji: Grinning Face","\ufb33":"Hebrew Letter Dalet With Dagesh"}',
    );
  });
});

describe('chained audit trail (docs/api.md#chained-audit-trail)', () => {
  test("a whole envelope's life is one chain; audit.json under the seal is every event before envelope.completed; the certificate prints its head", async () => {
    const { id } = await sentEnvelope(api, owner, { signers: [{ email: 'chain-ada@example.com', name: 'Ada' }, { email: 'chain-bea@example.com', name: 'Bea' }], settings: { remindEveryDays: 3 } });
    expect((await sign(id, 'chain-ada@example.com')).status).toBe(200);
    const last = await sign(id, 'chain-bea@example.com');
    expect(last.status).toBe(200);
    expect(last.body.envelope.status).toBe('completed');
    const sealedHash = ((await api.request('GET', `/envelopes/${id}`, { token: owner.token })).body as { hash: string }).hash;

    const events = await audit(id);
    expect(events.map((event) => event.type)).toEqual(expect.arrayContaining(['envelope.created', 'envelope.sent', 'recipient.invited', 'envelope.settings_changed', 'recipient.signed', 'envelope.completed']));
    const head = verifyChain(id, events);
    const completed = events.at(-1)!;
    expect(completed.type).toBe('envelope.completed');
    const before = events.slice(0, -1);
    const auditHead = before.at(-1)!.hash;
    expect(completed.details).toEqual({ originalSha256: expect.stringMatching(/^[0-9a-f]{64}$/), sealedSha256: sealedHash, auditHead });
    expect(completed.prevHash).toBe(auditHead);
    expect(head).toBe(completed.hash);
    // A second read shows the very same events: nothing is computed anew.
    expect(await audit(id)).toEqual(events);

    const { file, bytes } = await sealedFile(last.body.signedUrl);
    expect(sha256(bytes)).toBe(sealedHash);
    const embedded = await embeddedAuditTrail(file);
    // The events exactly as the audit API gives them, in its JSON, and a chain that verifies to the head.
    expect(embedded.events).toEqual(before);
    expect(sha256(embedded.bytes)).toBe(sha256(Buffer.from(JSON.stringify(before), 'utf8')));
    expect(verifyChain(id, embedded.events)).toBe(auditHead);

    const text = (await tool('pdftotext', [file, '-'])).stdout.replace(/\s/g, '');
    expect(text).toContain(`Audittrailhead${auditHead}`);
  });

  test('many recipients acting at once leave one linear chain: no two events name the same previous event', async () => {
    const signers = Array.from({ length: 8 }, (_, index) => ({ email: `chain-many-${index}@example.com`, name: `Many ${index}` }));
    const { id } = await sentEnvelope(api, owner, { signers });
    const answers = await Promise.all(signers.map(async (signer) => await sign(id, signer.email)));
    expect(answers.map((answer) => answer.status)).toEqual(signers.map(() => 200));

    const events = await audit(id);
    verifyChain(id, events);
    expect(new Set(events.map((event) => event.prevHash)).size).toBe(events.length);
    expect(events.filter((event) => event.type === 'recipient.signed')).toHaveLength(signers.length);
    expect(events.filter((event) => event.type === 'envelope.completed')).toHaveLength(1);
    const sealed = (await api.request('GET', `/envelopes/${id}`, { token: owner.token })).body as { signedUrl: string };
    const { events: embedded } = await embeddedAuditTrail((await sealedFile(sealed.signedUrl)).file);
    expect(embedded).toEqual(events.slice(0, -1));
  });

  test('two changes from the same read of the envelope: exactly one commits, the other must read again', async () => {
    const services = getServices();
    const id = await createEnvelopeWithDocument(api, owner, await corpusPdf('normal.pdf'));
    const stored = (await services.envelopes.read(owner.userId, id))!;
    const changes = [1, 2].map((days) => {
      const change = new Change(stored.record, new Date());
      change.record.remindEveryDays = days;
      change.event('envelope.settings_changed', SYSTEM_ACTOR, { remindEveryDays: days });
      return change;
    });
    const outcomes = await Promise.allSettled(changes.map(async (change) => await commitChange(services, stored, change)));
    expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(1);
    const lost = outcomes.find((outcome) => outcome.status === 'rejected');
    expect(lost?.status === 'rejected' ? lost.reason : null).toBeInstanceOf(EnvelopeChangedError);
    const events = await audit(id);
    expect(events).toHaveLength(2);
    verifyChain(id, events);
    expect((await services.envelopes.read(owner.userId, id))!.record.auditHead).toBe(events[1]!.hash);
  });

  test('events recorded before the chain get their hashes on first read, in order, nothing recorded changed; readers and a change at once agree on one chain', async () => {
    const services = getServices();
    const table = services.storage.tables.envelopes;
    const people = ['chain-old-a', 'chain-old-b', 'chain-old-c'].map((name) => ({ email: `${name}@example.com`, name }));
    const { id } = await sentEnvelope(api, owner, { signers: people });
    expect((await sign(id, people[0]!.email)).status).toBe(200);
    const live = await audit(id);
    verifyChain(id, live);

    // The rows as the code before the chain wrote them: the envelope without `auditHead`, its events
    // without `organizationId`, `prevHash` or `hash`; the first row of the oldest form (one event in
    // properties of its own, no actor address).
    // Nothing else writes the envelope meanwhile: its invitations have left the outbox.
    await emailsDispatched(owner.userId, id);
    const envelopeRow = await table.getEntity<Record<string, unknown>>(owner.userId, `envelope_${invertId(id)}`);
    const { auditHead: _head, etag, timestamp: _timestamp, ...oldEnvelope } = envelopeRow;
    await table.updateEntity(oldEnvelope as { partitionKey: string; rowKey: string }, 'Replace', { etag });
    const rows: { rowKey: string; events: Record<string, Json>[] }[] = [];
    for await (const row of table.listEntities<{ events: string }>({ queryOptions: { filter: `PartitionKey eq '${owner.userId}' and RowKey gt 'event_${id}_' and RowKey lt 'event_${id}_~'` } })) {
      rows.push({ rowKey: row.rowKey!, events: JSON.parse(row.events) as Record<string, Json>[] });
    }
    expect(rows.length).toBeGreaterThan(2);
    for (const [index, row] of rows.entries()) {
      const events = row.events.map(({ organizationId: _organization, prevHash: _prev, hash: _hash, ...event }) => event);
      if (index === 0) {
        const [created] = events as [Record<string, Json> & { details: Json }];
        const oldest: { partitionKey: string; rowKey: string } & Record<string, string | number> = {
          partitionKey: owner.userId,
          rowKey: row.rowKey,
          envelopeId: id,
          sequence: created.sequence as number,
          type: created.type as string,
          at: created.at as string,
          actorId: created.actorId as string,
          details: JSON.stringify(created.details),
        };
        if (created.ip !== null) oldest.ip = created.ip as string;
        if (created.userAgent !== null) oldest.userAgent = created.userAgent as string;
        await table.updateEntity(oldest, 'Replace');
      } else {
        await table.updateEntity({ partitionKey: owner.userId, rowKey: row.rowKey, envelopeId: id, sequence: events[0]!.sequence as number, count: events.length, events: JSON.stringify(events) }, 'Replace');
      }
    }
    expect((await services.envelopes.read(owner.userId, id))!.record.auditHead).toBeUndefined();
    expect((await services.envelopes.events(owner.userId, id)).some((event) => event.hash !== undefined)).toBe(false);

    // Three readers and the next signer at once.
    const [first, second, third, signed] = await Promise.all([audit(id), audit(id), audit(id), sign(id, people[1]!.email)]);
    expect(signed.status).toBe(200);
    for (const read of [first, second, third]) {
      // Each reader saw a prefix of the one chain: the events recorded before, exactly as shown live.
      expect(read.slice(0, live.length)).toEqual(live);
      verifyChain(id, read);
    }
    const after = await audit(id);
    expect(after.slice(0, live.length)).toEqual(live);
    expect(after.length).toBeGreaterThan(live.length);
    verifyChain(id, after);
    // Stored with their hashes now, and the envelope keeps the head again.
    expect((await services.envelopes.events(owner.userId, id)).every((event) => typeof event.hash === 'string')).toBe(true);
    expect((await services.envelopes.read(owner.userId, id))!.record.auditHead).toBe(after.at(-1)!.hash);

    // The completion seals the whole chain, the hashed old events included.
    const last = await sign(id, people[2]!.email);
    expect(last.body.envelope.status).toBe('completed');
    const final = await audit(id);
    verifyChain(id, final);
    const { events: embedded } = await embeddedAuditTrail((await sealedFile(last.body.signedUrl)).file);
    expect(embedded).toEqual(final.slice(0, -1));
  });
});
