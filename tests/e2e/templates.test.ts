/**
 * Templates (docs/api.md#templates) over real HTTP, Azurite and SMTP: create with an upload URL, roles and
 * fields by role, activation that checks and freezes the document as send does, list, get, delete;
 * envelopes made from an active template by role id and by role name, sent at once, whose recipients
 * sign through the API from their e-mailed links, to a sealed PDF that shows each value inside its
 * field's rectangle (`pdftotext -bbox`), values prefilled at use and read-only values of the template
 * included; every refusal; another owner's template answered as a missing one.
 */
import { createHash } from 'node:crypto';
import { describe, expect, test } from '@jest/globals';
import { getServices } from '../../src/lib/services.js';
import { waitForSigningLink } from '../support/mail.js';
import { corpusPdf, expectProblem, putToSas, serviceForFile, type ApiResponse, type TestService, type TestUser } from '../support/service.js';
import { auditTrail } from '../support/signing.js';
import { withoutUrls } from '../support/contract.js';
import { tempFile, tool } from '../support/tools.js';

let env: TestService;
let owner: TestUser;
let stranger: TestUser;
let pdf: Buffer;
serviceForFile(async (started) => {
  ({ env } = started);
  [owner, stranger] = await Promise.all([env.newUser(), env.newUser()]);
  pdf = await corpusPdf('normal.pdf');
});

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
const call = (method: string, route: string, json?: unknown, user: TestUser = owner, headers: Record<string, string> = {}): Promise<ApiResponse<any>> =>
  env.api.request(method, route, { token: user.token, ...(json === undefined ? {} : { json }), headers });

/** The rectangles of the lease template, fractions of the page (origin top-left). */
const rects = {
  clientText: { page: 1, x: 0.1, y: 0.3, width: 0.5, height: 0.05 },
  clientSignature: { page: 1, x: 0.1, y: 0.8, width: 0.35, height: 0.08 },
  landlordSignature: { page: 2, x: 0.55, y: 0.8, width: 0.35, height: 0.08 },
};

/** A template with the document uploaded, roles Client and Landlord (sequential) and three fields. */
async function draftLeaseTemplate(user: TestUser = owner): Promise<{ id: string; uploadUrl: string; roles: any[]; template: any }> {
  const created = await call('POST', '/templates', { name: 'Lease', filename: 'lease.pdf', mimetype: 'application/pdf' }, user);
  expect(created.status).toBe(201);
  const id = created.body.template.id;
  expect((await putToSas(created.body.uploadUrl, pdf)).status).toBe(201);
  const updated = await call(
    'PATCH',
    `/templates/${id}`,
    {
      roles: [{ id: 'client', name: 'Client' }, { id: 'landlord', name: 'Landlord', routingOrder: 2 }],
      fields: [
        { roleId: 'client', type: 'text', label: 'Flat', ...rects.clientText },
        { roleId: 'client', type: 'signature', ...rects.clientSignature },
        { roleId: 'landlord', type: 'signature', ...rects.landlordSignature },
      ],
      signingOrder: 'sequential',
      expiresInDays: 10,
    },
    user,
  );
  expect(updated.status).toBe(200);
  return { id, uploadUrl: created.body.uploadUrl, roles: updated.body.roles, template: updated.body };
}

async function activeLeaseTemplate(user: TestUser = owner): Promise<{ id: string; uploadUrl: string; roles: any[]; template: any }> {
  const draft = await draftLeaseTemplate(user);
  const activated = await call('PATCH', `/templates/${draft.id}`, { status: 'active' }, user);
  expect(activated.status).toBe(200);
  return { ...draft, template: activated.body };
}

/** Unique addresses per test, so that e-mails of one test are never taken for another's. */
function people(tag: string) {
  return {
    client: { email: `client-${tag}@example.com`, name: 'Carol Client' },
    landlord: { email: `landlord-${tag}@example.com`, name: 'Larry Landlord' },
  };
}

/** Word boxes of the sealed PDF's pages (`pdftotext -bbox`, points, origin top-left) and each page's size. */
async function wordBoxes(file: string): Promise<{ page: number; width: number; height: number; words: { text: string; xMin: number; yMin: number; xMax: number; yMax: number }[] }[]> {
  const html = (await tool('pdftotext', ['-bbox', file, '-'])).stdout;
  return [...html.matchAll(/<page width="([\d.]+)" height="([\d.]+)">([\s\S]*?)<\/page>/g)].map((page, index) => ({
    page: index + 1,
    width: Number(page[1]),
    height: Number(page[2]),
    words: [...page[3]!.matchAll(/<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">([^<]*)<\/word>/g)].map((word) => ({
      xMin: Number(word[1]),
      yMin: Number(word[2]),
      xMax: Number(word[3]),
      yMax: Number(word[4]),
      text: word[5]!,
    })),
  }));
}

/** Whether the word's horizontal extent and its middle are inside the rectangle (a word box spans the font's whole ascent and descent). */
function inside(word: { xMin: number; yMin: number; xMax: number; yMax: number }, rect: { x: number; y: number; width: number; height: number }, size: { width: number; height: number }): boolean {
  const middle = (word.yMin + word.yMax) / 2;
  return word.xMin >= rect.x * size.width - 1 && word.xMax <= (rect.x + rect.width) * size.width + 1 && middle >= rect.y * size.height && middle <= (rect.y + rect.height) * size.height;
}

describe('POST /api/templates and the template lifecycle', () => {
  test('creates a draft with an upload URL; roles and fields by role; activation freezes the document as send does', async () => {
    const created = await call('POST', '/templates', { name: ' Lease ', filename: 'lease.pdf', mimetype: 'application/pdf' });
    expect(created.status).toBe(201);
    const { template, uploadUrl, blobName } = created.body;
    expect(template).toMatchObject({ name: 'Lease', status: 'draft', documentName: 'lease.pdf', documentSha256: null, pageCount: null, roles: [], fields: [], signingOrder: 'parallel', remindEveryDays: null, expiresInDays: null, locale: 'en' });
    expect(blobName).toBe(`${template.id}/lease.pdf`);
    expect(created.headers.get('location')).toBe(`/api/templates/${template.id}`);
    expect(new URL(uploadUrl).pathname).toMatch(new RegExp(`/templates/${template.id}/lease\\.pdf$`));
    expect(new URL(uploadUrl).searchParams.get('sp')).toBe('cw');

    // Not uploaded yet: activation is refused as a send would be, and nothing changes.
    expectProblem(await call('PATCH', `/templates/${template.id}`, { status: 'active' }), 409);
    expect((await call('GET', `/templates/${template.id}`)).body.status).toBe('draft');

    expect((await putToSas(uploadUrl, pdf)).status).toBe(201);
    const roles = await call('PUT', `/templates/${template.id}`, {
      roles: [{ id: 'r1', name: 'Client' }, { name: 'Witness', role: 'cc' }],
      fields: [{ roleId: 'r1', type: 'signature', ...rects.clientSignature }],
    });
    expect(roles.status).toBe(200);
    const [client, witness] = roles.body.roles;
    expect(client).toEqual({ id: expect.stringMatching(/^[0-9a-f-]{36}$/), name: 'Client', role: 'signer', routingOrder: 1 });
    expect(witness).toMatchObject({ name: 'Witness', role: 'cc', routingOrder: 1 });
    // A template of one document: every field is on it, the document bearing the template's id (docs/api.md#documents-of-a-template).
    expect(roles.body.fields).toEqual([{ id: expect.any(String), roleId: client.id, documentId: template.id, type: 'signature', ...rects.clientSignature, required: true, label: null }]);

    const activated = await call('PATCH', `/templates/${template.id}`, { status: 'active' }, owner, { 'If-Match': roles.headers.get('etag')! });
    expect(activated.status).toBe(200);
    expect(activated.body).toMatchObject({ status: 'active', pageCount: 2, documentSha256: sha256(pdf) });
    expect(activated.headers.get('etag')).not.toBe(roles.headers.get('etag'));
    // The frozen copy is what documentUrl serves; a later PUT to the upload URL changes nothing.
    expect((await putToSas(uploadUrl, await corpusPdf('giraffe.pdf'))).status).toBe(201);
    const read = await call('GET', `/templates/${template.id}`);
    expect(new URL(read.body.documentUrl).pathname).toContain(`/originals/${template.id}/lease.pdf`);
    expect(sha256(Buffer.from(await (await fetch(read.body.documentUrl)).arrayBuffer()))).toBe(sha256(pdf));
    expect(read.body.documentSha256).toBe(sha256(pdf));
  });

  test('an active template still changes its name, roles and fields, which must fit its pages; it cannot go back to draft', async () => {
    const { id, roles } = await activeLeaseTemplate();
    const renamed = await call('PATCH', `/templates/${id}`, { name: 'Lease 2027', remindEveryDays: 3, locale: 'de' });
    expect(renamed.body).toMatchObject({ name: 'Lease 2027', remindEveryDays: 3, locale: 'de', status: 'active' });

    const outside = await call('PATCH', `/templates/${id}`, { fields: [{ roleId: roles[0].id, type: 'signature', ...rects.clientSignature, page: 3 }] });
    expectProblem(outside, 422);
    expect(outside.body.type).toBe('urn:problem:field-outside-document');
    expect(outside.body.errors).toEqual([{ path: 'fields.0.page', message: 'is 3, but the document has 2 pages' }]);
    expect((await call('GET', `/templates/${id}`)).body.fields).toHaveLength(3);

    const back = await call('PATCH', `/templates/${id}`, { status: 'draft' });
    expectProblem(back, 409);
    expect(back.body.type).toBe('urn:problem:invalid-transition');
  });

  test('refuses bad input with problem details and changes nothing', async () => {
    expect((await call('POST', '/templates', { name: 'x', filename: 'a.docx', mimetype: 'application/pdf' })).status).toBe(400);
    const wrongType = await call('POST', '/templates', { name: 'x', filename: 'a.pdf', mimetype: 'text/plain' });
    expectProblem(wrongType, 415);
    expect(wrongType.body.type).toBe('urn:problem:unsupported-document-type');
    const unknown = await call('POST', '/templates', { name: 'x', filename: 'a.pdf', mimetype: 'application/pdf', ownerId: 'me' });
    expectProblem(unknown, 400);
    expect(unknown.body.errors).toEqual([{ path: 'ownerId', message: 'is not a known field' }]);

    const { id, template } = await draftLeaseTemplate();
    const repeated = await call('PATCH', `/templates/${id}`, { roles: [{ name: 'Client' }, { name: 'client' }] });
    expectProblem(repeated, 400);
    expect(repeated.body.errors[0].path).toBe('roles.1.name');
    const noRole = await call('PATCH', `/templates/${id}`, { fields: [{ roleId: 'nobody', type: 'text', ...rects.clientText }] });
    expectProblem(noRole, 400);
    expect(noRole.body.errors).toEqual([{ path: 'fields.0.roleId', message: 'names no role of this template' }]);
    const ccFields = await call('PATCH', `/templates/${id}`, { roles: [{ id: template.roles[0].id, name: 'Client', role: 'cc' }, template.roles[1]] });
    expectProblem(ccFields, 400);
    expect(ccFields.body.errors[0].path).toBe('roles.0.role');
    expectProblem(await call('PATCH', `/templates/${id}`, { expiresInDays: 366 }), 400);
    const locale = await call('PATCH', `/templates/${id}`, { locale: 'xx' });
    expectProblem(locale, 400);
    expect(locale.body.errors[0]).toEqual({ path: 'locale', message: expect.stringContaining('pt-BR') });
    const stale = await call('PATCH', `/templates/${id}`, { name: 'Stale' }, owner, { 'If-Match': '"1"' });
    expectProblem(stale, 412);
    const rereadTemplate = (await call('GET', `/templates/${id}`)).body;
    expect(withoutUrls(rereadTemplate)).toEqual(withoutUrls(template));
    expect(rereadTemplate.documentUrl).toEqual(expect.any(String));
  });

  test('lists newest first, paged with limit and a Link to the next page', async () => {
    const user = await env.newUser();
    const names = ['first', 'second', 'third'];
    for (const name of names) expect((await call('POST', '/templates', { name, filename: 'a.pdf', mimetype: 'application/pdf' }, user)).status).toBe(201);
    const page = await call('GET', '/templates?limit=2', undefined, user);
    expect(page.body.map((template: { name: string }) => template.name)).toEqual(['third', 'second']);
    const next = /<([^>]+)>; rel="next"/.exec(page.headers.get('link') ?? '')![1]!;
    const rest = await call('GET', new URL(next).pathname.replace(/^\/api/, '') + new URL(next).search, undefined, user);
    expect(rest.body.map((template: { name: string }) => template.name)).toEqual(['first']);
    expect(rest.headers.get('link')).toBeNull();
    expectProblem(await call('GET', '/templates?cursor=bm90LWEtY3Vyc29y', undefined, user), 400);
  });

  test('another owner\'s template is answered exactly as a missing one: 404', async () => {
    const { id } = await activeLeaseTemplate();
    const missing = await call('GET', '/templates/0193a5d1-6a2b-7c3d-8e4f-5a6b7c8d9e0f', undefined, stranger);
    for (const [method, route, json] of [
      ['GET', `/templates/${id}`, undefined],
      ['PATCH', `/templates/${id}`, { name: 'Mine' }],
      ['DELETE', `/templates/${id}`, undefined],
      ['POST', `/templates/${id}/envelopes`, { recipients: [] }],
    ] as const) {
      const response = await call(method, route, json, stranger);
      expectProblem(response, 404);
      expect(response.body).toEqual(missing.body);
    }
    expect((await call('GET', '/templates', undefined, stranger)).body).toEqual([]);
    expect((await call('GET', `/templates/${id}`)).body.name).toBe('Lease');
  });
});

describe('POST /api/templates/{id}/envelopes', () => {
  test('by role name: sent at once; the recipients sign from their e-mails; the sealed PDF shows each value in its field', async () => {
    const { id, template, roles } = await activeLeaseTemplate();
    const { client, landlord } = people('byname');
    const made = await call('POST', `/templates/${id}/envelopes`, { recipients: [{ roleName: 'landlord', ...landlord }, { roleName: 'Client', ...client }] });
    expect(made.status).toBe(201);
    const envelope = made.body;
    expect(made.headers.get('location')).toBe(`/api/envelopes/${envelope.id}`);
    expect(envelope).toMatchObject({ status: 'sent', templateId: id, documentName: 'lease.pdf', documentSha256: template.documentSha256, pageCount: 2, signingOrder: 'sequential' });
    // Signers in the template's role order, with each role's routing order; fields with new ids for them.
    expect(envelope.signers.map((signer: any) => [signer.email, signer.role, signer.routingOrder, signer.status])).toEqual([
      [client.email, 'signer', 1, 'sent'],
      [landlord.email, 'signer', 2, 'waiting'],
    ]);
    const [clientId, landlordId] = envelope.signers.map((signer: any) => signer.id);
    expect(envelope.fields.map((field: any) => [field.recipientId, field.type, field.page])).toEqual([
      [clientId, 'text', 1],
      [clientId, 'signature', 1],
      [landlordId, 'signature', 2],
    ]);
    expect(envelope.fields.map((field: any) => field.id)).not.toEqual(expect.arrayContaining(template.fields.map((field: any) => field.id)));
    // expiresInDays: 10 from the send.
    expect(Date.parse(envelope.expiresAt) - Date.parse(envelope.sentAt)).toBe(10 * 86_400_000);
    const events = await auditTrail(env.api, owner, envelope.id);
    expect(events[0]).toMatchObject({ type: 'envelope.created', details: { documentName: 'lease.pdf', blobName: `${envelope.id}/lease.pdf`, templateId: id } });
    expect(events.map((event) => event.type)).toContain('envelope.sent');
    // The envelope's evidence ties back to the template's upload (docs/api.md#evidence).
    expect(events.find((event) => event.type === 'envelope.sent').details).toMatchObject({ documentSha256: template.documentSha256, uploadSha256: createHash('sha256').update(pdf).digest('hex'), removed: [] });
    expect(roles.map((role) => role.name)).toEqual(['Client', 'Landlord']);

    const clientLink = await waitForSigningLink(client.email);
    const signedByClient = await env.api.request('POST', '/signing/complete', {
      token: clientLink.token,
      json: { consent: true, values: [{ fieldId: envelope.fields[0].id, value: 'Flat 4B' }, { fieldId: envelope.fields[1].id, value: { typed: 'Carol Client' } }] },
    });
    expect(signedByClient.status).toBe(200);
    const landlordLink = await waitForSigningLink(landlord.email);
    const signedByLandlord = await env.api.request('POST', '/signing/complete', {
      token: landlordLink.token,
      json: { consent: true, values: [{ fieldId: envelope.fields[2].id, value: { typed: 'Larry Landlord' } }] },
    });
    expect(signedByLandlord.status).toBe(200);
    expect(signedByLandlord.body.envelope.status).toBe('completed');

    const sealed = Buffer.from(await (await fetch(signedByLandlord.body.signedUrl)).arrayBuffer());
    const file = await tempFile(sealed);
    expect((await tool('pdfsig', ['-nocert', file])).stdout).toContain('Signature is Valid.');
    const pages = await wordBoxes(file);
    const expectWords = (pageNumber: number, words: string[], rect: { x: number; y: number; width: number; height: number }) => {
      const page = pages[pageNumber - 1]!;
      for (const text of words) {
        const word = page.words.find((candidate) => candidate.text === text);
        expect([text, word === undefined ? 'missing' : inside(word, rect, page) ? 'inside' : `outside at ${JSON.stringify(word)}`]).toEqual([text, 'inside']);
      }
    };
    expectWords(1, ['Flat', '4B'], rects.clientText);
    expectWords(1, ['Carol', 'Client'], rects.clientSignature);
    expectWords(2, ['Larry', 'Landlord'], rects.landlordSignature);
  });

  test('values prefilled at use (a text, a date) and a read-only value of the template are drawn inside their fields in the sealed PDF', async () => {
    const prefilled = {
      flat: { page: 1, x: 0.1, y: 0.2, width: 0.4, height: 0.05 },
      moveIn: { page: 1, x: 0.55, y: 0.2, width: 0.3, height: 0.05 },
      rent: { page: 1, x: 0.1, y: 0.4, width: 0.3, height: 0.05 },
      signature: { page: 2, x: 0.1, y: 0.7, width: 0.4, height: 0.08 },
    };
    const created = await call('POST', '/templates', { name: 'Prefilled lease', filename: 'lease.pdf', mimetype: 'application/pdf' });
    expect(created.status).toBe(201);
    expect((await putToSas(created.body.uploadUrl, pdf)).status).toBe(201);
    const id = created.body.template.id;
    const updated = await call('PATCH', `/templates/${id}`, {
      roles: [{ id: 'tenant', name: 'Tenant' }],
      fields: [
        { roleId: 'tenant', type: 'text', label: 'Flat', ...prefilled.flat },
        { roleId: 'tenant', type: 'date', label: 'Move-in', ...prefilled.moveIn },
        { roleId: 'tenant', type: 'number', label: 'Rent', value: '1200.50', readOnly: true, ...prefilled.rent },
        { roleId: 'tenant', type: 'signature', ...prefilled.signature },
      ],
      status: 'active',
    });
    expect(updated.status).toBe(200);
    const [flat, moveIn, rent] = updated.body.fields;
    const tenant = { email: 'tenant-prefilled@example.com', name: 'Tess Tenant' };
    const made = await call('POST', `/templates/${id}/envelopes`, {
      recipients: [{ roleName: 'Tenant', ...tenant }],
      values: [{ fieldId: flat.id, value: 'Flat 4B' }, { fieldId: moveIn.id, value: '2027-01-15' }],
    });
    expect(made.status).toBe(201);
    const envelope = made.body;
    expect(envelope.fields.map((field: any) => [field.label, field.value ?? null, field.readOnly ?? false])).toEqual([
      ['Flat', 'Flat 4B', false],
      ['Move-in', '2027-01-15', false],
      ['Rent', '1200.50', true],
      [null, null, false],
    ]);

    // The recipient keeps the prefilled defaults and cannot change the read-only value.
    const link = await waitForSigningLink(tenant.email);
    const signature = { fieldId: envelope.fields[3].id, value: { typed: 'Tess Tenant' } };
    const refused = await env.api.request('POST', '/signing/complete', { token: link.token, json: { consent: true, values: [signature, { fieldId: envelope.fields[2].id, value: '999.00' }] } });
    expectProblem(refused, 400);
    expect(JSON.stringify(refused.body.errors)).toContain('values.1');
    const signed = await env.api.request('POST', '/signing/complete', { token: link.token, json: { consent: true, values: [signature] } });
    expect(signed.status).toBe(200);
    expect(signed.body.envelope.status).toBe('completed');

    const file = await tempFile(Buffer.from(await (await fetch(signed.body.signedUrl)).arrayBuffer()));
    expect((await tool('pdfsig', ['-nocert', file])).stdout).toContain('Signature is Valid.');
    const pages = await wordBoxes(file);
    const placed = (pageNumber: number, words: string[], rect: { x: number; y: number; width: number; height: number }) => {
      const page = pages[pageNumber - 1]!;
      return words.map((text) => {
        const word = page.words.find((candidate) => candidate.text === text);
        return [text, word === undefined ? 'missing' : inside(word, rect, page) ? 'inside' : `outside at ${JSON.stringify(word)}`];
      });
    };
    expect([
      ...placed(1, ['Flat', '4B'], prefilled.flat),
      ...placed(1, ['2027-01-15'], prefilled.moveIn),
      ...placed(1, ['1200.50'], prefilled.rent),
      ...placed(2, ['Tess', 'Tenant'], prefilled.signature),
    ]).toEqual([
      ['Flat', 'inside'],
      ['4B', 'inside'],
      ['2027-01-15', 'inside'],
      ['1200.50', 'inside'],
      ['Tess', 'inside'],
      ['Tenant', 'inside'],
    ]);
  });

  test('by role id with send false: a draft with the frozen document from the start; it sends as any draft, and outlives its template', async () => {
    const { id, roles, template } = await activeLeaseTemplate();
    expect((await call('PATCH', `/templates/${id}`, { locale: 'de' })).body.locale).toBe('de');
    const { client, landlord } = people('byid');
    const made = await call('POST', `/templates/${id}/envelopes`, {
      recipients: [{ roleId: roles[0].id, ...client }, { roleId: roles[1].id, ...landlord }],
      send: false,
      expiresAt: '2099-01-01T00:00:00Z',
    });
    expect(made.status).toBe(400);
    expect(made.body.errors).toEqual([{ path: 'expiresAt', message: 'must be at most 365 days ahead' }]);
    const expiresAt = new Date(Date.now() + 20 * 86_400_000).toISOString();
    const draft = await call('POST', `/templates/${id}/envelopes`, { recipients: [{ roleId: roles[0].id, ...client }, { roleId: roles[1].id, ...landlord }], send: false, expiresAt });
    expect(draft.status).toBe(201);
    expect(draft.body).toMatchObject({ status: 'draft', templateId: id, documentSha256: template.documentSha256, pageCount: 2, expiresAt, sentAt: null, locale: 'de' });
    expect(new URL(draft.body.documentUrl).pathname).toContain(`/originals/${draft.body.id}/lease.pdf`);

    // Deleting the template leaves the envelope whole: its own frozen copy, its templateId.
    expect((await call('DELETE', `/templates/${id}`)).status).toBe(204);
    expectProblem(await call('GET', `/templates/${id}`), 404);
    expectProblem(await call('DELETE', `/templates/${id}`), 404);
    const sent = await call('PATCH', `/envelopes/${draft.body.id}`, { status: 'sent' });
    expect(sent.status).toBe(200);
    expect(sent.body).toMatchObject({ status: 'sent', templateId: id, documentSha256: template.documentSha256 });
    expect(sha256(Buffer.from(await (await fetch(sent.body.documentUrl)).arrayBuffer()))).toBe(template.documentSha256);
    await waitForSigningLink(client.email);
  });

  test('a template with no fields makes an envelope the owner may complete as it is', async () => {
    const created = await call('POST', '/templates', { name: 'Notice', filename: 'notice.pdf', mimetype: 'application/pdf' });
    await putToSas(created.body.uploadUrl, pdf);
    const id = created.body.template.id;
    expect((await call('PATCH', `/templates/${id}`, { roles: [{ name: 'Tenant' }], status: 'active' })).status).toBe(200);
    const draft = await call('POST', `/templates/${id}/envelopes`, { recipients: [{ roleName: 'Tenant', email: 'tenant-notice@example.com', name: 'Tia Tenant' }], send: false });
    const completed = await call('POST', `/envelopes/${draft.body.id}/complete`);
    expect(completed.status).toBe(200);
    const sealed = Buffer.from(await (await fetch(completed.body.signedUrl)).arrayBuffer());
    expect(sha256(sealed)).toBe(completed.body.hash);
  });

  test('refuses a draft template, and missing, unknown or repeated roles, naming them; nothing is made', async () => {
    const { id: draftId } = await draftLeaseTemplate();
    const notActive = await call('POST', `/templates/${draftId}/envelopes`, { recipients: [] });
    expectProblem(notActive, 409);
    expect(notActive.body.type).toBe('urn:problem:template-not-active');

    const { id, roles, template } = await activeLeaseTemplate();
    const { client, landlord } = people('refused');
    const before = (await call('GET', '/envelopes')).body.length;
    const cases: [unknown, { path: string; message: RegExp }][] = [
      [{ recipients: [{ roleName: 'Client', ...client }] }, { path: 'recipients', message: /role "Landlord"/ }],
      [{ recipients: [{ roleName: 'Tenant', ...client }, { roleName: 'Landlord', ...landlord }] }, { path: 'recipients.0.roleName', message: /"Tenant", which names no role/ }],
      [{ recipients: [{ roleId: '0193a5d1-6a2b-7c3d-8e4f-5a6b7c8d9e0f', ...client }, { roleName: 'Landlord', ...landlord }] }, { path: 'recipients.0.roleId', message: /names no role/ }],
      [{ recipients: [{ roleName: 'Client', ...client }, { roleId: roles[0].id, ...landlord }] }, { path: 'recipients.1.roleId', message: /repeats role "Client"/ }],
      [{ recipients: [{ ...client }, { roleName: 'Landlord', ...landlord }] }, { path: 'recipients.0', message: /names no role/ }],
      [{ recipients: [{ roleName: 'Client', ...client }, { roleName: 'Landlord', ...client }] }, { path: 'recipients.1.email', message: /repeats the e-mail address/ }],
      [{ recipients: [{ roleName: 'Client', ...client }, { roleName: 'Landlord', ...landlord }], values: [{ fieldId: 'nope', value: 'x' }] }, { path: 'values.0.fieldId', message: /names no field/ }],
    ];
    for (const [body, error] of cases) {
      const refused = await call('POST', `/templates/${id}/envelopes`, body);
      expectProblem(refused, 400);
      expect(refused.body.errors).toEqual(expect.arrayContaining([{ path: error.path, message: expect.stringMatching(error.message) }]));
    }
    expectProblem(await call('POST', `/templates/${id}/envelopes`, { recipients: [{ roleName: 'Client', ...client, role: 'cc' }] }), 400);
    expect((await call('GET', '/envelopes')).body.length).toBe(before);
    const rereadTemplate = (await call('GET', `/templates/${id}`)).body;
    expect(withoutUrls(rereadTemplate)).toEqual(withoutUrls(template));
    expect(rereadTemplate.documentUrl).toEqual(expect.any(String));
  });

  test('no prefilled value on a field the service fills (date_signed, name, email): in the template\'s fields or at use → 400 naming it; nothing changed or made', async () => {
    const created = await call('POST', '/templates', { name: 'Service-filled', filename: 'lease.pdf', mimetype: 'application/pdf' });
    expect(created.status).toBe(201);
    expect((await putToSas(created.body.uploadUrl, pdf)).status).toBe(201);
    const id = created.body.template.id;
    const at = (y: number) => ({ page: 1, x: 0.1, y, width: 0.4, height: 0.05 });
    const fields = [
      { roleId: 'tenant', type: 'signature', ...at(0.1) },
      { roleId: 'tenant', type: 'date_signed', ...at(0.2) },
      { roleId: 'tenant', type: 'name', ...at(0.3) },
      { roleId: 'tenant', type: 'email', ...at(0.4) },
    ];
    const before = (await call('GET', `/templates/${id}`)).body;
    for (const index of [1, 2, 3]) {
      for (const extra of [{ value: '2001-01-01' }, { value: 'Someone Else', readOnly: true }]) {
        const refused = await call('PATCH', `/templates/${id}`, { roles: [{ id: 'tenant', name: 'Tenant' }], fields: fields.map((field, at) => (at === index ? { ...field, ...extra } : field)) });
        expectProblem(refused, 400);
        expect(refused.body.errors).toEqual([{ path: `fields.${index}.value`, message: expect.stringMatching(/cannot be prefilled on a \w+ field: the service fills in/) }]);
      }
    }
    const rereadBefore = (await call('GET', `/templates/${id}`)).body;
    expect(withoutUrls(rereadBefore)).toEqual(withoutUrls(before));
    expect(rereadBefore.documentUrl).toEqual(expect.any(String));

    const updated = await call('PATCH', `/templates/${id}`, { roles: [{ id: 'tenant', name: 'Tenant' }], fields, status: 'active' });
    expect(updated.status).toBe(200);
    const envelopesBefore = (await call('GET', '/envelopes')).body.length;
    const tenant = { roleName: 'Tenant', email: 'tenant-service-filled@example.com', name: 'Tess Tenant' };
    for (const [index, value] of [[1, '2001-01-01'], [2, 'Someone Else'], [3, 'someone@example.com']] as const) {
      const refused = await call('POST', `/templates/${id}/envelopes`, { recipients: [tenant], values: [{ fieldId: updated.body.fields[0].id, value: { typed: 'x' } }, { fieldId: updated.body.fields[index].id, value }] });
      expectProblem(refused, 400);
      expect(refused.body.errors).toEqual(expect.arrayContaining([{ path: 'values.1.value', message: expect.stringMatching(/cannot be prefilled on a \w+ field: the service fills in/) }]));
    }
    expect((await call('GET', '/envelopes')).body.length).toBe(envelopesBefore);
  });

  test('honours Idempotency-Key: the retry gets the same envelope, and no second one is made', async () => {
    const { id } = await activeLeaseTemplate();
    const { client, landlord } = people('idempotent');
    const body = { recipients: [{ roleName: 'Client', ...client }, { roleName: 'Landlord', ...landlord }], send: false };
    const headers = { 'Idempotency-Key': `use-${id}` };
    const first = await call('POST', `/templates/${id}/envelopes`, body, owner, headers);
    const again = await call('POST', `/templates/${id}/envelopes`, body, owner, headers);
    expect(first.status).toBe(201);
    expect(again.text).toBe(first.text);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    const made = (await call('GET', '/envelopes')).body.filter((envelope: { templateId: string | null }) => envelope.templateId === id);
    expect(made).toHaveLength(1);
    // The frozen copy the envelope holds is its own (container originals, its own blob name).
    const properties = await getServices().storage.containers.originals.getBlockBlobClient(`${first.body.id}/lease.pdf`).getProperties();
    expect(properties.metadata?.sha256).toBe(first.body.documentSha256);
  });

  test('a deletion that died after removing the documents: using the template answers 404, and a retry of the DELETE finishes it', async () => {
    const { id } = await activeLeaseTemplate();
    const { containers } = getServices().storage;
    // What a process that died between the blobs and the row leaves: the row, without its documents.
    await Promise.all([containers.templates, containers.originals].map((container) => container.getBlockBlobClient(`${id}/lease.pdf`).deleteIfExists()));
    const { client, landlord } = people('half-deleted');
    const before = (await call('GET', '/envelopes')).body.length;
    expectProblem(await call('POST', `/templates/${id}/envelopes`, { recipients: [{ roleName: 'Client', ...client }, { roleName: 'Landlord', ...landlord }], send: false }), 404);
    expect((await call('GET', '/envelopes')).body).toHaveLength(before);
    expect((await call('DELETE', `/templates/${id}`)).status).toBe(204);
    expectProblem(await call('GET', `/templates/${id}`), 404);
  });
});
