/**
 * The rows of a bulk send, checked against a template before any job exists
 * ([docs/api.md#bulk-send](../../../docs/api.md#bulk-send), [the CSV file](../../../docs/api.md#the-csv-file)):
 * CSV parsing (a byte order mark, quoted commas, quotes and line breaks, blank records, records of
 * the wrong length), the header's columns, each row's checks by the use of a template's own code, the
 * numbering of rows from 1 (data rows only), and what each row's send e-mails at once (the quota's count).
 */
import { describe, expect, test } from '@jest/globals';
import { parseCsv } from '../../../src/lib/bulk/csv.js';
import { checkCsvRows, checkJsonRows } from '../../../src/lib/bulk/rows.js';
import { isAppError, type FieldError } from '../../../src/lib/errors.js';
import { newTemplateContent, type TemplateRecord } from '../../../src/lib/templates/model.js';

const NOW = new Date('2026-11-29T10:00:00.000Z');

const template: TemplateRecord = {
  ...newTemplateContent(),
  id: '0193a5d1-6a2b-7c3d-8e4f-5a6b7c8d9e0f',
  ownerId: '0193a5d1-1111-7222-8333-444455556666',
  ownerEmail: 'owner@example.com',
  name: 'Policy',
  status: 'active',
  documentName: 'policy.pdf',
  blobName: '0193a5d1-6a2b-7c3d-8e4f-5a6b7c8d9e0f/policy.pdf',
  documentSha256: 'a'.repeat(64),
  pageCount: 1,
  signingOrder: 'sequential',
  roles: [
    { id: 'r-client', name: 'Client', role: 'signer', routingOrder: 1 },
    { id: 'r-dr', name: 'Dr. Who', role: 'signer', routingOrder: 2 },
    { id: 'r-copy', name: 'Copy', role: 'cc', routingOrder: 1 },
  ],
  fields: [
    { id: 'f-sig', roleId: 'r-client', type: 'signature', page: 1, x: 0.1, y: 0.8, width: 0.3, height: 0.08, required: true, label: null },
    { id: 'f-amount', roleId: 'r-client', type: 'number', page: 1, x: 0.1, y: 0.1, width: 0.2, height: 0.04, required: true, label: 'Amount', min: 0, max: 100 },
    { id: 'f-agreed', roleId: 'r-client', type: 'checkbox', page: 1, x: 0.1, y: 0.2, width: 0.04, height: 0.04, required: false, label: 'Agreed' },
    { id: 'f-sig2', roleId: 'r-dr', type: 'signature', page: 1, x: 0.5, y: 0.8, width: 0.3, height: 0.08, required: true, label: null },
  ],
  createdAt: NOW.toISOString(),
  updatedAt: NOW.toISOString(),
  version: 3,
};

const HEADER = 'Client.email,Client.name,Dr. Who.email,Dr. Who.name,Copy.email,Copy.name';
const people = (n: number) => `c${n}@example.com,Client ${n},d${n}@example.com,Doctor ${n},copy${n}@example.com,Copy ${n}`;

/** The errors of the 400 a check throws. */
function refusal(check: () => unknown): FieldError[] {
  try {
    check();
  } catch (error) {
    if (isAppError(error, 'bad_request') && error.errors !== undefined) return error.errors;
    throw error;
  }
  throw new Error('the rows were accepted');
}

describe('parseCsv', () => {
  test('passes over a byte order mark and blank records; quoted cells keep commas, quotes and line breaks', () => {
    expect(parseCsv('\uFEFFa,b\r\n"x, y","say ""hi"""\r\n\r\n,\r\n"line\nbreak",z\n')).toEqual({ header: ['a', 'b'], records: [['x, y', 'say "hi"'], ['line\nbreak', 'z']] });
  });

  test('a record of another length than the header, an unclosed quote, no header → 400', () => {
    expect(refusal(() => parseCsv('a,b\n1\n'))[0]!.message).toContain('Invalid Record Length');
    expect(refusal(() => parseCsv('a,b\n"1,2\n'))[0]!.path).toBe('(csv)');
    expect(refusal(() => parseCsv(''))[0]!.message).toBe('has no header');
  });
});

describe('checkCsvRows', () => {
  test('builds one use per row, roles by name (with a dot in one), prefill by label, and counts the e-mails each send queues at once', () => {
    const rows = checkCsvRows(template, parseCsv(`${HEADER},field.amount,FIELD.Agreed,metadata.crm\n${people(1)},12.5,TRUE,A-1\n${people(2)},,,\n`), true, NOW);
    expect(rows).toHaveLength(2);
    expect(rows[0]).toEqual({
      row: 1,
      request: {
        recipients: [
          { roleName: 'Client', email: 'c1@example.com', name: 'Client 1' },
          { roleName: 'Dr. Who', email: 'd1@example.com', name: 'Doctor 1' },
          { roleName: 'Copy', email: 'copy1@example.com', name: 'Copy 1' },
        ],
        values: [
          { fieldId: 'f-amount', value: '12.5' },
          { fieldId: 'f-agreed', value: true },
        ],
        send: true,
      },
      metadata: { crm: 'A-1' },
      // Sequential: only the first routing group (Client) is invited at send; a cc never is.
      emails: 1,
      texts: 0,
    });
    expect(rows[1]).toMatchObject({ row: 2, metadata: null, request: { recipients: expect.any(Array), send: true } });
    expect(rows[1]!.request.values).toBeUndefined();
    expect(checkCsvRows(template, parseCsv(`${HEADER}\n${people(1)}\n`), false, NOW)[0]).toMatchObject({ emails: 0, request: { send: false } });
  });

  test('the header: an unknown or repeated column, a role without its columns → 400 naming each column', () => {
    const errors = refusal(() => checkCsvRows(template, parseCsv(`${HEADER},Client.fax,client.EMAIL,field.Nope\n${people(1)},1,x@example.com,2\n`), true, NOW));
    expect(errors.map((error) => [error.column, error.message])).toEqual([
      ['Client.fax', expect.stringContaining('is not a known column')],
      ['client.EMAIL', 'repeats column 1'],
      ['field.Nope', expect.stringContaining('names no field')],
    ]);
    const missing = refusal(() => checkCsvRows(template, parseCsv('Client.email,Client.name\na@example.com,A\n'), true, NOW));
    expect(missing.map((error) => error.column)).toEqual(['Dr. Who.email', 'Dr. Who.name', 'Copy.email', 'Copy.name']);
  });

  test('every bad row is named by its number (data rows only) and column; nothing else is reported', () => {
    const records = Array.from({ length: 500 }, (_, index) => people(index + 1));
    records[416] = records[416]!.replace('c417@example.com', 'not-an-address');
    records[9] = records[9]!.replace('Doctor 10', '');
    const errors = refusal(() => checkCsvRows(template, parseCsv(`${HEADER}\n${records.join('\n')}\n`), true, NOW));
    expect(errors.map((error) => [error.row, error.column])).toEqual([
      [10, 'Dr. Who.name'],
      [417, 'Client.email'],
    ]);
    expect(errors[1]).toMatchObject({ path: 'rows.417.Client.email', field: 'Client.email' });
  });

  test('a prefilled value by its field\'s rules, a phone, a locale; a formula is a name like any other', () => {
    const header = `${HEADER},Client.phone,Client.locale,field.Amount`;
    const errors = refusal(() =>
      checkCsvRows(
        template,
        parseCsv(`${header}\n${people(1)},,,101\n${people(2)},+1 555,,\n${people(3)},,xx,\n${people(4)},,,abc\n"=HYPERLINK(""http://x"",""y"")@example.com","=HYPERLINK(""a"")",d5@example.com,D,e5@example.com,E,,,\n`),
        true,
        NOW,
      ),
    );
    expect(errors.map((error) => [error.row, error.column])).toEqual([
      [1, 'field.Amount'],
      [2, 'Client.phone'],
      [3, 'Client.locale'],
      [4, 'field.Amount'],
      [5, 'Client.email'],
    ]);
    const formula = checkCsvRows(template, parseCsv(`${HEADER}\nf@example.com,"=HYPERLINK(""http://x"",""y"")",d@example.com,D,e@example.com,E\n`), true, NOW);
    expect(formula[0]!.request.recipients[0]!.name).toBe('=HYPERLINK("http://x","y")');
  });
});

describe('checkJsonRows', () => {
  const recipients = [
    { roleName: 'client', email: 'c@example.com', name: 'C' },
    { roleName: 'DR. WHO', email: 'd@example.com', name: 'D' },
    { roleName: 'Copy', email: 'e@example.com', name: 'E' },
  ];

  test('names each bad row\'s field: a role missing or repeated, an unknown prefill key, an unknown field, a bad e-mail', () => {
    const errors = refusal(() =>
      checkJsonRows(
        template,
        [
          { recipients },
          { recipients: recipients.slice(0, 2) },
          { recipients, prefill: { Colour: 'red' } },
          { recipients, extra: true },
          { recipients: [recipients[0], { ...recipients[1], email: 'bad' }, recipients[2]] },
          { recipients: [...recipients, recipients[0]] },
        ],
        true,
        NOW,
      ),
    );
    expect(errors.map((error) => [error.row, error.field])).toEqual([
      [2, 'recipients'],
      [3, 'prefill.Colour'],
      [4, 'extra'],
      [5, 'recipients.1.email'],
      [6, 'recipients.3.roleName'],
    ]);
  });

  test('metadata: strings only, at most 20 entries', () => {
    const many = Object.fromEntries(Array.from({ length: 21 }, (_, index) => [`k${index}`, 'v']));
    const errors = refusal(() => checkJsonRows(template, [{ recipients, metadata: { a: 1 } }, { recipients, metadata: many }], true, NOW));
    expect(errors.map((error) => [error.row, error.field])).toEqual([
      [1, 'metadata.a'],
      [2, 'metadata'],
    ]);
    expect(checkJsonRows(template, [{ recipients, metadata: { crm: 'A-1' } }], true, NOW)[0]!.metadata).toEqual({ crm: 'A-1' });
  });
});
