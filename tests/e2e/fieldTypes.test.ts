/**
 * Field types `number`, `date`, `dropdown`, the rules of `text` (length, an RE2 pattern matching the
 * whole value) and the owner's prefilled values, read-only or default (never on a field the service
 * fills), over real HTTP: refused
 * definitions at PUT (400 naming the field's property), refused values at signing (400 naming the
 * value and the field), defaults standing in for missing values, and the sealed PDF drawing each
 * value (checked with pdftotext).
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, test } from '@jest/globals';
import { createEnvelopeWithDocument, expectProblem, serviceForFile, type ApiResponse, type TestService, type TestUser } from '../support/service.js';
import { sentEnvelope, signingTokenFor } from '../support/signing.js';
import { tempFile, tool } from '../support/tools.js';
import { ada, bea } from '../support/people.js';
import { withoutUrls } from '../support/contract.js';

let env: TestService;
let owner: TestUser;
serviceForFile((started) => ({ env, owner } = started));

let row = 0;
/** A field on page 1, each on its own row so that drawn values do not overlap. */
const box = (type: string, extra: Record<string, unknown> = {}) => ({ type, page: 1, x: 0.1, y: 0.05 + 0.07 * (row++ % 12), width: 0.5, height: 0.05, ...extra });

const complete = (token: string, values: { fieldId: string; value: unknown }[]): Promise<ApiResponse<any>> =>
  env.api.request('POST', '/signing/complete', { token, json: { consent: true, values } });
const get = (id: string) => env.api.request('GET', `/envelopes/${id}`, { token: owner.token });

/** PUTs `fields` (all for one signer) on a new draft envelope. */
async function putFields(fields: Record<string, unknown>[]): Promise<ApiResponse<any>> {
  const id = await createEnvelopeWithDocument(env.api, owner, null);
  const recipientId = randomUUID();
  return await env.api.request('PUT', `/envelopes/${id}`, {
    token: owner.token,
    json: { signers: [{ id: recipientId, ...ada }], fields: fields.map((field) => ({ recipientId, ...field })) },
  });
}

/** Expects 400 `validation-failed` with an error at `path` whose message matches `message`. */
function expectRefused(response: ApiResponse<any>, path: string, message: RegExp): void {
  expectProblem(response, 400);
  expect(response.body.type).toBe('urn:problem:validation-failed');
  expect(response.body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ path, message: expect.stringMatching(message) })]));
}

/** A sent envelope whose one signer (Ada) has `fields`; her token and the fields as stored. */
async function signerWith(fields: Record<string, unknown>[]): Promise<{ id: string; token: string; fields: any[] }> {
  const { id, envelope } = await sentEnvelope(env.api, owner, { signers: [ada], fields: fields.map((field) => ({ recipient: 0, ...field })) });
  return { id, token: await signingTokenFor(owner.userId, id, ada.email), fields: envelope.fields };
}

describe('field definitions (PUT)', () => {
  test('the new types and rules are stored and shown as sent; absent rules are absent', async () => {
    const fields = [
      box('number', { min: 0, max: 99.5, label: 'Amount' }),
      box('date', { required: false }),
      box('dropdown', { options: ['Red', 'Green'], value: 'Green' }),
      box('text', { minLength: 2, maxLength: 10, pattern: '[A-Z]+', value: 'ABC', readOnly: true }),
      box('checkbox', { value: true, readOnly: true }),
      box('text'),
    ];
    const response = await putFields(fields);
    expect(response.status).toBe(200);
    const shown = response.body.fields;
    expect(shown[0]).toMatchObject({ type: 'number', min: 0, max: 99.5, label: 'Amount' });
    expect(shown[1]).toMatchObject({ type: 'date', required: false });
    expect(shown[2]).toMatchObject({ type: 'dropdown', options: ['Red', 'Green'], value: 'Green' });
    expect(shown[2]).not.toHaveProperty('readOnly');
    expect(shown[3]).toMatchObject({ type: 'text', minLength: 2, maxLength: 10, pattern: '[A-Z]+', value: 'ABC', readOnly: true });
    expect(shown[4]).toMatchObject({ type: 'checkbox', value: true, readOnly: true });
    expect(Object.keys(shown[5]).sort()).toEqual(['documentId', 'height', 'id', 'label', 'page', 'recipientId', 'required', 'type', 'width', 'x', 'y']);
  });

  test.each([
    ['a dropdown without options', box('dropdown'), 'fields.0.options', /required for a dropdown/],
    ['an empty options list', box('dropdown', { options: [] }), 'fields.0.options', /1 to 50/],
    ['51 options', box('dropdown', { options: Array.from({ length: 51 }, (_, index) => `o${index}`) }), 'fields.0.options', /1 to 50/],
    ['an option of 101 characters', box('dropdown', { options: ['x'.repeat(101)] }), 'fields.0.options.0', /at most 100/],
    ['repeated options', box('dropdown', { options: ['a', 'a'] }), 'fields.0.options', /repeats/],
    ['options on a text field', box('text', { options: ['a'] }), 'fields.0.options', /only for fields of type dropdown/],
    ['min on a text field', box('text', { min: 1 }), 'fields.0.min', /only for fields of type number/],
    ['min as a string', box('number', { min: '1' }), 'fields.0.min', /JSON number/],
    ['min above max', box('number', { min: 5, max: 1 }), 'fields.0.max', /less than min/],
    ['maxLength above 500', box('text', { maxLength: 501 }), 'fields.0.maxLength', /0 to 500/],
    ['minLength above maxLength', box('text', { minLength: 5, maxLength: 2 }), 'fields.0.maxLength', /less than minLength/],
    ['pattern on a number field', box('number', { pattern: '[0-9]+' }), 'fields.0.pattern', /only for fields of type text/],
    ['a pattern that does not compile', box('text', { pattern: '(a' }), 'fields.0.pattern', /not a valid regular expression/],
    ['a pattern that would escape its anchoring group', box('text', { pattern: 'a)|(b' }), 'fields.0.pattern', /not a valid regular expression/],
    ['a look-ahead (not RE2)', box('text', { pattern: '(?=a)a' }), 'fields.0.pattern', /not a valid regular expression/],
    ['a pattern of 201 characters', box('text', { pattern: 'a'.repeat(201) }), 'fields.0.pattern', /at most 200/],
    ['readOnly without a value', box('text', { readOnly: true }), 'fields.0.readOnly', /needs a value/],
    ['a value on a signature field', box('signature', { value: 'Ada' }), 'fields.0.value', /cannot be prefilled/],
    ['a name value, even a boolean', box('name', { value: true }), 'fields.0.value', /cannot be prefilled on a name field/],
    ['a number value that is a JSON number', box('number', { value: 12.5 }), 'fields.0.value', /must be a string/],
    ['a number value out of bounds', box('number', { max: 10, value: '11' }), 'fields.0.value', /at most 10/],
    ['a date value that is no date', box('date', { value: '2026-02-30' }), 'fields.0.value', /YYYY-MM-DD/],
    ['a dropdown value not among the options', box('dropdown', { options: ['a', 'b'], value: 'c' }), 'fields.0.value', /one of the options/],
    ['a text value breaking the pattern', box('text', { pattern: '[0-9]+', value: '12a' }), 'fields.0.value', /must match the pattern/],
    ['a checkbox value that is a string', box('checkbox', { value: 'yes' }), 'fields.0.value', /true or false/],
    ['an unknown type', box('currency'), 'fields.0.type', /must be one of/],
  ])('%s → 400 naming the property', async (_name, field, path, message) => {
    const response = await putFields([field]);
    expectRefused(response, path, message);
  });
});

describe('values at signing', () => {
  test('no prefilled value on a field the service fills (date_signed, name, email), read-only or not → 400 naming its value; nothing stored', async () => {
    const id = await createEnvelopeWithDocument(env.api, owner, null);
    const recipientId = randomUUID();
    const put = (fields: Record<string, unknown>[]) =>
      env.api.request('PUT', `/envelopes/${id}`, { token: owner.token, json: { signers: [{ id: recipientId, ...ada }], fields: fields.map((field) => ({ recipientId, ...field })) } });
    const shown = async () => withoutUrls((await get(id)).body as Record<string, unknown>);
    const before = await shown();
    for (const type of ['date_signed', 'name', 'email']) {
      for (const extra of [{ value: '2001-01-01' }, { value: 'Someone Else', readOnly: true }, { value: 'x@example.com', required: false }]) {
        const refused = await put([box('text'), box(type, extra)]);
        expectRefused(refused, 'fields.1.value', new RegExp(`cannot be prefilled on a ${type} field: the service fills in`));
        const patched = await env.api.request('PATCH', `/envelopes/${id}`, { token: owner.token, json: { signers: [{ id: recipientId, ...ada }], fields: [{ recipientId, ...box(type, extra) }] } });
        expectRefused(patched, 'fields.0.value', /cannot be prefilled/);
      }
    }
    expect(await shown()).toEqual(before);
    // Without a value such a field is fine; an empty string is no value.
    expect((await put([box('date_signed'), box('name', { value: '' }), box('email')])).status).toBe(200);
  });

  test('number: a string within min and max; a JSON number, a malformed string or one out of bounds → 400 naming the field', async () => {
    const { token, fields } = await signerWith([box('number', { min: -5, max: 100, label: 'Amount' })]);
    const fieldId = fields[0].id;
    for (const [value, message] of [
      [12.5, /must be a signature|string/],
      ['12,50', /decimal number/],
      ['1e3', /decimal number/],
      ['100.01', /at most 100/],
      ['-6', /at least -5/],
    ] as const) {
      const response = await complete(token, [{ fieldId, value }]);
      expectRefused(response, 'values.0.value', message);
      if (typeof value === 'string') expect(response.body.errors[0].message).toContain(`"Amount", ${fieldId}`);
    }
    expect((await complete(token, [{ fieldId, value: '12.50' }])).status).toBe(200);
  });

  test('date: a real YYYY-MM-DD date; dropdown: one of the options', async () => {
    const { token, fields } = await signerWith([box('date'), box('dropdown', { options: ['Small', 'Large'] })]);
    const [date, dropdown] = fields.map((field: any) => field.id as any);
    expectRefused(await complete(token, [{ fieldId: date, value: '2026-13-01' }, { fieldId: dropdown, value: 'Large' }]), 'values.0.value', /YYYY-MM-DD/);
    expectRefused(await complete(token, [{ fieldId: date, value: '01/02/2026' }, { fieldId: dropdown, value: 'Large' }]), 'values.0.value', /YYYY-MM-DD/);
    expectRefused(await complete(token, [{ fieldId: date, value: '2026-02-28' }, { fieldId: dropdown, value: 'large' }]), 'values.1.value', /one of the options: Small, Large/);
    expectRefused(await complete(token, [{ fieldId: date, value: '' }, { fieldId: dropdown, value: 'Large' }]), 'values.0.value', /required/);
    expect((await complete(token, [{ fieldId: date, value: '2028-02-29' }, { fieldId: dropdown, value: 'Large' }])).status).toBe(200);
  });

  test('text: minLength, maxLength and a pattern matching the whole value, run by RE2', async () => {
    const { token, fields } = await signerWith([
      box('text', { minLength: 3, maxLength: 5, label: 'Code' }),
      box('text', { pattern: '[A-Z]{2}[0-9]{2}', label: 'Ref' }),
      box('text', { pattern: '(a+)+$', required: false, label: 'Redos' }),
    ]);
    const [code, ref, redos] = fields.map((field: any) => field.id as any);
    const values = (a: string, b: string, c = '') => [{ fieldId: code, value: a }, { fieldId: ref, value: b }, { fieldId: redos, value: c }];
    expectRefused(await complete(token, values('ab', 'AB12')), 'values.0.value', /at least 3 characters \(field "Code"/);
    expectRefused(await complete(token, values('abcdef', 'AB12')), 'values.0.value', /at most 5 characters/);
    // The whole value must match: a match inside it is not enough.
    expectRefused(await complete(token, values('abc', 'xAB12')), 'values.1.value', /must match the pattern \[A-Z\]\{2\}\[0-9\]\{2\} \(field "Ref"/);
    expectRefused(await complete(token, values('abc', 'AB123')), 'values.1.value', /must match the pattern/);
    // A pattern that backtracks catastrophically in JavaScript's RegExp: RE2 answers, and correctly.
    const refused = await complete(token, values('abc', 'AB12', `${'a'.repeat(400)}!`));
    expectRefused(refused, 'values.2.value', /must match the pattern \(a\+\)\+\$/);
    expect((await complete(token, values('abcd', 'AB12', 'a'.repeat(400)))).status).toBe(200);
  });

  test('each refused value names its field, the rule it breaks and the rule\'s params beside the message', async () => {
    const { token, fields } = await signerWith([
      box('text', { minLength: 3, maxLength: 5 }),
      box('text', { pattern: '[A-Z]{2}[0-9]{2}', required: false }),
      box('number', { min: -5, max: 100, required: false }),
      box('date', { required: false }),
      box('dropdown', { options: ['Small', 'Large'], required: false }),
      box('checkbox'),
    ]);
    const ids: string[] = fields.map((field: any) => field.id);
    const errorsOf = async (values: unknown[]) => {
      const response = await complete(token, values.map((value, index) => ({ fieldId: ids[index]!, value })));
      expect(response.status).toBe(400);
      return response.body.errors.map(({ path, fieldId, rule, params }: any) => ({ path, fieldId, rule, params }));
    };
    const at = (index: number, rule: string, params: object) => ({ path: `values.${index}.value`, fieldId: ids[index], rule, params });
    expect(await errorsOf(['ab', 'xAB12', '101', '2026-13-01', 'large', 'yes'])).toEqual([
      at(0, 'minLength', { min: 3 }),
      at(1, 'pattern', { pattern: '[A-Z]{2}[0-9]{2}' }),
      at(2, 'max', { max: 100 }),
      at(3, 'format', { format: 'date' }),
      at(4, 'options', { options: ['Small', 'Large'] }),
      at(5, 'type', { type: 'boolean' }),
    ]);
    expect(await errorsOf(['abcdef', 'AB12', '-6', '', '', false])).toEqual([at(0, 'maxLength', { max: 5 }), at(2, 'min', { min: -5 }), at(5, 'required', {})]);
    expect(await errorsOf(['', '', '1e3', '', '', true])).toEqual([at(0, 'required', {}), at(2, 'format', { format: 'number' })]);
    // No entry at all for a required field: `values`, naming it.
    const missing = await complete(token, [{ fieldId: ids[5]!, value: true }]);
    expect(missing.body.errors).toEqual([expect.objectContaining({ path: 'values', fieldId: ids[0], rule: 'required', params: {} })]);
  });

  test('an optional field may be left empty or out; its rules apply only to a value', async () => {
    const { token, fields } = await signerWith([box('number', { required: false, min: 10 }), box('text', { required: false, minLength: 4, pattern: '[0-9]+' })]);
    expect((await complete(token, [{ fieldId: fields[0].id, value: '' }, { fieldId: fields[1].id, value: '' }])).status).toBe(200);
  });

  test('read-only: the recipient sees the value and sending one → 400; a default counts when none is sent and may be changed', async () => {
    const { id, token, fields } = await signerWith([
      box('text', { value: 'Fixed rent', readOnly: true, label: 'Terms' }),
      box('dropdown', { options: ['Monthly', 'Yearly'], value: 'Monthly' }),
      box('number', { value: '7' }),
    ]);
    const [fixed, plan, count] = fields.map((field: any) => field.id as any);
    const seen = (await env.api.request('GET', '/signing', { token })).body.fields;
    expect(seen[0]).toMatchObject({ id: fixed, value: 'Fixed rent', readOnly: true });
    expect(seen[1]).toMatchObject({ id: plan, value: 'Monthly' });
    const sent = await complete(token, [{ fieldId: fixed, value: 'Changed' }]);
    expectRefused(sent, 'values.0.value', /read-only/);
    expect(sent.body.errors[0].message).toContain(fixed);
    // No values at all: the defaults stand in for the required dropdown and number.
    expect((await complete(token, [{ fieldId: count, value: '8' }])).status).toBe(200);
    expect((await get(id)).body.status).toBe('completed');
  });
});

describe('the sealed PDF draws every value', () => {
  test('number, date, dropdown, defaults and read-only values (shown to a recipient before it acts)', async () => {
    row = 0;
    const { id, envelope } = await sentEnvelope(env.api, owner, {
      signers: [ada, bea],
      fields: [
        { recipient: 0, ...box('number', { label: 'Amount' }) },
        { recipient: 0, ...box('date') },
        { recipient: 0, ...box('dropdown', { options: ['Oak', 'Birch'] }) },
        { recipient: 0, ...box('text', { value: 'Prefilled default' }) },
        { recipient: 0, ...box('text', { value: 'Owner fixed text', readOnly: true }) },
        { recipient: 0, ...box('name') },
        { recipient: 1, ...box('number', { value: '4242.42', readOnly: true }) },
        { recipient: 1, ...box('checkbox', { required: false }) },
      ],
    });
    const ids = envelope.fields.map((field: any) => field.id as any);
    const signed = await complete(await signingTokenFor(owner.userId, id, ada.email), [
      { fieldId: ids[0], value: '1234.50' },
      { fieldId: ids[1], value: '2026-12-24' },
      { fieldId: ids[2], value: 'Birch' },
    ]);
    expect(signed.status).toBe(200);
    // Bea, who has not signed, sees Ada's values and her own read-only value.
    const beaToken = await signingTokenFor(owner.userId, id, bea.email);
    const beaView = (await env.api.request('GET', '/signing', { token: beaToken })).body;
    expect(beaView.fields[0]).toMatchObject({ value: '4242.42', readOnly: true });
    expect(beaView.filled.map((entry: { value: unknown }) => entry.value)).toEqual(['1234.50', '2026-12-24', 'Birch', 'Prefilled default', 'Owner fixed text', ada.name]);

    // Bea sends no values: her read-only number needs none, her check box is optional.
    const completed = await complete(beaToken, []);
    expect(completed.body).toMatchObject({ envelope: { status: 'completed' }, signedUrl: expect.any(String) });
    const sealed = Buffer.from(await (await fetch(completed.body.signedUrl)).arrayBuffer());
    const file = await tempFile(sealed);
    const page = (await tool('pdftotext', ['-f', '1', '-l', '1', file, '-'])).stdout.replace(/\s+/g, '');
    for (const text of ['1234.50', '2026-12-24', 'Birch', 'Prefilled default', 'Owner fixed text', ada.name, '4242.42']) expect(page).toContain(text.replace(/\s+/g, ''));
    expect(page).not.toContain('Oak');
  });
});
