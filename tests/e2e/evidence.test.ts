/**
 * Evidence that holds up (docs/api.md#what-completion-does step 2, docs/api.md#evidence): the audit trail over HTTP, the certificate of
 * completion inside the sealed PDF, trusted timestamps from an RFC 3161 authority, and verification by
 * hash.
 */
import { createHash, randomUUID } from 'node:crypto';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { resetConfig } from '../../src/lib/config.js';
import { resetServices } from '../../src/lib/services.js';
import { corpusPdf, createEnvelopeWithDocument, expectProblem, putToSas, serviceForFile, type TestService, type TestUser } from '../support/service.js';
import { waitForEmails } from '../support/mail.js';
import { organizationIdOf } from '../support/organizations.js';
import { auditTrail, sentEnvelope, signingTokenFor } from '../support/signing.js';
import { startTimestampAuthority, type TimestampAuthority } from '../support/timestampAuthority.js';
import { tempFile, tool } from '../support/tools.js';

let env: TestService;
let user: TestUser;
serviceForFile((started) => ({ env, owner: user } = started));

const agent = { 'User-Agent': 'evidence-test/1.0', 'X-Forwarded-For': '198.51.100.23:5123' };

async function sealedText(signedUrl: string): Promise<{ file: string; text: string; bytes: Buffer }> {
  const bytes = Buffer.from(await (await fetch(signedUrl)).arrayBuffer());
  const file = await tempFile(bytes);
  return { file, bytes, text: (await tool('pdftotext', [file, '-'])).stdout };
}

describe('audit trail', () => {
  test('upload, two signer changes and complete give exactly those four events, in order, with who and from where', async () => {
    const ticket = await env.api.request('POST', '/GetUploadUrl', { token: user.token, headers: agent, json: { filename: 'lease.pdf', mimetype: 'application/pdf' } });
    const id = ticket.body.envelopeId as string;
    expect((await putToSas(ticket.body.uploadUrl, await corpusPdf('normal.pdf'))).status).toBe(201);
    const first = await env.api.request('PUT', `/envelopes/${id}`, { token: user.token, headers: agent, json: { signers: [{ email: 'a@example.com', name: 'A' }] } });
    const aId = first.body.signers[0].id as string;
    const second = await env.api.request('PATCH', `/envelopes/${id}`, {
      token: user.token,
      headers: agent,
      json: { signers: [{ id: aId, email: 'a@example.com', name: 'A' }, { email: 'b@example.com', name: 'B', role: 'approver' }] },
    });
    const bId = second.body.signers[1].id as string;
    // Refused requests leave no event.
    expect((await env.api.request('PUT', `/envelopes/${id}`, { token: user.token, json: { status: 'completed' } })).status).toBe(409);
    expect((await env.api.request('PUT', `/envelopes/${id}`, { token: user.token, json: { signers: [{ email: 'bad' }] } })).status).toBe(400);
    const completed = await env.api.request('POST', `/envelopes/${id}/complete`, { token: user.token, headers: agent });
    expect(completed.status).toBe(200);
    // Repeating a complete is not a change and leaves no event.
    expect((await env.api.request('POST', `/envelopes/${id}/complete`, { token: user.token })).status).toBe(200);

    const audit = await env.api.request('GET', `/envelopes/${id}/audit`, { token: user.token });
    expect(audit.status).toBe(200);
    const events = audit.body as Record<string, unknown>[];
    // The IP is the last X-Forwarded-For entry, the one the front end (here the local host) appends;
    // what the client itself sent (198.51.100.23) is not trusted.
    const common = { actorId: user.userId, actorEmail: user.email, ip: '127.0.0.1', userAgent: 'evidence-test/1.0', apiKeyId: null, organizationId: await organizationIdOf(user), at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/) };
    const original = createHash('sha256').update(await corpusPdf('normal.pdf')).digest('hex');
    // Each event names the one before it; the first, the SHA-256 of the envelope id (docs/api.md#chained-audit-trail).
    const chain = (index: number) => ({ prevHash: index === 0 ? createHash('sha256').update(id, 'utf8').digest('hex') : events[index - 1]!.hash, hash: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(events).toEqual([
      { sequence: 1, type: 'envelope.created', ...common, ...chain(0), details: { documentName: 'lease.pdf', blobName: `${id}/lease.pdf` } },
      { sequence: 2, type: 'envelope.signers_replaced', ...common, ...chain(1), details: { added: [{ id: aId, email: 'a@example.com' }], removed: [] } },
      { sequence: 3, type: 'envelope.signers_replaced', ...common, ...chain(2), details: { added: [{ id: bId, email: 'b@example.com' }], removed: [] } },
      { sequence: 4, type: 'envelope.completed', ...common, ...chain(3), details: { originalSha256: original, sealedSha256: completed.body.hash, auditHead: events[2]!.hash } },
    ]);
    const times = events.map((event) => Date.parse(event.at as string));
    expect([...times].sort((a, b) => a - b)).toEqual(times);
  });

  test('without X-Forwarded-For and User-Agent the event says null', async () => {
    // The local host always appends the peer address, as Azure's front end does; the user agent can be absent.
    const ticket = await env.api.request('POST', '/GetUploadUrl', { token: user.token, headers: { 'User-Agent': '' }, json: { filename: 'x.pdf', mimetype: 'application/pdf' } });
    const events = (await env.api.request('GET', `/envelopes/${ticket.body.envelopeId}/audit`, { token: user.token })).body as { ip: string | null; userAgent: string | null }[];
    expect(events[0]!.userAgent).toBeNull();
    expect(events[0]!.ip).toMatch(/^(127\.0\.0\.1|::1|::ffff:127\.0\.0\.1)$/);
  });

  test("another owner's audit trail is 404, as a missing envelope", async () => {
    const id = await createEnvelopeWithDocument(env.api, user, null);
    const stranger = await env.newUser();
    const theirs = await env.api.request('GET', `/envelopes/${id}/audit`, { token: stranger.token });
    const missing = await env.api.request('GET', '/envelopes/01a200d3-a1e6-709a-8ed4-fc8ee3c3c6df/audit', { token: stranger.token });
    expectProblem(theirs, 404);
    expect(theirs.body).toEqual(missing.body);
  });
});

describe('certificate of completion', () => {
  test('the sealed PDF shows the envelope id, document name, owner, every signer with id and role, and the original SHA-256', async () => {
    const id = await createEnvelopeWithDocument(env.api, user, await corpusPdf('with_update_sections.pdf'), 'Kaufvertrag über 3 Häuser.pdf');
    const signers = [
      { email: 'wang@example.com', name: '王小明', role: 'signer' },
      { email: 'layla@example.com', name: 'ليلى أحمد', role: 'approver' },
      { email: 'long@example.com', name: `Maximiliane ${'von und zu '.repeat(16)}Ende`, role: 'cc' },
    ];
    const updated = await env.api.request('PUT', `/envelopes/${id}`, { token: user.token, json: { signers } });
    const completed = await env.api.request('POST', `/envelopes/${id}/complete`, { token: user.token });
    expect(completed.status).toBe(200);
    const { text, file } = await sealedText(completed.body.signedUrl);
    const flat = text.replace(/\s+/g, ' ');
    expect(flat).toContain(id);
    expect(flat).toContain('Kaufvertrag über 3 Häuser.pdf');
    expect(flat).toContain(user.email);
    // The frozen document's SHA-256: this upload's scripts were removed when it was frozen, so not the upload's.
    const frozenSha256 = (await env.api.request('GET', `/envelopes/${id}`, { token: user.token })).body.documentSha256 as string;
    expect(frozenSha256).not.toBe(createHash('sha256').update(await corpusPdf('with_update_sections.pdf')).digest('hex'));
    expect(flat).toContain(frozenSha256);
    for (const signer of updated.body.signers as { id: string; email: string; role: string }[]) {
      expect(flat).toContain(signer.id);
      expect(flat).toContain(signer.email);
    }
    expect(flat).toContain('王小明');
    // Each audit event as a sentence naming its actor by e-mail (the owner made every change here).
    expect(flat.replace(/\s/g, '')).toContain(`Envelopecreatedby${user.email}`);
    expect(flat.replace(/\s/g, '')).toContain(`Recipientschangedby${user.email}:addedwang@example.com,layla@example.com,long@example.com.`);
    expect(flat.replace(/\s/g, '')).toContain('Maximiliane'.concat('vonundzu'.repeat(16), 'Ende'));
    const pages = async (path: string) => Number(/Pages:\s+(\d+)/.exec((await tool('pdfinfo', [path])).stdout)?.[1]);
    expect(await pages(file)).toBeGreaterThan(await pages(await tempFile(await corpusPdf('with_update_sections.pdf'))));
  });
});

describe('consent and a readable trail on the certificate', () => {
  test('names who did what to whom, records each consent with the disclosure version, and prints the user agent as the browser reported it, cut to 200 characters', async () => {
    const tenant = { email: `tenant-${randomUUID()}@example.com`, name: 'Tom Tenant' };
    const landlord = { email: `landlord-${randomUUID()}@example.com`, name: 'Lena Landlord' };
    const { id } = await sentEnvelope(env.api, user, { signers: [{ ...tenant, routingOrder: 1 }, { ...landlord, routingOrder: 2 }], signingOrder: 'sequential' });
    const longAgent = `Mozilla/5.0 ${'(very long browser token) '.repeat(20)}`.trim();
    const sign = async (email: string, userAgent: string) => {
      const token = await signingTokenFor(user.userId, id, email);
      const answer = await env.api.request('POST', '/signing/complete', { token, headers: { 'User-Agent': userAgent }, json: { consent: true, values: [] } });
      expect(answer.status).toBe(200);
      return answer.body;
    };
    await sign(tenant.email, 'consent-test/1.0');
    const done = await sign(landlord.email, longAgent);
    expect(done.envelope.status).toBe('completed');

    const disclosure = (await env.api.request('GET', '/disclosure')).body as { text: string; version: string };
    const events = await auditTrail(env.api, user, id);
    for (const event of events.filter((entry) => entry.type === 'recipient.signed')) expect(event.details.consent).toEqual(disclosure);

    const { text } = await sealedText(done.signedUrl);
    const flat = text.replace(/\s+/g, ' ');
    const squeezed = text.replace(/\s/g, '');
    expect(squeezed).toContain(`Invitatione-mailedto${landlord.email},after${tenant.email}signed.`.replace(/\s/g, ''));
    expect(squeezed).toContain(`${tenant.email}signed,agreeingtodosoelectronically(disclosure${disclosure.version}).`);
    expect(squeezed.split(disclosure.text.replace(/\s/g, ''))).toHaveLength(2);
    expect(squeezed.match(/Agreedtosignelectronicallyon\d{4}-\d\d-\d\d\d\d:\d\d:\d\dUTC,afterbeingshownthedisclosure(esd-[0-9a-f]{12})\./g)).toHaveLength(2);
    expect(flat).toContain('consent-test/1.0 (as reported by the browser)');
    // The long user agent: its first 199 characters and an ellipsis, no more.
    const cut = `${longAgent.slice(0, 199)}…`;
    expect(squeezed).toContain(`${cut}(asreportedbythebrowser)`.replace(/\s/g, ''));
    expect(squeezed).not.toContain(longAgent.replace(/\s/g, ''));
  });
});

describe('how the certificate says each recipient was identified', () => {
  /** Text without white space: the certificate wraps long lines wherever it may (after a hyphen too). */
  const squeeze = (text: string): string => text.replace(/\s/g, '');
  /** The token of an embedded view the owner creates for a recipient (the URL's fragment). */
  const viewToken = async (id: string, recipientId: string): Promise<string> => {
    const view = await env.api.request('POST', `/envelopes/${id}/recipients/${recipientId}/views`, { token: user.token });
    expect(view.status).toBe(201);
    return (view.body.url as string).split('#')[1]!;
  };
  const complete = (token: string) => env.api.request('POST', '/signing/complete', { token, json: { consent: true, values: [] } });

  test('by the credential each acted with (e-mailed link or owner-created view), every code it passed with its channel, and the language it was shown', async () => {
    const accessCode = 'lantern-7731';
    const unique = randomUUID();
    const viewed = { email: `viewed-${unique}@example.com`, name: 'Vera View' };
    const linked = { email: `linked-${unique}@example.com`, name: 'Liam Link', locale: 'de' };
    const coded = { email: `coded-${unique}@example.com`, name: 'Cody Code', delivery: 'embedded', authentication: { method: 'accessCode', code: accessCode } };
    const otp = { email: `otp-${unique}@example.com`, name: 'Otto Time', authentication: { method: 'emailOtp' } };
    const { id, recipientIds } = await sentEnvelope(env.api, user, { signers: [viewed, linked, coded, otp] });
    const [viewedId, linkedId, codedId, otpId] = recipientIds as [string, string, string, string];

    // An e-mail recipient who opens and signs in a view the owner created, never through its e-mailed link.
    const viewedToken = await viewToken(id, viewedId);
    expect((await env.api.request('GET', '/signing', { token: viewedToken })).status).toBe(200);
    expect((await complete(viewedToken)).status).toBe(200);
    // Its e-mailed link.
    const linkedToken = await signingTokenFor(user.userId, id, linked.email);
    expect((await env.api.request('GET', '/signing', { token: linkedToken })).status).toBe(200);
    expect((await complete(linkedToken)).status).toBe(200);
    // An embedded recipient with an access code: a wrong code, then the right one, in its view.
    const codedToken = await viewToken(id, codedId);
    expect((await env.api.request('POST', '/signing/authenticate', { token: codedToken, json: { code: 'not-the-code' } })).status).toBe(403);
    expect((await env.api.request('POST', '/signing/authenticate', { token: codedToken, json: { code: accessCode } })).status).toBe(200);
    expect((await complete(codedToken)).status).toBe(200);
    // Its e-mailed link and a one-time code e-mailed to it.
    const otpToken = await signingTokenFor(user.userId, id, otp.email);
    expect((await env.api.request('POST', '/signing/otp', { token: otpToken })).status).toBe(202);
    const [mail] = await waitForEmails(otp.email, { subject: /^Your code for / });
    const code = /\b(\d{6})\b/.exec(mail!.text)![1]!;
    expect((await env.api.request('POST', '/signing/authenticate', { token: otpToken, json: { code } })).status).toBe(200);
    const done = await complete(otpToken);
    expect(done.body.envelope.status).toBe('completed');

    // The trail records the credential of each recipient's own events, and a one-time code's channel.
    const trail = await auditTrail(env.api, user, id);
    const credentialOf = (recipientId: string) => [...new Set(trail.filter((event) => event.actorId === recipientId && event.type.startsWith('recipient.') && event.type !== 'recipient.invited').map((event) => event.details.credential))];
    expect(credentialOf(viewedId)).toEqual(['embeddedView']);
    expect(credentialOf(linkedId)).toEqual(['signingLink']);
    expect(credentialOf(codedId)).toEqual(['embeddedView']);
    expect(credentialOf(otpId)).toEqual(['signingLink']);
    expect(trail.find((event) => event.type === 'recipient.authenticated' && event.actorId === otpId)!.details).toEqual({ recipientId: otpId, method: 'emailOtp', channel: 'email', credential: 'signingLink' });
    expect(trail.find((event) => event.type === 'recipient.signed' && event.actorId === linkedId)!.details).toMatchObject({ credential: 'signingLink', locale: 'de' });

    const { text } = await sealedText(done.body.signedUrl);
    const flat = squeeze(text);
    const identified = (proofs: string, language: string) => squeeze(`Identified by ${proofs} Language ${language}`);
    expect(flat).toContain(identified('Embedded signing view created by the owner', 'English (en)'));
    expect(flat).not.toContain(squeeze(`Signing link e-mailed to ${viewed.email}`));
    expect(flat).toContain(identified(`Signing link e-mailed to ${linked.email}`, 'German (de)'));
    expect(flat).toContain(identified('Embedded signing view created by the owner; Access code', 'English (en)'));
    expect(flat).not.toContain(squeeze(`Signing link e-mailed to ${coded.email}`));
    expect(flat).toContain(identified(`Signing link e-mailed to ${otp.email}; One-time code e-mailed to ${otp.email}`, 'English (en)'));
    // The trail: the owner created the views; each recipient opened through its credential.
    expect(flat).toContain(squeeze(`Embedded signing view created for ${viewed.email} by ${user.email}.`));
    expect(flat).toContain(squeeze(`${viewed.email} opened the envelope in an embedded signing view created by the owner.`));
    expect(flat).toContain(squeeze(`${linked.email} opened the envelope with the signing link e-mailed to them.`));
    expect(flat).toContain(squeeze(`${coded.email} entered a wrong access code.`));
  });
});

describe('timestamps', () => {
  let tsa: TimestampAuthority;

  beforeAll(async () => {
    tsa = await startTimestampAuthority();
  });
  afterAll(async () => {
    await tsa.close();
    delete process.env.TSA_URL;
    delete process.env.SEAL_LEVEL;
    resetConfig();
    resetServices();
  });

  /** A timestamp authority at PAdES B-T (the levels above are tested in sealLevels.test.ts). */
  function useTsa(url: string | undefined): void {
    if (url === undefined) delete process.env.TSA_URL;
    else process.env.TSA_URL = url;
    if (url === undefined) delete process.env.SEAL_LEVEL;
    else process.env.SEAL_LEVEL = 'B-T';
    resetConfig();
    resetServices();
  }

  test('with TSA_URL the seal carries an RFC 3161 signature timestamp (PAdES B-T)', async () => {
    useTsa(tsa.url);
    const id = await createEnvelopeWithDocument(env.api, user, await corpusPdf('normal.pdf'));
    await env.api.request('PUT', `/envelopes/${id}`, { token: user.token, json: { signers: [{ email: 'a@example.com', name: 'A' }] } });
    const before = tsa.requests;
    const completed = await env.api.request('POST', `/envelopes/${id}/complete`, { token: user.token });
    expect(completed.status).toBe(200);
    expect(tsa.requests).toBe(before + 1);
    const { file } = await sealedText(completed.body.signedUrl);
    const report = (await tool('pdfsig', ['-nocert', file])).stdout;
    expect(report).toContain('Signature is Valid.');
    // pdfsig 22.12 (Debian 12) does not print timestamps, so the CMS is read with openssl; the token's
    // signature and imprint are verified with `openssl ts -verify` in tests/pdf/timestamp.test.ts.
    await tool('pdfsig', ['-nocert', '-dump', path.basename(file)], path.dirname(file));
    const cms = (await tool('openssl', ['asn1parse', '-inform', 'DER', '-in', `${file}.sig0`])).stdout;
    expect(cms).toContain(':id-smime-aa-timeStampToken');
    expect(cms).toContain(':id-smime-ct-TSTInfo');
  });

  test('a TSA that fails makes completion 503 and leaves the envelope as it was; a retry succeeds once it answers', async () => {
    const failing = await startTimestampAuthority({ failWith: 500 });
    try {
      useTsa(failing.url);
      const id = await createEnvelopeWithDocument(env.api, user, await corpusPdf('normal.pdf'));
      await env.api.request('PUT', `/envelopes/${id}`, { token: user.token, json: { signers: [{ email: 'a@example.com', name: 'A' }] } });
      const before = await env.api.request('GET', `/envelopes/${id}`, { token: user.token });
      const failed = await env.api.request('POST', `/envelopes/${id}/complete`, { token: user.token });
      expectProblem(failed, 503);
      expect(failed.headers.get('retry-after')).toMatch(/^\d+$/);
      const after = await env.api.request('GET', `/envelopes/${id}`, { token: user.token });
      expect(after.headers.get('etag')).toBe(before.headers.get('etag'));
      expect(after.body.status).toBe('draft');
      useTsa(tsa.url);
      expect((await env.api.request('POST', `/envelopes/${id}/complete`, { token: user.token })).status).toBe(200);
    } finally {
      await failing.close();
    }
  });
});

describe('verification by hash', () => {
  test('answers for a sealed PDF with exactly envelopeId, completedAt and documentName; 404 for the original and unknown hashes', async () => {
    useNoTsa();
    const original = await corpusPdf('normal.pdf');
    const id = await createEnvelopeWithDocument(env.api, user, original, 'nda.pdf');
    await env.api.request('PUT', `/envelopes/${id}`, { token: user.token, json: { signers: [{ email: 'a@example.com', name: 'A' }] } });
    const completed = await env.api.request('POST', `/envelopes/${id}/complete`, { token: user.token });
    const envelope = await env.api.request('GET', `/envelopes/${id}`, { token: user.token });

    const verified = await env.api.request('GET', `/verify/${completed.body.hash}`);
    expect(verified.status).toBe(200);
    expect(verified.body).toEqual({ envelopeId: id, completedAt: envelope.body.completedAt, documentName: 'nda.pdf' });
    expect((await env.api.request('GET', `/verify/${(completed.body.hash as string).toUpperCase()}`)).status).toBe(200);

    for (const hash of [createHash('sha256').update(original).digest('hex'), 'f'.repeat(64), 'not-a-hash', `${completed.body.hash}0`]) {
      const missing = await env.api.request('GET', `/verify/${hash}`);
      expectProblem(missing, 404);
      expect(missing.text).not.toContain(id);
    }
  });
});

function useNoTsa(): void {
  delete process.env.TSA_URL;
  delete process.env.SEAL_LEVEL;
  resetConfig();
  resetServices();
}
