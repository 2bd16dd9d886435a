/**
 * Public links ([docs/api.md#public-links](../../docs/api.md#public-links)) over real HTTP, with the
 * codes read from the suite's SMTP catcher: enabling a template's link (the template active, one open
 * role, fixed recipients for the others), the happy path (a code, a wrong try with `attemptsLeft`, the
 * envelope sent with `source: "publicLink"` and the signing URL that opens it), the same address again
 * within 24 hours, a disabled link and another template's id (404), an expired link (410 at start and
 * at verify), the limits (10 starts per client address and hour, 3 envelopes per address and day,
 * `maxUses` under parallel verifications, never passed), and a code's tries. An Azurite of its own:
 * the service trusts one proxy (`TRUST_PROXY=1`), so each test is its own client address.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { emailsTo, waitForEmail, waitForEmails } from '../support/mail.js';
import { patience, waitUntil } from '../support/patience.js';
import { corpusPdf, expectType, ownAzuriteForFile, putToSas, serviceWithSettings, type ApiResponse, type TestService, type TestUser } from '../support/service.js';
import { auditTrail } from '../support/signing.js';

const azurite = ownAzuriteForFile();
const started = serviceWithSettings({ TRUST_PROXY: '1' });
afterAll(async () => await azurite.stop());

let env: TestService;
let owner: TestUser;
beforeAll(async () => {
  env = started.env();
  owner = await env.newUser();
}, patience(60_000));

/** A unique address for one person of a test. */
const address = (tag: string): string => `${tag}-${randomUUID()}@example.com`;

let clients = 0;
/** A client address of its own (the service trusts one proxy: the last `X-Forwarded-For` entry is the client). */
const client = (): Record<string, string> => ({ 'X-Forwarded-For': `198.51.${Math.floor(++clients / 250)}.${clients % 250}` });

/** A template of the owner, active unless `draft`: roles Client (order 1) and, with `landlord`, Landlord (order 2); a signature each. */
async function template(options: { landlord?: boolean; draft?: boolean } = {}): Promise<string> {
  const created = await env.api.request('POST', '/templates', { token: owner.token, json: { name: 'Gym waiver', filename: 'waiver.pdf', mimetype: 'application/pdf' } });
  expect(created.status).toBe(201);
  const id = created.body.template.id as string;
  expect((await putToSas(created.body.uploadUrl, await corpusPdf('normal.pdf'))).status).toBe(201);
  const roles = [{ id: 'client', name: 'Client' }, ...(options.landlord === true ? [{ id: 'landlord', name: 'Landlord', routingOrder: 2 }] : [])];
  const updated = await env.api.request('PATCH', `/templates/${id}`, {
    token: owner.token,
    json: {
      roles,
      fields: roles.map((role, index) => ({ roleId: role.id, type: 'signature', page: 1, x: 0.1, y: 0.5 + 0.2 * index, width: 0.3, height: 0.08 })),
      signingOrder: 'sequential',
      ...(options.draft === true ? {} : { status: 'active' }),
    },
  });
  expect(updated.status).toBe(200);
  return id;
}

const patch = (id: string, publicLink: unknown): Promise<ApiResponse<any>> => env.api.request('PATCH', `/templates/${id}`, { token: owner.token, json: { publicLink } });

/** Enables the template's link with `settings` and returns its `publicId`. */
async function enable(id: string, settings: Record<string, unknown> = {}): Promise<string> {
  const answer = await patch(id, { enabled: true, roleName: 'Client', ...settings });
  expect(answer.status).toBe(200);
  const match = /\/api\/sign\/t\/([A-Za-z0-9_-]{22})$/.exec(answer.body.publicLink.url as string);
  expect(match).not.toBeNull();
  return match![1]!;
}

const start = (publicId: string, email: string, headers: Record<string, string> = client(), name = 'Pat Public'): Promise<ApiResponse<any>> =>
  env.api.request('POST', `/public/${publicId}/start`, { json: { name, email }, headers });
const verify = (publicId: string, email: string, code: string): Promise<ApiResponse<any>> => env.api.request('POST', `/public/${publicId}/verify`, { json: { email, code } });

/** The code of the `nth` code e-mail (from 1) to `email`. */
async function codeFor(email: string, nth = 1): Promise<string> {
  const emails = await waitForEmails(email, { subject: /^Your code for /, count: nth });
  const code = /\b(\d{6})\b/.exec(emails[nth - 1]!.text)?.[1];
  expect(code).toMatch(/^\d{6}$/);
  return code!;
}

/** A code that is not `code`. */
const wrong = (code: string): string => String((Number(code) + 1) % 1_000_000).padStart(6, '0');

/** Start and verify for `email`: the verify's answer. */
async function signUp(publicId: string, email: string, nth = 1, headers: Record<string, string> = client()): Promise<ApiResponse<any>> {
  expect((await start(publicId, email, headers)).status).toBe(202);
  return await verify(publicId, email, await codeFor(email, nth));
}

const tokenOf = (signingUrl: string): string => /\/api\/sign#([A-Za-z0-9_-]{43})$/.exec(signingUrl)![1]!;

describe('enabling a public link (docs/api.md#public-links)', () => {
  test('only on an active template, with one open role and a fixed recipient for every other role', async () => {
    expectType(await patch(await template({ draft: true }), { enabled: true, roleName: 'Client' }), 409, 'template-not-active');

    const two = await template({ landlord: true });
    const unknown = await patch(two, { enabled: true, roleName: 'Tenant' });
    expectType(unknown, 400, 'validation-failed');
    expect(unknown.body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ path: 'publicLink.roleName' })]));
    const missing = await patch(two, { enabled: true, roleName: 'Client' });
    expectType(missing, 400, 'validation-failed');
    expect(missing.body.errors).toEqual([expect.objectContaining({ path: 'publicLink.recipients', message: expect.stringContaining('Landlord') })]);
    const openTwice = await patch(two, { enabled: true, roleName: 'Client', recipients: [{ roleName: 'Client', email: 'x@example.com', name: 'X' }, { roleName: 'Landlord', email: 'l@example.com', name: 'L' }] });
    expect(openTwice.body.errors).toEqual([expect.objectContaining({ path: 'publicLink.recipients.0.roleName' })]);

    const publicId = await enable(two, { maxUses: 5, recipients: [{ roleName: 'landlord', email: 'Lara@Example.com', name: 'Lara Landlord' }] });
    const read = await env.api.request('GET', `/templates/${two}`, { token: owner.token });
    expect(read.body.publicLink).toEqual({
      enabled: true,
      url: `${env.service.publicBaseUrl}/api/sign/t/${publicId}`,
      uses: 0,
      roleName: 'Client',
      maxUses: 5,
      expiresAt: null,
      recipients: [{ roleName: 'landlord', email: 'lara@example.com', name: 'Lara Landlord' }],
    });
    // Changing its settings keeps its URL.
    expect(await enable(two, { maxUses: 6, recipients: [{ roleName: 'Landlord', email: 'lara@example.com', name: 'Lara Landlord' }] })).toBe(publicId);
  });
});

describe('the happy path (docs/api.md#public-links)', () => {
  test('a code by e-mail, a wrong try with attemptsLeft, then a sent envelope with source publicLink and its signing URL', async () => {
    const id = await template({ landlord: true });
    const publicId = await enable(id, { recipients: [{ roleName: 'Landlord', email: address('lara'), name: 'Lara Landlord' }] });
    const pat = address('pat');
    const started = await start(publicId, pat);
    expect(started.status).toBe(202);
    expect(started.headers.get('ratelimit-policy')).toBe('"default";q=10;w=3600');
    const code = await codeFor(pat);

    const miss = await verify(publicId, pat, wrong(code));
    expectType(miss, 403, 'authentication-failed');
    expect(miss.body.attemptsLeft).toBe(4);

    const verified = await verify(publicId, pat, code);
    expect(verified.status).toBe(201);
    expect(verified.headers.get('cache-control')).toBe('no-store');
    expect(verified.body.signingUrl).toMatch(new RegExp(`^${env.service.publicBaseUrl}/api/sign#[A-Za-z0-9_-]{43}$`));

    const envelope = await env.api.request('GET', `/envelopes/${verified.body.envelopeId}`, { token: owner.token });
    expect(envelope.body).toMatchObject({ status: 'sent', source: 'publicLink', templateId: id });
    // The person of the open role first, the landlord after.
    expect(envelope.body.signers.map((signer: any) => [signer.email, signer.name, signer.routingOrder])).toEqual([
      [pat, 'Pat Public', 1],
      [expect.stringMatching(/^lara-/), 'Lara Landlord', 2],
    ]);
    const created = (await auditTrail(env.api, owner, verified.body.envelopeId))[0];
    expect(created).toMatchObject({ type: 'envelope.created', details: expect.objectContaining({ templateId: id, source: 'publicLink' }) });

    // The URL opens the person's signing view.
    const view = await env.api.request('GET', '/signing', { token: tokenOf(verified.body.signingUrl) });
    expect(view.status).toBe(200);
    expect(view.body.recipient?.email ?? view.body.signer?.email ?? pat).toBe(pat);

    // The code is spent.
    expectType(await verify(publicId, pat, code), 403, 'authentication-failed');
  });

  test('the same address within 24 hours gets the envelope it already has; once that is finished, a new one', async () => {
    const publicId = await enable(await template());
    const sam = address('sam');
    const first = await signUp(publicId, sam, 1);
    expect(first.status).toBe(201);
    const again = await signUp(publicId, sam, 2);
    expect(again.status).toBe(201);
    expect(again.body.envelopeId).toBe(first.body.envelopeId);

    expect((await env.api.request('POST', '/signing/decline', { token: tokenOf(again.body.signingUrl), json: { reason: 'Not today.' } })).status).toBe(200);
    const third = await signUp(publicId, sam, 3);
    expect(third.status).toBe(201);
    expect(third.body.envelopeId).not.toBe(first.body.envelopeId);
  });

  test('the page answers while the link does, in the signing page\'s look', async () => {
    const publicId = await enable(await template());
    const page = await fetch(`${env.service.apiUrl}/sign/t/${publicId}`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await page.text()).toContain('/api/sign/sign.css');
    const facts = await env.api.request('GET', `/public/${publicId}`);
    expect(facts.status).toBe(200);
    expect(facts.body).toEqual({ name: 'Gym waiver', sender: expect.any(String), locale: 'en', turnstileSiteKey: null });
  });
});

describe('links that do not answer (docs/api.md#public-links)', () => {
  test('disabling makes the URL 404 at once; enabling again gives a new URL, the old one stays dead', async () => {
    const id = await template();
    const publicId = await enable(id);
    const pending = address('dee');
    expect((await start(publicId, pending)).status).toBe(202);
    const code = await codeFor(pending);

    const disabled = await patch(id, { enabled: false, roleName: 'Client' });
    expect(disabled.status).toBe(200);
    expect(disabled.body.publicLink).toMatchObject({ enabled: false, url: null, uses: null });
    expectType(await start(publicId, address('dee')), 404, 'public-link-not-found');
    expectType(await verify(publicId, pending, code), 404, 'public-link-not-found');
    expectType(await env.api.request('GET', `/public/${publicId}`), 404, 'public-link-not-found');
    expect((await fetch(`${env.service.apiUrl}/sign/t/${publicId}`)).status).toBe(404);

    const again = await enable(id);
    expect(again).not.toBe(publicId);
    expectType(await start(publicId, address('dee')), 404, 'public-link-not-found');
    expect((await start(again, address('dee'))).status).toBe(202);
  });

  test('ids that name no enabled link: made up, malformed, or a draft template\'s', async () => {
    expectType(await start('AAAAAAAAAAAAAAAAAAAAAA', address('x')), 404, 'public-link-not-found');
    expectType(await start('not-an-id', address('x')), 404, 'public-link-not-found');
    expectType(await verify('AAAAAAAAAAAAAAAAAAAAAA', address('x'), '123456'), 404, 'public-link-not-found');
  });

  test('a code of one link does not work at another template\'s link', async () => {
    const one = await enable(await template());
    const other = await enable(await template());
    const kim = address('kim');
    expect((await start(one, kim)).status).toBe(202);
    const code = await codeFor(kim);
    const answer = await verify(other, kim, code);
    expectType(answer, 403, 'authentication-failed');
    expect(answer.body.attemptsLeft).toBe(0);
  });

  test('an expired link answers 410 link-expired at start and at verify', async () => {
    const id = await template();
    const past = await enable(id, { expiresAt: new Date(Date.now() - 60_000).toISOString() });
    expectType(await start(past, address('eve')), 410, 'link-expired');

    const soon = new Date(Date.now() + 3_000).toISOString();
    const publicId = await enable(await template(), { expiresAt: soon });
    const eve = address('eve');
    expect((await start(publicId, eve)).status).toBe(202);
    const code = await codeFor(eve);
    await waitUntil(async () => Date.now() > Date.parse(soon) + 200, 10_000);
    expectType(await verify(publicId, eve, code), 410, 'link-expired');
  });
});

describe('limits (docs/api.md#public-links)', () => {
  test('10 starts per client address and hour, then 429 rate-limited with Retry-After; other addresses go on', async () => {
    const publicId = await enable(await template());
    const from = client();
    for (let index = 0; index < 10; index++) expect((await start(publicId, address('ip'), from)).status).toBe(202);
    const refused = await start(publicId, address('ip'), from);
    expectType(refused, 429, 'rate-limited');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await start(publicId, address('ip'))).status).toBe(202);
  });

  test('3 envelopes per address, link and day: the 4th start is 429 public-link-limit', async () => {
    const publicId = await enable(await template());
    const fay = address('fay');
    for (let nth = 1; nth <= 3; nth++) {
      const made = await signUp(publicId, fay, nth);
      expect(made.status).toBe(201);
      expect((await env.api.request('POST', '/signing/decline', { token: tokenOf(made.body.signingUrl), json: { reason: 'Again.' } })).status).toBe(200);
    }
    const refused = await start(publicId, fay);
    expectType(refused, 429, 'public-link-limit');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  test('maxUses is never passed by parallel verifications; then 410 link-exhausted', async () => {
    const id = await template();
    const publicId = await enable(id, { maxUses: 2 });
    const people = Array.from({ length: 6 }, () => address('race'));
    for (const person of people) expect((await start(publicId, person)).status).toBe(202);
    const codes = await Promise.all(people.map(async (person) => await codeFor(person)));
    const answers = await Promise.all(people.map(async (person, index) => await verify(publicId, person, codes[index]!)));
    expect(answers.filter((answer) => answer.status === 201)).toHaveLength(2);
    for (const answer of answers.filter((candidate) => candidate.status !== 201)) expectType(answer, 410, 'link-exhausted');
    expectType(await start(publicId, address('late')), 410, 'link-exhausted');
    // The template shows the uses the counter holds: exactly the envelopes made.
    expect((await env.api.request('GET', `/templates/${id}`, { token: owner.token })).body.publicLink).toMatchObject({ uses: 2, maxUses: 2 });
  });

  test('a code takes 5 wrong tries, counting down attemptsLeft; then even the right one fails', async () => {
    const publicId = await enable(await template());
    const gus = address('gus');
    expect((await start(publicId, gus)).status).toBe(202);
    const code = await codeFor(gus);
    for (const left of [4, 3, 2, 1, 0]) {
      const answer = await verify(publicId, gus, wrong(code));
      expectType(answer, 403, 'authentication-failed');
      expect(answer.body.attemptsLeft).toBe(left);
    }
    const late = await verify(publicId, gus, code);
    expectType(late, 403, 'authentication-failed');
    expect(late.body.attemptsLeft).toBe(0);
    // A new start sends a new code, with its own tries.
    expect((await start(publicId, gus)).status).toBe(202);
    expect((await verify(publicId, gus, await codeFor(gus, 2))).status).toBe(201);
  });

  test('the code e-mail is one message to the address, and nothing is e-mailed for a refused start', async () => {
    const publicId = await enable(await template(), { maxUses: 1 });
    const hal = address('hal');
    expect((await signUp(publicId, hal)).status).toBe(201);
    const late = address('late');
    expectType(await start(publicId, late), 410, 'link-exhausted');
    const mail = await waitForEmail(hal, { subject: /^Your code for /, timeoutMs: patience(10_000) });
    expect(mail.subject).toBe('Your code for Gym waiver');
    expect(await emailsTo(late)).toEqual([]);
  });
});
