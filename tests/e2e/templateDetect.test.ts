/**
 * Fields of a template from its document (docs/api.md#fields-from-the-document) over real HTTP, Azurite and Chromium: a page
 * Chromium printed with text tags naming roles by name (any case) becomes the template's fields, given
 * to those roles; a tag naming no role refuses the request and changes nothing; the template is
 * activated (after which detection is refused), an envelope is made from it and signed, and the sealed
 * PDF shows the values while no tag is left visible (rendered pixels), though a tag stays in the text
 * layer (poppler's text).
 */
import { describe, expect, test } from '@jest/globals';
import { launchChromium } from '../support/browser.js';
import { darkPixels, render } from '../support/render.js';
import { expectProblem as expectProblemBody, putToSas, serviceForFile, type ApiResponse, type TestService, type TestUser } from '../support/service.js';
import { signingTokenFor } from '../support/signing.js';
import { tempFile, tool } from '../support/tools.js';

let env: TestService;
let owner: TestUser;
let tagged: Buffer;
let badTag: Buffer;

/** A page of body text with tags, printed by Chromium. */
async function printed(browser: Awaited<ReturnType<typeof launchChromium>>, body: string): Promise<Buffer> {
  const page = await browser.newPage();
  await page.setContent(`<!doctype html><html><body style="font: 15px sans-serif; margin: 40px">${body}</body></html>`);
  return Buffer.from(await page.pdf({ format: 'A4' }));
}

serviceForFile(async (started) => {
  ({ env, owner } = started);
  const browser = await launchChromium();
  try {
    tagged = await printed(
      browser,
      `<h1>Lease agreement</h1>
      <p>Flat: <span style="font-family: serif">{{text;r=client;</span><b>label=Flat}}</b></p>
      <p>Client signature: {{signature;r=Client;label=ClientSignature}}</p>
      <p>Date: {{date_signed}}</p>
      <p>Notes: {{text;r=LANDLORD;required=false;label=Notes}}</p>
      <p>Landlord signature: {{signature;r=Landlord;label=LandlordSignature}}</p>`,
    );
    badTag = await printed(browser, '<p>Page one</p><p style="break-before: page">Tenant: {{signature;r=Tenant}}</p>');
  } finally {
    await browser.close();
  }
});

/** A problem+json answer of `status` with the problem type `urn:problem:<slug>`. */
function expectProblem(response: ApiResponse<any>, status: number, slug: string): void {
  expectProblemBody(response, status);
  expect(response.body.type).toBe(`urn:problem:${slug}`);
}

const call = (method: string, route: string, json?: unknown): Promise<ApiResponse<any>> => env.api.request(method, route, { token: owner.token, ...(json === undefined ? {} : { json }) });

/** A draft template with `document` uploaded and the roles Witness (cc), Client and Landlord. */
async function draftTemplate(document: Buffer): Promise<{ id: string; roles: Record<string, string> }> {
  const created = await call('POST', '/templates', { name: 'Lease', filename: 'lease.pdf', mimetype: 'application/pdf' });
  expect(created.status).toBe(201);
  expect((await putToSas(created.body.uploadUrl, document)).status).toBe(201);
  const id = created.body.template.id as string;
  const updated = await call('PATCH', `/templates/${id}`, { roles: [{ name: 'Witness', role: 'cc' }, { name: 'Client' }, { name: 'Landlord', routingOrder: 2 }], signingOrder: 'sequential' });
  expect(updated.status).toBe(200);
  return { id, roles: Object.fromEntries(updated.body.roles.map((role: { id: string; name: string }) => [role.name, role.id])) };
}

describe('POST /api/templates/{id}/fields/detect', () => {
  test('tags name roles by name, without regard to case (default: the first role of role signer); activation, use, signing; the sealed PDF shows the values and no tag', async () => {
    const { id, roles } = await draftTemplate(tagged);
    const answer = await call('POST', `/templates/${id}/fields/detect`);
    expect(answer.status).toBe(200);
    expect(answer.headers.get('etag')).toBe((await env.api.request('GET', `/templates/${id}`, { token: owner.token })).headers.get('etag'));
    expect(answer.body).toMatchObject({ textTags: 5, formFields: 0 });
    const fields = answer.body.fields as any[];
    expect(fields.map((field) => [field.type, field.label, field.roleId, field.required, field.source, field.page])).toEqual([
      ['text', 'Flat', roles.Client, true, 'textTag', 1],
      ['signature', 'ClientSignature', roles.Client, true, 'textTag', 1],
      ['date_signed', null, roles.Client, true, 'textTag', 1],
      ['text', 'Notes', roles.Landlord, false, 'textTag', 1],
      ['signature', 'LandlordSignature', roles.Landlord, true, 'textTag', 1],
    ]);
    expect((await call('GET', `/templates/${id}`)).body.fields).toEqual(fields);

    // Activated, its document is frozen: detection is refused, the fields stay.
    expect((await call('PATCH', `/templates/${id}`, { status: 'active' })).status).toBe(200);
    expectProblem(await call('POST', `/templates/${id}/fields/detect`), 409, 'invalid-transition');
    expect((await call('GET', `/templates/${id}`)).body.fields).toEqual(fields);

    // An envelope from it: its fields keep where they came from.
    const made = await call('POST', `/templates/${id}/envelopes`, {
      recipients: [
        { roleName: 'witness', email: 'wit@example.com', name: 'Wit Ness' },
        { roleName: 'Client', email: 'ada@example.com', name: 'Ada Lovelace' },
        { roleName: 'Landlord', email: 'lee@example.com', name: 'Lee Landlord' },
      ],
    });
    expect(made.status).toBe(201);
    const envelope = made.body;
    expect(envelope.fields.map((field: any) => [field.label, field.source])).toEqual(fields.map((field) => [field.label, 'textTag']));
    // Its document, which the signing page shows, is the template's frozen at activation: no tag shows where the fields are.
    const envelopeRead = await call('GET', `/envelopes/${envelope.id}`);
    const frozenFile = await tempFile(Buffer.from(await (await fetch(envelopeRead.body.documentUrl)).arrayBuffer()), 'template-frozen.pdf');
    const shown = await render(await tempFile(tagged, 'template-tagged-shown.pdf'), 1, 100, 'template-detect-shown');
    const frozen = await render(frozenFile, 1, 100, 'template-detect-frozen');
    for (const field of envelope.fields) {
      expect(darkPixels(shown, field)).toBeGreaterThan(50);
      expect(darkPixels(frozen, field)).toBe(0);
    }
    const signerOf = (email: string) => envelope.signers.find((signer: any) => signer.email === email).id as string;
    const valuesFor = (email: string, wanted: Record<string, unknown>) =>
      envelope.fields.filter((field: any) => field.recipientId === signerOf(email) && field.label !== null && wanted[field.label] !== undefined).map((field: any) => ({ fieldId: field.id, value: wanted[field.label] }));
    const client = await env.api.request('POST', '/signing/complete', {
      token: await signingTokenFor(owner.userId, envelope.id, 'ada@example.com'),
      json: { consent: true, values: valuesFor('ada@example.com', { Flat: 'Flat 4B', ClientSignature: { typed: 'Ada Lovelace' } }) },
    });
    expect(client.status).toBe(200);
    const landlord = await env.api.request('POST', '/signing/complete', {
      token: await signingTokenFor(owner.userId, envelope.id, 'lee@example.com'),
      json: { consent: true, values: valuesFor('lee@example.com', { LandlordSignature: { typed: 'Lee Landlord' } }) },
    });
    expect(landlord.status).toBe(200);
    expect(landlord.body.envelope.status).toBe('completed');
    const sealed = Buffer.from(await (await fetch(landlord.body.signedUrl)).arrayBuffer());

    const originalFile = await tempFile(tagged, 'template-tagged.pdf');
    const sealedFile = await tempFile(sealed, 'template-sealed.pdf');
    expect((await tool('pdftotext', ['-f', '1', '-l', '1', originalFile, '-'])).stdout).toContain('{{signature;r=Client;label=ClientSignature}}');
    const text = (await tool('pdftotext', ['-f', '1', '-l', '1', sealedFile, '-'])).stdout;
    expect(text).toContain('Flat 4B');
    // Typed signatures (poppler may break a signature's words across lines).
    expect(text).toMatch(/Ada\s+(?:\S+\s+)?Lovelace/);
    expect(text).toMatch(/Lee\s+(?:\S+\s+)?Landlord/);
    expect(text).toContain(new Date().toISOString().slice(0, 10));
    // The page content still holds the tags' text, but painted over: pixels tell what is shown.
    const before = await render(originalFile, 1, 100, 'template-detect-original');
    const after = await render(sealedFile, 1, 100, 'template-detect-sealed');
    const notes = fields[3];
    expect(darkPixels(before, notes)).toBeGreaterThan(50);
    expect(darkPixels(after, notes)).toBe(0);
    // Hidden, not removed: the empty field's tag is still in the sealed page's text layer (docs/api.md says so).
    expect(text).toContain('{{text;r=LANDLORD;required=false;label=Notes}}');
    expect(darkPixels(after, fields[0])).toBeLessThan(darkPixels(before, fields[0]));
  });

  test('a tag naming no role: 422 text-tag-invalid naming the page and the tag, nothing changed; a draft without upload: 409', async () => {
    const { id, roles } = await draftTemplate(badTag);
    const placed = await call('PATCH', `/templates/${id}`, { fields: [{ roleId: roles.Client, type: 'text', page: 1, x: 0.1, y: 0.1, width: 0.2, height: 0.05 }] });
    expect(placed.status).toBe(200);
    const refused = await call('POST', `/templates/${id}/fields/detect`);
    expectProblem(refused, 422, 'text-tag-invalid');
    expect(refused.body.errors).toEqual([{ path: 'pages.2', message: expect.stringMatching(/^\{\{signature;r=Tenant\}\} .*names no role of this template/) }]);
    expect(refused.body.detail).toContain('page 2');
    const after = await call('GET', `/templates/${id}`);
    expect(after.body.fields).toEqual(placed.body.fields);
    expect(after.body.updatedAt).toBe(placed.body.updatedAt);

    const empty = await call('POST', '/templates', { name: 'Empty', filename: 'empty.pdf', mimetype: 'application/pdf' });
    expectProblem(await call('POST', `/templates/${empty.body.template.id}/fields/detect`), 409, 'document-not-uploaded');
  });

  test('a tag naming a role of role cc: 422; another owner\'s template: 404', async () => {
    const { id } = await draftTemplate(badTag);
    const renamed = await call('PATCH', `/templates/${id}`, { roles: [{ name: 'Tenant', role: 'cc' }, { name: 'Client' }] });
    expect(renamed.status).toBe(200);
    const refused = await call('POST', `/templates/${id}/fields/detect`);
    expectProblem(refused, 422, 'text-tag-invalid');
    expect(refused.body.errors[0].message).toContain('whose role is cc');
    const stranger = await env.newUser();
    expectProblem(await env.api.request('POST', `/templates/${id}/fields/detect`, { token: stranger.token }), 404, 'template-not-found');
  });
});
