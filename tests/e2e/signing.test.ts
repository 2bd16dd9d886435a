/**
 * The recipient's API (docs/api.md#sending-and-signing-order, docs/api.md#the-recipients-api) over real HTTP: signing tokens, the view, opening,
 * completing with values, declining, the order of the checks, signing order, and what is recorded.
 * Tokens come from the stored link salts (tests/support/signing.ts: a white-box shortcut until the
 * e-mail tests read them from a mailbox).
 */
import { describe, expect, test } from '@jest/globals';
import { getServices } from '../../src/lib/services.js';
import { EnvelopeChangedError } from '../../src/lib/storage/envelopeRepository.js';
import { ISO_MS, UUID } from '../support/contract.js';
import { expectProblem, expectType, serviceForFile, type ApiResponse, type TestService, type TestUser } from '../support/service.js';
import { auditTrail, outboxMessages, sentEnvelope, signingTokenFor, storedEnvelope } from '../support/signing.js';
import { ada, bob, cat, vic } from '../support/people.js';

let env: TestService;
let owner: TestUser;
serviceForFile((started) => ({ env, owner } = started));

const box = (type: string, extra: Record<string, unknown> = {}) => ({ type, page: 1, x: 0.1, y: 0.1, width: 0.3, height: 0.08, ...extra });

const signing = (method: string, path: string, token: string, json?: unknown, headers: Record<string, string> = {}): Promise<ApiResponse<any>> =>
  env.api.request(method, `/signing${path}`, { token, headers, ...(json === undefined ? {} : { json }) });
const view = (token: string) => signing('GET', '', token);
const complete = (token: string, json: unknown = { consent: true }, headers: Record<string, string> = {}) => signing('POST', '/complete', token, json, headers);
const decline = (token: string, json: unknown = { reason: 'Not today.' }) => signing('POST', '/decline', token, json);
const token = (id: string, email: string) => signingTokenFor(owner.userId, id, email);
const get = (id: string) => env.api.request('GET', `/envelopes/${id}`, { token: owner.token });

describe('signing tokens (docs/api.md#sending-and-signing-order, docs/api.md#the-recipients-api)', () => {
  test('each invited recipient gets its own token; the view answers for that recipient only, with no-store', async () => {
    const { id } = await sentEnvelope(env.api, owner, { signers: [ada, bob] });
    const adaView = await view(await token(id, ada.email));
    expect(adaView.status).toBe(200);
    expect(adaView.headers.get('cache-control')).toBe('no-store');
    expect(adaView.body.recipient.email).toBe(ada.email);
    expect((await view(await token(id, bob.email))).body.recipient.email).toBe(bob.email);
  });

  test('a token is 43 base64url characters, stored nowhere: not on the envelope, in the audit trail, the outbox or any response', async () => {
    const { id } = await sentEnvelope(env.api, owner, { signers: [ada, cat] });
    const raw = await token(id, ada.email);
    expect(raw).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const answers = [await view(raw), await get(id), await env.api.request('GET', `/envelopes/${id}/audit`, { token: owner.token }), await complete(raw)];
    for (const answer of answers) expect(answer.text).not.toContain(raw);
    expect(JSON.stringify(await storedEnvelope(owner.userId, id))).not.toContain(raw);
    expect(JSON.stringify(await outboxMessages(owner.userId, id))).not.toContain(raw);
    const links: unknown[] = [];
    for await (const row of getServices().storage.tables.signingLinks.listEntities()) links.push(row);
    expect(JSON.stringify(links)).not.toContain(raw);
  });

  test('owner JWTs are refused on the signing endpoints, signing tokens on the owner endpoints: 401 invalid_token', async () => {
    const { id } = await sentEnvelope(env.api, owner, { signers: [ada] });
    const raw = await token(id, ada.email);
    for (const answer of [await view(owner.token), await complete(owner.token), await decline(owner.token)]) {
      expectType(answer, 401, 'invalid-token');
      expect(answer.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');
    }
    const ownerCalls = [
      await env.api.request('GET', `/envelopes/${id}`, { token: raw }),
      await env.api.request('GET', '/envelopes', { token: raw }),
      await env.api.request('POST', `/envelopes/${id}/complete`, { token: raw }),
      await env.api.request('PATCH', `/envelopes/${id}`, { token: raw, json: { status: 'voided' } }),
    ];
    for (const answer of ownerCalls) {
      expectProblem(answer, 401);
      expect(answer.headers.get('www-authenticate')).toContain('error="invalid_token"');
    }
    expect((await get(id)).body.status).toBe('sent');
  });

  test('a missing, malformed or unknown token: 401 with WWW-Authenticate: Bearer error="invalid_token"', async () => {
    for (const headers of [{} as Record<string, string>, { Authorization: 'Bearer' }, { Authorization: 'Basic YWRhOnNlY3JldA==' }, { Authorization: `Bearer ${'A'.repeat(43)}` }, { Authorization: 'Bearer short' }]) {
      const answer = await env.api.request('GET', '/signing', { headers });
      expectType(answer, 401, 'invalid-token');
      expect(answer.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');
    }
  });

  test('a link works for GET until 30 days after a final status, then 401', async () => {
    const { id } = await sentEnvelope(env.api, owner, { signers: [ada, bob] });
    const raw = await token(id, bob.email);
    expect((await decline(await token(id, ada.email))).status).toBe(200);
    const read = await view(raw);
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ canAct: false, envelope: { status: 'declined' } });
    // Move the envelope's final status 30 days and a minute into the past (read-modify-write: the
    // e-mail sender may record a lastEmail outcome on the envelope meanwhile).
    const long = new Date(Date.now() - 30 * 86_400_000 - 60_000).toISOString();
    for (let attempt = 0; ; attempt++) {
      const stored = (await getServices().envelopes.read(owner.userId, id))!;
      try {
        await getServices().envelopes.replace(stored, { ...stored.record, closedAt: long }, []);
        break;
      } catch (error) {
        if (!(error instanceof EnvelopeChangedError) || attempt >= 20) throw error;
      }
    }
    expectType(await view(raw), 401, 'invalid-token');
  });
});

describe('GET /api/signing (docs/api.md#the-recipients-api)', () => {
  test('shows exactly the view of docs/api.md#the-recipients-view: the envelope, the recipient, its fields, the frozen document, canAct and waitingFor', async () => {
    const { id, recipientIds } = await sentEnvelope(env.api, owner, {
      signers: [ada, bob],
      fields: [{ recipient: 0, ...box('signature') }, { recipient: 0, ...box('date_signed', { y: 0.3 }) }],
    });
    const answer = await view(await token(id, ada.email));
    const envelope = (await get(id)).body;
    expect(answer.body).toEqual({
      envelope: {
        id, documentName: 'contract.pdf', status: 'sent', ownerEmail: owner.email, ownerName: null, signingOrder: 'parallel',
        expiresAt: envelope.expiresAt, pageCount: 2, documentSha256: envelope.documentSha256, allowReassign: false,
      },
      recipient: { id: recipientIds[0], name: ada.name, email: ada.email, role: 'signer', routingOrder: 1, status: 'opened', actedAt: null, delivery: ['email'], locale: 'en' },
      fields: envelope.fields,
      documentUrl: expect.stringContaining(`/originals/${id}/contract.pdf?`),
      // Every document in order, read from its frozen copy (docs/api.md#several-documents).
      documents: [{ ...envelope.documents[0], documentUrl: expect.stringContaining(`/originals/${id}/contract.pdf?`) }],
      signedUrl: null,
      canAct: true,
      waitingFor: [],
      filled: [],
    });
    expect(new URL(answer.body.documentUrl).searchParams.get('sp')).toBe('r');
    // The approver sees no fields of the signer.
    expect((await view(await token(id, bob.email))).body.fields).toEqual([]);
  });

  test('a later signer sees every value earlier signers gave, in place, exactly as the seal will draw it; its own fields stay its own', async () => {
    const grace = { email: 'grace@example.com', name: 'Grace Hopper', role: 'signer' };
    const { id, recipientIds } = await sentEnvelope(env.api, owner, {
      signers: [{ ...ada, routingOrder: 1 }, { ...grace, routingOrder: 2 }],
      signingOrder: 'sequential',
      fields: [
        { recipient: 0, ...box('signature'), label: 'Ada signs here' },
        { recipient: 0, ...box('text', { y: 0.3 }), label: 'Phone' },
        { recipient: 0, ...box('checkbox', { y: 0.5, width: 0.03, height: 0.02 }) },
        { recipient: 0, ...box('name', { y: 0.6 }) },
        { recipient: 0, ...box('date_signed', { y: 0.7 }) },
        { recipient: 0, ...box('text', { y: 0.8 }), required: false, label: 'Left empty' },
        { recipient: 1, ...box('signature', { page: 2 }) },
      ],
    });
    const fields = (await get(id)).body.fields as { id: string; type: string; label: string | null; recipientId: string }[];
    const [signature, phone, check, name, date, empty, graces] = fields;
    const adaToken = await token(id, ada.email);
    expect((await view(adaToken)).body.filled).toEqual([]);
    const strokes = [[[0.1, 0.5], [0.5, 0.2], [0.9, 0.6]]];
    const signed = await complete(adaToken, { consent: true, values: [{ fieldId: signature!.id, value: { strokes } }, { fieldId: phone!.id, value: '+44 20 7946 0000' }, { fieldId: check!.id, value: true }] });
    expect(signed.status).toBe(200);
    // Her own view shows her fields as hers, nothing as "filled by others".
    expect(signed.body.filled).toEqual([]);

    const graceView = (await view(await token(id, grace.email))).body;
    expect(graceView.fields.map((field: { id: string }) => field.id)).toEqual([graces!.id]);
    const placeOnPage = (field: { id: string }) => {
      const { page, x, y, width, height } = fields.find((candidate) => candidate.id === field.id) as unknown as Record<string, number>;
      return { page, x, y, width, height };
    };
    const by = { id: recipientIds[0], name: ada.name };
    const place = (field: { id: string }) => ({ documentId: id, ...placeOnPage(field) });
    expect(graceView.filled).toEqual([
      { fieldId: signature!.id, type: 'signature', label: 'Ada signs here', recipient: by, value: { strokes }, ...place(signature!) },
      { fieldId: phone!.id, type: 'text', label: 'Phone', recipient: by, value: '+44 20 7946 0000', ...place(phone!) },
      { fieldId: check!.id, type: 'checkbox', label: null, recipient: by, value: true, ...place(check!) },
      { fieldId: name!.id, type: 'name', label: null, recipient: by, value: ada.name, ...place(name!) },
      { fieldId: date!.id, type: 'date_signed', label: null, recipient: by, value: signed.body.recipient.actedAt.slice(0, 10), ...place(date!) },
    ]);
    expect(graceView.filled.map((entry: { fieldId: string }) => entry.fieldId)).not.toContain(empty!.id);
  });

  test('the first GET by a sent recipient moves it to opened (recipient.opened, webhook event); later ones change nothing', async () => {
    const { id, recipientIds } = await sentEnvelope(env.api, owner, { signers: [ada] });
    const raw = await token(id, ada.email);
    const first = await view(raw);
    expect(first.body.recipient.status).toBe('opened');
    const etag = (await get(id)).headers.get('etag');
    await view(raw);
    expect((await get(id)).headers.get('etag')).toBe(etag);
    expect((await get(id)).body.signers[0].status).toBe('opened');
    const opened = (await auditTrail(env.api, owner, id)).filter((event) => event.type === 'recipient.opened');
    expect(opened).toEqual([
      { sequence: expect.any(Number), type: 'recipient.opened', at: expect.stringMatching(ISO_MS), actorId: recipientIds[0], actorEmail: ada.email, ip: expect.any(String), userAgent: expect.any(String), apiKeyId: null, organizationId: expect.stringMatching(UUID), prevHash: expect.stringMatching(/^[0-9a-f]{64}$/), hash: expect.stringMatching(/^[0-9a-f]{64}$/), details: { recipientId: recipientIds[0], credential: 'signingLink', locale: 'en' } },
    ]);
    const webhooks = (await outboxMessages(owner.userId, id)).flatMap((message) => (message.kind === 'event' ? [message.event] : []));
    expect(webhooks.find((event) => event.type === 'recipient.opened')).toEqual({
      id: expect.any(String), type: 'recipient.opened', createdAt: expect.stringMatching(ISO_MS), organizationId: expect.stringMatching(UUID),
      data: { envelopeId: id, status: 'sent', recipient: { id: recipientIds[0], email: ada.email, name: ada.name, role: 'signer', status: 'opened' } },
    });
  });

  test('sequential order: waitingFor names those whose turn comes first; canAct is false until then', async () => {
    const { id } = await sentEnvelope(env.api, owner, { signers: [{ ...ada, routingOrder: 1 }, { ...bob, routingOrder: 2 }], signingOrder: 'sequential' });
    const stored = await storedEnvelope(owner.userId, id);
    expect(stored.signers.map((signer) => [signer.status, signer.link === null])).toEqual([['sent', false], ['waiting', true]]);
    await expect(token(id, bob.email)).rejects.toThrow(/no signing link/);
    const adaView = await view(await token(id, ada.email));
    expect(adaView.body).toMatchObject({ canAct: true, waitingFor: [] });
  });
});

describe('POST /api/signing/complete (docs/api.md#the-recipients-api)', () => {
  test('a signer signs with typed and drawn signatures, text and a check box: signed, values recorded with IP and user agent; date, name and e-mail are the service\'s', async () => {
    const { id, recipientIds } = await sentEnvelope(env.api, owner, {
      signers: [ada, bob],
      fields: [
        { recipient: 0, ...box('signature') },
        { recipient: 0, ...box('initials', { y: 0.2 }) },
        { recipient: 0, ...box('text', { y: 0.3, label: 'Notes' }) },
        { recipient: 0, ...box('checkbox', { y: 0.4, width: 0.05 }) },
        { recipient: 0, ...box('text', { y: 0.5, required: false }) },
        { recipient: 0, ...box('date_signed', { y: 0.6 }) },
        { recipient: 0, ...box('name', { y: 0.7 }) },
        { recipient: 0, ...box('email', { y: 0.8 }) },
      ],
    });
    const fields = (await get(id)).body.fields as { id: string; type: string }[];
    const strokes = [[[0, 0], [0.5, 1], [1, 0]], [[0.2, 0.5], [0.8, 0.5]]];
    const values = [
      { fieldId: fields[0]!.id, value: { typed: 'Ada Lovelace' } },
      { fieldId: fields[1]!.id, value: { strokes } },
      { fieldId: fields[2]!.id, value: 'Read and agreed.' },
      { fieldId: fields[3]!.id, value: true },
    ];
    const answer = await complete(await token(id, ada.email), { consent: true, values }, { 'User-Agent': 'signing-test/2.0' });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ recipient: { status: 'signed', actedAt: expect.stringMatching(ISO_MS) }, envelope: { status: 'sent' }, canAct: false });
    const envelope = (await get(id)).body;
    expect(envelope.signers[0]).toMatchObject({ status: 'signed', actedAt: answer.body.recipient.actedAt });
    const [action] = (await getServices().envelopes.actions(owner.userId, id));
    expect(action).toEqual({
      recipientId: recipientIds[0], status: 'signed', at: answer.body.recipient.actedAt, ip: expect.stringMatching(/127\.0\.0\.1|::1/), userAgent: 'signing-test/2.0',
      values, signature: { typed: 'Ada Lovelace' },
    });
    const signed = (await auditTrail(env.api, owner, id)).filter((event) => event.type === 'recipient.signed');
    // The consent is evidence: the exact disclosure the view showed, with its version.
    const disclosure = (await env.api.request('GET', '/disclosure')).body as { text: string; version: string };
    expect(disclosure.version).toMatch(/^esd-[0-9a-f]{12}$/);
    expect(disclosure.text).toMatch(/electronic/);
    expect(signed).toEqual([expect.objectContaining({ actorId: recipientIds[0], actorEmail: ada.email, userAgent: 'signing-test/2.0', details: { recipientId: recipientIds[0], credential: 'signingLink', locale: 'en', consent: disclosure } })]);
  });

  test('an approver approves and a viewer confirms with consent alone; the envelope completes when the last one acts', async () => {
    const { id } = await sentEnvelope(env.api, owner, { signers: [ada, bob, vic, cat] });
    expect((await complete(await token(id, ada.email))).body.recipient.status).toBe('signed');
    expect((await complete(await token(id, bob.email))).body.recipient.status).toBe('approved');
    const last = await complete(await token(id, vic.email));
    expect(last.body).toMatchObject({ recipient: { status: 'viewed' }, envelope: { status: 'completed' }, signedUrl: expect.any(String), canAct: false });
    const envelope = (await get(id)).body;
    expect(envelope).toMatchObject({ status: 'completed', hash: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(envelope.signers.map((signer: { status: string }) => signer.status)).toEqual(['signed', 'approved', 'viewed', 'sent']);
  });

  test.each([
    ['consent missing', { values: [] }, 'consent'],
    ['consent false', { consent: false }, 'consent'],
    ['an unknown field in the body', { consent: true, extra: 1 }, 'extra'],
  ])('%s: 400 naming it', async (_case, json, path) => {
    const { id } = await sentEnvelope(env.api, owner, { signers: [ada] });
    const answer = await complete(await token(id, ada.email), json);
    expectType(answer, 400, 'validation-failed');
    expect(answer.body.errors).toContainEqual({ path, message: expect.any(String) });
    expect((await get(id)).body.signers[0].status).not.toBe('signed');
  });

  test('values that do not fit the signer\'s fields: 400 naming each; nothing is recorded', async () => {
    const { id } = await sentEnvelope(env.api, owner, {
      signers: [ada, { ...ada, email: 'eve@example.com', name: 'Eve' }],
      fields: [
        { recipient: 0, ...box('signature') },
        { recipient: 0, ...box('text', { y: 0.3 }) },
        { recipient: 0, ...box('checkbox', { y: 0.4 }) },
        { recipient: 0, ...box('date_signed', { y: 0.5 }) },
        { recipient: 1, ...box('signature', { y: 0.6 }) },
      ],
    });
    const fields = (await get(id)).body.fields as { id: string }[];
    const raw = await token(id, ada.email);
    const cases: [unknown[], string][] = [
      [[{ fieldId: fields[1]!.id, value: 'x' }, { fieldId: fields[2]!.id, value: true }], 'values'],
      [[{ fieldId: fields[0]!.id, value: 'not a signature' }, { fieldId: fields[1]!.id, value: 'x' }, { fieldId: fields[2]!.id, value: true }], 'values.0.value'],
      [[{ fieldId: fields[0]!.id, value: { typed: 'A' } }, { fieldId: fields[1]!.id, value: '  ' }, { fieldId: fields[2]!.id, value: true }], 'values.1.value'],
      [[{ fieldId: fields[0]!.id, value: { typed: 'A' } }, { fieldId: fields[1]!.id, value: 'x' }, { fieldId: fields[2]!.id, value: false }], 'values.2.value'],
      [[{ fieldId: fields[0]!.id, value: { typed: 'A' } }, { fieldId: fields[1]!.id, value: 'x' }, { fieldId: fields[2]!.id, value: true }, { fieldId: fields[3]!.id, value: '2020-01-01' }], 'values.3.value'],
      [[{ fieldId: fields[0]!.id, value: { typed: 'A' } }, { fieldId: fields[1]!.id, value: 'x' }, { fieldId: fields[2]!.id, value: true }, { fieldId: fields[4]!.id, value: { typed: 'E' } }], 'values.3.fieldId'],
      [[{ fieldId: fields[0]!.id, value: { typed: 'A' } }, { fieldId: fields[1]!.id, value: 'x' }, { fieldId: fields[2]!.id, value: true }, { fieldId: 'nope', value: true }], 'values.3.fieldId'],
      [[{ fieldId: fields[0]!.id, value: { typed: 'A' } }, { fieldId: fields[0]!.id, value: { typed: 'B' } }, { fieldId: fields[1]!.id, value: 'x' }, { fieldId: fields[2]!.id, value: true }], 'values.1.fieldId'],
      [[{ fieldId: fields[0]!.id, value: { strokes: [[[0, 0]]] } }, { fieldId: fields[1]!.id, value: 'x' }, { fieldId: fields[2]!.id, value: true }], 'values.0.value'],
      [[{ fieldId: fields[0]!.id, value: { typed: 'x'.repeat(101) } }, { fieldId: fields[1]!.id, value: 'x' }, { fieldId: fields[2]!.id, value: true }], 'values.0.value'],
      [[{ fieldId: fields[0]!.id, value: { typed: 'A' } }, { fieldId: fields[1]!.id, value: 'x'.repeat(501) }, { fieldId: fields[2]!.id, value: true }], 'values.1.value'],
    ];
    for (const [values, path] of cases) {
      const answer = await complete(raw, { consent: true, values });
      expectType(answer, 400, 'validation-failed');
      expect([path, answer.body.errors.map((error: { path: string }) => error.path)]).toEqual([path, expect.arrayContaining([expect.stringMatching(new RegExp(`^${path.replaceAll('.', '\\.')}`))])]);
    }
    expect((await get(id)).body.signers[0].status).toBe('sent');
    expect(await getServices().envelopes.actions(owner.userId, id)).toEqual([]);
  });

  test('an approver or viewer that sends values or a signature: 400', async () => {
    const { id } = await sentEnvelope(env.api, owner, { signers: [ada, bob], fields: [{ recipient: 0, ...box('signature') }] });
    const fieldId = (await get(id)).body.fields[0].id;
    const raw = await token(id, bob.email);
    expectType(await complete(raw, { consent: true, values: [{ fieldId, value: { typed: 'B' } }] }), 400, 'validation-failed');
    expectType(await complete(raw, { consent: true, signature: { typed: 'B' } }), 400, 'validation-failed');
  });

  test('a cc recipient gets 403 (it has nothing to sign), before any 409 or 400', async () => {
    const { id } = await sentEnvelope(env.api, owner, { signers: [ada, cat] });
    await complete(await token(id, ada.email));
    // The cc's link arrives with the completed e-mail; the envelope is completed now.
    const raw = await token(id, cat.email);
    expectType(await complete(raw, 'not even an object'), 403, 'role-cannot-act');
    expectType(await decline(raw), 403, 'role-cannot-act');
    expect((await view(raw)).body).toMatchObject({ recipient: { role: 'cc', status: 'sent' }, envelope: { status: 'completed' }, signedUrl: expect.any(String), canAct: false });
  });
});

describe('the order of the checks (docs/api.md#the-recipients-api): token 401, role 403, status 409, already acted 409, turn 409, body 400', () => {
  test('a voided envelope: 409 envelope-closed naming its status, even with a bad body', async () => {
    const { id } = await sentEnvelope(env.api, owner, { signers: [ada] });
    const raw = await token(id, ada.email);
    expect((await env.api.request('PATCH', `/envelopes/${id}`, { token: owner.token, json: { status: 'voided' } })).status).toBe(200);
    const answer = await complete(raw, { nonsense: true });
    expectType(answer, 409, 'envelope-closed');
    expect(answer.body.detail).toContain('voided');
    expectType(await decline(raw, {}), 409, 'envelope-closed');
    expect((await view(raw)).body).toMatchObject({ canAct: false, envelope: { status: 'voided' } });
  });

  test('already acted: 409 already-acted, even with a bad body; declining after signing too', async () => {
    const { id } = await sentEnvelope(env.api, owner, { signers: [ada, bob] });
    const raw = await token(id, ada.email);
    expect((await complete(raw)).status).toBe(200);
    expectType(await complete(raw, { consent: false }), 409, 'already-acted');
    expectType(await decline(raw, { reason: '' }), 409, 'already-acted');
  });

  test('not its turn: 409 not-your-turn, even with a bad body', async () => {
    const { id, recipientIds } = await sentEnvelope(env.api, owner, { signers: [{ ...ada, routingOrder: 1 }, { ...bob, routingOrder: 2 }], signingOrder: 'sequential' });
    // A link used out of turn (the stored link of the waiting recipient, made here as resend would make it).
    const stored = (await getServices().envelopes.read(owner.userId, id))!;
    const { signingLinkKey, signingToken, tokenSha256 } = await import('../../src/lib/envelopes/signingLinks.js');
    const salt = 'out-of-turn-salt';
    const raw = signingToken(signingLinkKey(getServices().config.jwt.secret), salt);
    const signers = stored.record.signers.map((signer) => (signer.id === recipientIds[1] ? { ...signer, link: { salt, tokenSha256: tokenSha256(raw) } } : signer));
    await getServices().envelopes.replace(stored, { ...stored.record, signers }, []);
    await getServices().signingLinks.ensure({ tokenSha256: tokenSha256(raw), ownerId: owner.userId, envelopeId: id, recipientId: recipientIds[1]! });
    const answer = await complete(raw, { consent: 'yes' });
    expectType(answer, 409, 'not-your-turn');
    expect(answer.body.detail).toContain(ada.name);
    expectType(await decline(raw, {}), 409, 'not-your-turn');
    expect((await view(raw)).body).toMatchObject({ canAct: false, waitingFor: [{ name: ada.name, role: 'signer' }] });
  });

  test('an expired envelope (expiresAt passed, not yet swept): 409 envelope-closed', async () => {
    const { id } = await sentEnvelope(env.api, owner, { signers: [ada] });
    const stored = (await getServices().envelopes.read(owner.userId, id))!;
    await getServices().envelopes.replace(stored, { ...stored.record, expiresAt: new Date(Date.now() - 1000).toISOString() }, []);
    const answer = await complete(await token(id, ada.email));
    expectType(answer, 409, 'envelope-closed');
    expect(answer.body.detail).toContain('expired');
  });

  test('the body is checked last: malformed JSON is 400 only when everything else is fine', async () => {
    const { id } = await sentEnvelope(env.api, owner, { signers: [ada] });
    const answer = await env.api.request('POST', '/signing/complete', { token: await token(id, ada.email), body: '{"consent": tru', headers: { 'Content-Type': 'application/json' } });
    expectType(answer, 400, 'malformed-json');
  });
});

describe('POST /api/signing/decline (docs/api.md#the-recipients-api)', () => {
  test('a signer declines with a reason: envelope declined, events, the owner\'s e-mail and webhook events', async () => {
    const { id, recipientIds } = await sentEnvelope(env.api, owner, { signers: [ada, bob] });
    const answer = await decline(await token(id, bob.email), { reason: '  The start date is wrong.  ' });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ envelope: { status: 'declined' }, recipient: { status: 'declined', actedAt: expect.stringMatching(ISO_MS) }, canAct: false });
    const envelope = (await get(id)).body;
    expect(envelope.signers[1]).toMatchObject({ status: 'declined', declineReason: 'The start date is wrong.' });
    const events = await auditTrail(env.api, owner, id);
    expect(events.slice(-2).map((event) => [event.type, event.actorId, event.actorEmail, event.details])).toEqual([
      ['recipient.declined', recipientIds[1], bob.email, { recipientId: recipientIds[1], credential: 'signingLink', locale: 'en', reason: 'The start date is wrong.' }],
      ['envelope.declined', recipientIds[1], bob.email, { recipientId: recipientIds[1] }],
    ]);
    const messages = await outboxMessages(owner.userId, id);
    expect(messages.filter((message) => message.kind === 'email' && message.type === 'declined')).toEqual([
      expect.objectContaining({ recipientId: null, to: { email: owner.email, name: null }, reason: 'The start date is wrong.', declinedBy: bob.name, linkSalt: null }),
    ]);
    const webhooks = messages.flatMap((message) => (message.kind === 'event' ? [message.event] : []));
    expect(webhooks.slice(-2).map((event) => [event.type, event.data.status, event.data.reason])).toEqual([
      ['recipient.declined', 'declined', 'The start date is wrong.'],
      ['envelope.declined', 'declined', 'The start date is wrong.'],
    ]);
    // The others can no longer act; the owner can no longer complete.
    expectType(await complete(await token(id, ada.email)), 409, 'envelope-closed');
    expectType(await env.api.request('POST', `/envelopes/${id}/complete`, { token: owner.token }), 409, 'envelope-closed');
  });

  test.each([
    ['missing', {}],
    ['empty', { reason: '   ' }],
    ['over 1000 characters', { reason: 'x'.repeat(1001) }],
  ])('a reason %s: 400', async (_case, json) => {
    const { id } = await sentEnvelope(env.api, owner, { signers: [ada] });
    const answer = await decline(await token(id, ada.email), json);
    expectType(answer, 400, 'validation-failed');
    expect(answer.body.errors).toContainEqual({ path: 'reason', message: expect.any(String) });
    expect((await get(id)).body.status).toBe('sent');
  });

  test('a viewer cannot decline: 403', async () => {
    const { id } = await sentEnvelope(env.api, owner, { signers: [ada, vic] });
    expectType(await decline(await token(id, vic.email)), 403, 'role-cannot-act');
  });
});

describe('signing order (docs/api.md#sending-and-signing-order)', () => {
  test('sequential: the next group is invited in the request of the last actor of the previous group, with that recipient as actor', async () => {
    const carol = { email: 'carol@example.com', name: 'Carol', role: 'signer', routingOrder: 1 };
    const { id, recipientIds } = await sentEnvelope(env.api, owner, {
      signers: [{ ...ada, routingOrder: 1 }, carol, { ...bob, routingOrder: 2 }, { ...vic, routingOrder: 2 }, { ...cat, routingOrder: 1 }],
      signingOrder: 'sequential',
    });
    const statuses = async () => ((await get(id)).body.signers as { status: string }[]).map((signer) => signer.status);
    expect(await statuses()).toEqual(['sent', 'sent', 'waiting', 'waiting', 'sent']);
    const sendEvents = await auditTrail(env.api, owner, id);
    expect(sendEvents.filter((event) => event.type === 'recipient.invited').map((event) => event.details.recipientId)).toEqual([recipientIds[0], recipientIds[1]]);

    await complete(await token(id, ada.email));
    expect(await statuses()).toEqual(['signed', 'sent', 'waiting', 'waiting', 'sent']);
    const before = (await auditTrail(env.api, owner, id)).length;
    await complete(await token(id, carol.email), { consent: true }, { 'User-Agent': 'carol-agent' });
    expect(await statuses()).toEqual(['signed', 'signed', 'sent', 'sent', 'sent']);
    const events = (await auditTrail(env.api, owner, id)).slice(before);
    expect(events.map((event) => [event.type, event.actorId, event.actorEmail, event.userAgent])).toEqual([
      ['recipient.signed', recipientIds[1], carol.email, 'carol-agent'],
      ['recipient.invited', recipientIds[1], carol.email, 'carol-agent'],
      ['recipient.invited', recipientIds[1], carol.email, 'carol-agent'],
    ]);
    expect(events.slice(1).map((event) => event.details)).toEqual([
      { recipientId: recipientIds[2], email: bob.email, resend: false },
      { recipientId: recipientIds[3], email: vic.email, resend: false },
    ]);
    const invitations = (await outboxMessages(owner.userId, id)).filter((message) => message.kind === 'email' && message.type === 'invitation');
    expect(invitations.map((message) => message.kind === 'email' && message.to.email)).toEqual([ada.email, carol.email, bob.email, vic.email]);
    expect(invitations.every((message) => message.kind === 'email' && typeof message.linkSalt === 'string')).toBe(true);

    await complete(await token(id, bob.email));
    const done = await complete(await token(id, vic.email));
    expect(done.body.envelope.status).toBe('completed');
  });

  test('parallel: everyone who must act is invited at send, routing order aside', async () => {
    const { id } = await sentEnvelope(env.api, owner, { signers: [{ ...ada, routingOrder: 3 }, { ...bob, routingOrder: 1 }] });
    expect(((await get(id)).body.signers as { status: string }[]).map((signer) => signer.status)).toEqual(['sent', 'sent']);
    expect((await complete(await token(id, ada.email))).status).toBe(200);
  });
});

describe('concurrent actions', () => {
  test('the same recipient acting twice at once: one is recorded, the other gets 409 already-acted', async () => {
    const { id } = await sentEnvelope(env.api, owner, { signers: [ada, bob] });
    const raw = await token(id, ada.email);
    const answers = await Promise.all([complete(raw), complete(raw)]);
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 409]);
    expect((await auditTrail(env.api, owner, id)).filter((event) => event.type === 'recipient.signed')).toHaveLength(1);
  });
});
