/**
 * Embedded signing (docs/api.md#embedded-signing) over real HTTP, with the suite's SMTP server (MailDev):
 * `delivery: "embedded"` recipients get no e-mail (only the completed one with `notifyOnCompletion`),
 * `POST .../views` answers a URL whose token works for `GET /api/signing` and actions until a newer view
 * (or a resend) replaces it, the view's page carries the view's `frame-ancestors`, and every refusal
 * answers as docs/api.md#embedded-signing says and changes nothing. The token never appears in another answer, the
 * audit trail or the outbox (webhook events included).
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { checkViewRequest } from '../../src/lib/recipients/embeddedViews.js';
import { emailsTo, waitForEmails } from '../support/mail.js';
import { createEnvelopeWithDocument, corpusPdf, expectProblem, fetchAnswer, startTestService, type TestService, type TestUser } from '../support/service.js';
import { auditTrail, outboxMessages, sentEnvelope, signingTokenFor } from '../support/signing.js';

let env: TestService;
let owner: TestUser;

beforeAll(async () => {
  // Loopback origins are allowed as frame ancestors only with this setting, as for webhooks.
  process.env.WEBHOOK_ALLOW_PRIVATE_NETWORKS = 'true';
  env = await startTestService();
  owner = await env.newUser({ name: 'Evelyn Boyd' });
});
afterAll(async () => {
  await env?.close();
});

const address = (name: string) => `${name}-${randomUUID()}@example.com`;

/** The view's path on the test service (the URL names `PUBLIC_BASE_URL`, where nothing answers in the suite) and its token. */
function localView(url: string): { path: string; token: string; viewId: string } {
  const match = /^https:\/\/envelope-signing\.test\/api(\/sign\/v\/([0-9a-f-]{36}))#([A-Za-z0-9_-]{43})$/.exec(url);
  if (match === null) throw new Error(`not a view URL: ${url}`);
  return { path: match[1]!, viewId: match[2]!, token: match[3]! };
}

async function createView(envelopeId: string, recipientId: string, json?: unknown, headers: Record<string, string> = {}) {
  return await env.api.request('POST', `/envelopes/${envelopeId}/recipients/${recipientId}/views`, { token: owner.token, headers, ...(json === undefined ? {} : { json }) });
}

function frameAncestors(policy: string | null): string | undefined {
  return policy?.split(';').map((directive) => directive.trim()).find((directive) => directive.startsWith('frame-ancestors'));
}

describe('signers with delivery: embedded', () => {
  test('notifyOnCompletion is for embedded recipients only (400), and responses show delivery and notifyOnCompletion', async () => {
    const id = await createEnvelopeWithDocument(env.api, owner, await corpusPdf('normal.pdf'));
    const refused = await env.api.request('PUT', `/envelopes/${id}`, { token: owner.token, json: { signers: [{ email: address('x'), name: 'X', notifyOnCompletion: true }] } });
    expectProblem(refused, 400);
    expect(refused.body.errors).toEqual([expect.objectContaining({ path: 'signers.0.notifyOnCompletion' })]);
    const wrong = await env.api.request('PUT', `/envelopes/${id}`, { token: owner.token, json: { signers: [{ email: address('x'), name: 'X', delivery: 'sms' }] } });
    expectProblem(wrong, 400);

    const saved = await env.api.request('PUT', `/envelopes/${id}`, {
      token: owner.token,
      json: { signers: [{ email: address('a'), name: 'A', delivery: 'embedded', notifyOnCompletion: true }, { email: address('b'), name: 'B' }] },
    });
    expect(saved.status).toBe(200);
    expect(saved.body.signers.map((signer: any) => [signer.delivery, signer.notifyOnCompletion])).toEqual([
      [['embedded'], true],
      [['email'], undefined],
    ]);
  });

  test('an embedded recipient is sent no invitation, signs through views, and only asks for the completed e-mail', async () => {
    const ada = address('ada');
    const bob = address('bob');
    const cara = address('cara');
    const { id, envelope, recipientIds } = await sentEnvelope(env.api, owner, {
      signers: [
        { email: ada, name: 'Ada Lovelace', delivery: 'embedded' },
        { email: bob, name: 'Bob Builder', delivery: 'embedded', notifyOnCompletion: true },
        { email: cara, name: 'Cara Dune' },
      ],
    });
    const [adaId, bobId] = recipientIds as [string, string, string];
    expect(envelope.signers.map((signer: any) => [signer.status, signer.lastEmail?.type ?? null])).toEqual([
      ['sent', null],
      ['sent', null],
      ['sent', 'invitation'],
    ]);
    // Cara's invitation arrives: the outbox of the send has been delivered.
    await waitForEmails(cara, { subject: /contract\.pdf/ });

    const adaView = await createView(id, adaId, { frameAncestors: ['https://app.example.com', 'http://localhost:8123'], returnUrl: 'https://app.example.com/done?x=1' });
    expect(adaView.status).toBe(201);
    expect(adaView.headers.get('cache-control')).toBe('no-store');
    const { token: adaToken, path: adaPath, viewId } = localView(adaView.body.url);
    const ttl = Date.parse(adaView.body.expiresAt) - Date.now();
    expect(ttl).toBeGreaterThan(800_000);
    expect(ttl).toBeLessThanOrEqual(900_000);

    // The page of the view names its frame ancestors; every other page and an unknown view none.
    const page = await fetchAnswer(`${env.service.apiUrl}${adaPath}`);
    expect(page.status).toBe(200);
    expect(frameAncestors(page.headers.get('content-security-policy'))).toBe('frame-ancestors https://app.example.com http://localhost:8123');
    expect(page.headers.get('cache-control')).toBe('no-store');
    expect(page.text).not.toContain(adaToken);
    expect(frameAncestors((await fetchAnswer(`${env.service.apiUrl}/sign`)).headers.get('content-security-policy'))).toBe("frame-ancestors 'none'");
    expect(frameAncestors((await fetchAnswer(`${env.service.apiUrl}/sign/v/${randomUUID()}`)).headers.get('content-security-policy'))).toBe("frame-ancestors 'none'");
    expect(frameAncestors((await fetchAnswer(`${env.service.apiUrl}/sign/v/not-a-view`)).headers.get('content-security-policy'))).toBe("frame-ancestors 'none'");

    // The token works as a signing token; a newer view ends it.
    const opened = await env.api.request('GET', '/signing', { token: adaToken });
    expect(opened.status).toBe(200);
    expect(opened.body.recipient.id).toBe(adaId);
    // The page learns whether e-mails reach the recipient: Ada is embedded, without the completed e-mail.
    expect([opened.body.recipient.delivery, opened.body.recipient.notifyOnCompletion]).toEqual([['embedded'], false]);
    const newer = await createView(id, adaId);
    const newerToken = localView(newer.body.url).token;
    expect(localView(newer.body.url).viewId).not.toBe(viewId);
    expectProblem(await env.api.request('GET', '/signing', { token: adaToken }), 401);
    const signed = await env.api.request('POST', '/signing/complete', { token: newerToken, json: { consent: true, values: [] } });
    expect(signed.status).toBe(200);
    expect(signed.body.recipient.status).toBe('signed');

    // Bob: his view's token signs; Cara signs from her e-mail link and completes the envelope.
    const bobToken = localView((await createView(id, bobId)).body.url).token;
    expect((await env.api.request('GET', '/signing', { token: bobToken })).body.recipient).toMatchObject({ delivery: ['embedded'], notifyOnCompletion: true });
    expect((await env.api.request('POST', '/signing/complete', { token: bobToken, json: { consent: true, values: [] } })).status).toBe(200);
    const caraToken = await signingTokenFor(owner.userId, id, cara);
    const last = await env.api.request('POST', '/signing/complete', { token: caraToken, json: { consent: true, values: [] } });
    expect(last.body.envelope.status).toBe('completed');

    // Mail: Cara an invitation and the completed e-mail, Bob (notifyOnCompletion) only the completed one, Ada none.
    await waitForEmails(owner.email, { subject: /completed|signed/i });
    await waitForEmails(cara, { count: 2 });
    const bobMail = await waitForEmails(bob);
    expect(bobMail).toHaveLength(1);
    expect(bobMail[0]!.subject).toMatch(/completed|signed/i);
    expect(await emailsTo(ada)).toEqual([]);
    const final = await env.api.request('GET', `/envelopes/${id}`, { token: owner.token });
    expect(final.body.signers.map((signer: any) => signer.lastEmail?.type ?? null)).toEqual([null, 'completed', 'completed']);

    // Evidence: recipient.view_created {recipientId} with the owner as actor; no token anywhere else.
    const trail = await auditTrail(env.api, owner, id);
    const created = trail.filter((event) => event.type === 'recipient.view_created');
    expect(created.map((event) => [event.details, event.actorId])).toEqual([
      [{ recipientId: adaId }, owner.userId],
      [{ recipientId: adaId }, owner.userId],
      [{ recipientId: bobId }, owner.userId],
    ]);
    // What each recipient did records the credential it used: the views for Ada and Bob, the e-mailed link for Cara.
    expect(trail.filter((event) => event.type === 'recipient.signed').map((event) => [event.actorId, event.details.credential])).toEqual([
      [adaId, 'embeddedView'],
      [bobId, 'embeddedView'],
      [recipientIds[2], 'signingLink'],
    ]);
    const everything = JSON.stringify([trail, final.body, await outboxMessages(owner.userId, id)]);
    for (const secret of [adaToken, newerToken, bobToken, viewId]) expect(everything).not.toContain(secret);
  });

  test('a resend ends the embedded view and e-mails nobody', async () => {
    const ada = address('ada');
    const { id, recipientIds } = await sentEnvelope(env.api, owner, { signers: [{ email: ada, name: 'Ada Lovelace', delivery: 'embedded' }] });
    const token = localView((await createView(id, recipientIds[0]!)).body.url).token;
    expect((await env.api.request('GET', '/signing', { token })).status).toBe(200);
    const resent = await env.api.request('POST', `/envelopes/${id}/recipients/${recipientIds[0]}/resend`, { token: owner.token });
    expect(resent.status).toBe(202);
    expect(resent.body.lastEmail).toBeNull();
    expectProblem(await env.api.request('GET', '/signing', { token }), 401);
    expect(await emailsTo(ada)).toEqual([]);
  });
});

describe('POST /api/envelopes/{id}/recipients/{recipientId}/views refusals', () => {
  test('409 for a draft, a cc, a recipient whose turn has not come, one who acted; 404 for unknown ones; nothing recorded', async () => {
    const draft = await createEnvelopeWithDocument(env.api, owner, await corpusPdf('normal.pdf'));
    const saved = await env.api.request('PUT', `/envelopes/${draft}`, { token: owner.token, json: { signers: [{ email: address('d'), name: 'D' }] } });
    const draftView = await createView(draft, saved.body.signers[0].id);
    expectProblem(draftView, 409);
    expect(draftView.body.type).toBe('urn:problem:envelope-not-sent');

    const { id, recipientIds } = await sentEnvelope(env.api, owner, {
      signingOrder: 'sequential',
      signers: [
        { email: address('first'), name: 'First', routingOrder: 1, delivery: 'embedded' },
        { email: address('second'), name: 'Second', routingOrder: 2, delivery: 'embedded' },
        { email: address('copy'), name: 'Copy', role: 'cc', routingOrder: 1 },
      ],
    });
    const [first, second, copy] = recipientIds as [string, string, string];
    const before = (await auditTrail(env.api, owner, id)).length;
    const typeOf = async (recipientId: string, json?: unknown) => {
      const answer = await createView(id, recipientId, json);
      expectProblem(answer, answer.status);
      return [answer.status, answer.body.type];
    };
    expect(await typeOf(copy)).toEqual([409, 'urn:problem:not-a-signing-role']);
    expect(await typeOf(second)).toEqual([409, 'urn:problem:not-your-turn']);
    expect(await typeOf(randomUUID())).toEqual([404, 'urn:problem:recipient-not-found']);
    expect((await env.api.request('POST', `/envelopes/${randomUUID()}/recipients/${first}/views`, { token: owner.token })).status).toBe(404);
    const stranger = await env.newUser();
    expect((await env.api.request('POST', `/envelopes/${id}/recipients/${first}/views`, { token: stranger.token })).status).toBe(404);
    expect((await auditTrail(env.api, owner, id)).length).toBe(before);

    // First signs through a view; then it is Second's turn, and First has acted.
    const token = localView((await createView(id, first)).body.url).token;
    expect((await env.api.request('POST', '/signing/complete', { token, json: { consent: true, values: [] } })).status).toBe(200);
    expect(await typeOf(first)).toEqual([409, 'urn:problem:already-acted']);
    expect((await createView(id, second)).status).toBe(201);
  });

  test('400 for frame ancestors or a return URL that are not https: origins, too many of them, or an Idempotency-Key', async () => {
    const { id, recipientIds } = await sentEnvelope(env.api, owner, { signers: [{ email: address('ada'), name: 'Ada', delivery: 'embedded' }] });
    const recipientId = recipientIds[0]!;
    const before = (await auditTrail(env.api, owner, id)).length;
    for (const [json, path] of [
      [{ frameAncestors: ['http://app.example.com'] }, 'frameAncestors.0'],
      [{ frameAncestors: ['https://app.example.com/path'] }, 'frameAncestors.0'],
      [{ frameAncestors: ['*'] }, 'frameAncestors.0'],
      [{ frameAncestors: ["'self'"] }, 'frameAncestors.0'],
      [{ frameAncestors: ['https://a.example', 'https://b.example', 'https://c.example', 'https://d.example', 'https://e.example', 'https://f.example'] }, 'frameAncestors'],
      [{ returnUrl: 'javascript:alert(1)' }, 'returnUrl'],
      [{ returnUrl: 'http://app.example.com/done' }, 'returnUrl'],
      [{ returnUrl: 'https://user:pw@app.example.com/done' }, 'returnUrl'],
      [{ frameAncestors: ['https://app.example.com'], extra: true }, 'extra'],
    ] as const) {
      const answer = await createView(id, recipientId, json);
      expectProblem(answer, 400);
      expect(answer.body.errors.map((error: any) => error.path)).toContain(path);
    }
    expectProblem(await createView(id, recipientId, {}, { 'Idempotency-Key': randomUUID() }), 400);
    expect((await auditTrail(env.api, owner, id)).length).toBe(before);
  });

  test('frameAncestors takes only origins: no wildcard, keyword, path, query, credentials, IPv6 literal or odd host; 400 naming the entry, nothing changed', async () => {
    const { id, recipientIds } = await sentEnvelope(env.api, owner, { signers: [{ email: address('ada'), name: 'Ada', delivery: 'embedded' }] });
    const recipientId = recipientIds[0]!;
    const before = (await auditTrail(env.api, owner, id)).length;
    const refused = [
      'https://*',
      'https://*.example.com',
      'https://app.*.example.com',
      '*.example.com',
      'https:',
      'https://',
      "'self'",
      "'none'",
      "https://'self'",
      "https://app.example.com 'unsafe-inline'",
      'https://app.example.com https://b.example',
      'https://app.example.com,https://b.example',
      'https://app.example.com;',
      'https://user@app.example.com',
      'https://app.example.com:',
      'https://app.example.com:0',
      'https://app.example.com?x=1',
      'https://app.example.com#top',
      'https://app.example.com//',
      'https://app_1.example.com',
      'https://app.example.com.',
      'https://-app.example.com',
      'https://[2001:db8::1]',
      'data:',
      'blob:https://app.example.com',
      'ftp://app.example.com',
    ];
    for (const entry of refused) {
      const answer = await createView(id, recipientId, { frameAncestors: ['https://ok.example.com', entry] });
      expect({ entry, status: answer.status }).toEqual({ entry, status: 400 });
      expectProblem(answer, 400);
      expect({ entry, paths: answer.body.errors.map((error: any) => error.path) }).toEqual({ entry, paths: ['frameAncestors.1'] });
    }
    expect((await auditTrail(env.api, owner, id)).length).toBe(before);
    // Origins pass as the URL standard writes them: lower case, punycode, default port dropped.
    expect(checkViewRequest({ frameAncestors: ['https://App.Example.com:8443', 'https://bücher.example/', 'https://203.0.113.7', 'HTTPS://a-b.example.com:443'] }, false).frameAncestors).toEqual([
      'https://app.example.com:8443',
      'https://xn--bcher-kva.example',
      'https://203.0.113.7',
      'https://a-b.example.com',
    ]);
  });

  test('loopback http: origins only when private networks are allowed', () => {
    expect(() => checkViewRequest({ frameAncestors: ['http://localhost:3000'] }, false)).toThrow('frameAncestors.0 must be https:');
    expect(() => checkViewRequest({ returnUrl: 'http://127.0.0.1:3000/done' }, false)).toThrow();
    expect(checkViewRequest({ frameAncestors: ['http://localhost:3000', 'HTTPS://App.Example.com:443'], returnUrl: 'http://127.0.0.1:3000/done' }, true)).toEqual({
      frameAncestors: ['http://localhost:3000', 'https://app.example.com'],
      returnUrl: 'http://127.0.0.1:3000/done',
    });
    expect(() => checkViewRequest({ frameAncestors: ['http://192.168.1.5'] }, true)).toThrow();
  });
});
