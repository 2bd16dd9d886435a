/**
 * The values of a recipient's complete request (`checkValues` in `src/lib/recipients/recipientActions.ts`,
 * docs/api.md#fields) as a function of the envelope: a signer sends a value of the right type for each of its
 * required fields that has no prefilled value, none for fields the service fills or read-only ones,
 * and none for another recipient's fields; other roles send none. Every problem is named by its path.
 */
import { describe, expect, test } from '@jest/globals';
import type { EnvelopeRecord, Field, Signer } from '../../../src/lib/envelopes/model.js';
import { isAppError } from '../../../src/lib/errors.js';
import { parseWith } from '../../../src/lib/http/body.js';
import { checkValues } from '../../../src/lib/recipients/recipientActions.js';
import { completeSigningRequest } from '../../../src/lib/recipients/schemas.js';
import { envelope, field, recipient } from '../../support/records.js';

const ada = recipient(1);
const bob = recipient(2);
const id = (n: number) => `0196f3a0-0000-7000-8000-0000000000f${n}`;

/** The request as the endpoint parses it (defaults applied). */
const request = (values: unknown[], signature?: unknown) => parseWith(completeSigningRequest, { consent: true, values, ...(signature === undefined ? {} : { signature }) });

function record(fields: Field[], signers: Signer[] = [ada, bob]): EnvelopeRecord {
  return envelope('sent', signers, { fields, pageCount: 1 });
}

/** The paths and messages of the 400 `validation-failed` that `run` throws. */
function problems(run: () => unknown): [string, string][] {
  try {
    run();
  } catch (error) {
    if (!isAppError(error)) throw error;
    expect([error.status, error.type]).toEqual([400, 'urn:problem:validation-failed']);
    return (error.errors ?? []).map((entry) => [entry.path, entry.message]);
  }
  throw new Error('expected a refusal');
}

describe('checkValues: a signer', () => {
  const fields = [
    field(ada.id, { id: id(1), type: 'signature' }),
    field(ada.id, { id: id(2), type: 'text', label: 'Reference', pattern: '[A-Z]{2}[0-9]{2}' }),
    field(ada.id, { id: id(3), type: 'checkbox', required: false }),
    field(bob.id, { id: id(4), type: 'signature' }),
  ];

  test('the values of its own fields are recorded as sent; the adopted signature is its first signature value', () => {
    const typed = { typed: 'Ada Lovelace' };
    const checked = checkValues(record(fields), ada, request([{ fieldId: id(1), value: typed }, { fieldId: id(2), value: 'AB12' }, { fieldId: id(3), value: true }]));
    expect(checked).toEqual({ values: [{ fieldId: id(1), value: typed }, { fieldId: id(2), value: 'AB12' }, { fieldId: id(3), value: true }], signature: typed });
  });

  test('an optional field may be left out; a signature given apart wins over the field\'s', () => {
    const adopted = { strokes: [[[0, 0], [1, 1]]] };
    const checked = checkValues(record(fields), ada, request([{ fieldId: id(1), value: { typed: 'Ada' } }, { fieldId: id(2), value: 'XY99' }], adopted));
    expect(checked.values.map((value) => value.fieldId)).toEqual([id(1), id(2)]);
    expect(checked.signature).toEqual(adopted);
  });

  test('with no signature field, the adopted signature is its initials, else its name typed', () => {
    const initials = [field(ada.id, { id: id(1), type: 'initials' })];
    expect(checkValues(record(initials), ada, request([{ fieldId: id(1), value: { typed: 'AL' } }])).signature).toEqual({ typed: 'AL' });
    expect(checkValues(record([field(ada.id, { id: id(2), type: 'text', required: false })]), ada, request([])).signature).toEqual({ typed: 'S1' });
  });

  test('every problem at once, each named by its path: unknown, another\'s, repeated, wrong type, refused by the field\'s rules, missing', () => {
    const found = problems(() =>
      checkValues(
        record(fields),
        ada,
        request([
          { fieldId: 'no-such-field', value: 'x' },
          { fieldId: id(4), value: { typed: 'Bob' } },
          { fieldId: id(2), value: 'ab12' },
          { fieldId: id(2), value: 'AB12' },
          { fieldId: id(3), value: 'yes' },
        ]),
      ),
    );
    expect(found).toEqual([
      ['values.0.fieldId', 'is not a field of this envelope'],
      ['values.1.fieldId', 'is another recipient\'s field'],
      ['values.2.value', `must match the pattern [A-Z]{2}[0-9]{2} (field "Reference", ${id(2)})`],
      ['values.3.fieldId', 'repeats the field of values.2'],
      ['values.4.value', `must be true or false (field checkbox, ${id(3)})`],
      ['values', `needs a value for field ${id(1)} (signature, page 1)`],
    ]);
  });

  test('a signature or initials field takes a signature, not a string', () => {
    const found = problems(() => checkValues(record(fields), ada, request([{ fieldId: id(1), value: 'Ada' }, { fieldId: id(2), value: 'AB12' }])));
    expect(found).toEqual([['values.0.value', 'must be a signature: {typed: "..."} or {strokes: [...]}']]);
  });

  test.each([
    ['date_signed', 'must not be sent: the service fills in the signing date'],
    ['name', 'must not be sent: the service fills in your name'],
    ['email', 'must not be sent: the service fills in your email'],
  ] as const)('a %s field is filled by the service: a value sent for it is refused, and none is needed', (type, message) => {
    const filled = [field(ada.id, { id: id(5), type })];
    expect(problems(() => checkValues(record(filled), ada, request([{ fieldId: id(5), value: 'anything' }])))).toEqual([['values.0.value', message]]);
    expect(checkValues(record(filled), ada, request([])).values).toEqual([]);
  });

  test('a read-only field keeps the owner\'s value: a value sent for it is refused, and none is needed', () => {
    const fixed = [field(ada.id, { id: id(6), type: 'text', label: 'Rate', value: '12%', readOnly: true })];
    expect(problems(() => checkValues(record(fixed), ada, request([{ fieldId: id(6), value: '12%' }])))).toEqual([
      ['values.0.value', `must not be sent: the field is read-only, its value set by the sender (field "Rate", ${id(6)})`],
    ]);
    expect(checkValues(record(fixed), ada, request([])).values).toEqual([]);
  });

  test('a required field with a prefilled default needs no value, and takes one when sent', () => {
    const prefilled = [field(ada.id, { id: id(7), type: 'dropdown', options: ['oak', 'pine'], value: 'oak' })];
    expect(checkValues(record(prefilled), ada, request([])).values).toEqual([]);
    expect(checkValues(record(prefilled), ada, request([{ fieldId: id(7), value: 'pine' }])).values).toEqual([{ fieldId: id(7), value: 'pine' }]);
    expect(problems(() => checkValues(record(prefilled), ada, request([{ fieldId: id(7), value: 'elm' }])))).toEqual([
      ['values.0.value', `must be one of the options: oak, pine (field dropdown, ${id(7)})`],
    ]);
  });

  test('an empty prefilled value is none: the required field still needs the recipient\'s', () => {
    const empty = [field(ada.id, { id: id(8), type: 'text', label: 'City', value: '' })];
    expect(problems(() => checkValues(record(empty), ada, request([])))).toEqual([['values', `needs a value for field ${id(8)} (City, page 1)`]]);
  });
});

describe('checkValues: other roles', () => {
  test.each(['approver', 'viewer'] as const)('a %s sends no values and no signature, and records none', (role) => {
    const other = recipient(3, 1, role);
    const fields = [field(ada.id, { id: id(1) })];
    expect(checkValues(record(fields, [ada, other]), other, request([]))).toEqual({ values: [], signature: null });
    expect(problems(() => checkValues(record(fields, [ada, other]), other, request([{ fieldId: id(1), value: { typed: 'X' } }], { typed: 'X' })))).toEqual([
      ['values.0.fieldId', `is not a field of yours: a ${role} fills no fields`],
      ['signature', `is only for signers; your role is ${role}`],
    ]);
  });
});
