/** What the seal draws (docs/api.md#what-completion-does step 2, docs/api.md#fields): each signer's values at its fields' rectangles, and the values the service fills in. */
import { describe, expect, test } from '@jest/globals';
import { fieldDrawings, replacedFormFields } from '../../../src/lib/envelopes/complete.js';
import { newSigner, type Field, type RecipientAction } from '../../../src/lib/envelopes/model.js';

const ada = { ...newSigner({ id: 'a', email: 'ada@example.com', name: 'Ada Lovelace', role: 'signer' }), status: 'signed' as const };
const bea = { ...newSigner({ id: 'b', email: 'bea@example.com', name: 'Bea', role: 'signer' }), status: 'sent' as const };
const place = { page: 2, x: 0.1, y: 0.2, width: 0.3, height: 0.05, required: true, label: null };
const field = (id: string, type: Field['type'], recipientId = 'a', required = true): Field => ({ ...place, id, recipientId, type, required });

describe('fieldDrawings', () => {
  const fields = [
    field('f1', 'signature'),
    field('f2', 'initials'),
    field('f3', 'text'),
    field('f4', 'checkbox'),
    field('f5', 'date_signed'),
    field('f6', 'name'),
    field('f7', 'email'),
    field('f8', 'text', 'a', false),
    field('f9', 'signature', 'b'),
  ];
  const action: RecipientAction = {
    recipientId: 'a', status: 'signed', at: '2026-11-22T23:59:59.999Z', ip: null, userAgent: null, signature: null,
    values: [
      { fieldId: 'f1', value: { typed: 'Ada' } },
      { fieldId: 'f2', value: { strokes: [[[0, 0], [1, 1]]] } },
      { fieldId: 'f3', value: 'Agreed' },
      { fieldId: 'f4', value: false },
      { fieldId: 'f8', value: '' },
    ],
  };

  test('draws each value of a signer who signed at its rectangle; date (UTC day of the action), name and e-mail come from the service; empty optional text and signers who have not signed draw nothing', () => {
    const drawings = fieldDrawings({ fields, signers: [ada, bea] }, new Map([['a', action]]));
    const at = { page: 2, x: 0.1, y: 0.2, width: 0.3, height: 0.05 };
    expect(drawings).toEqual([
      { ...at, type: 'signature', value: { typed: 'Ada' } },
      { ...at, type: 'initials', value: { strokes: [[[0, 0], [1, 1]]] } },
      { ...at, type: 'text', value: 'Agreed' },
      { ...at, type: 'checkbox', value: false },
      { ...at, type: 'date_signed', value: '2026-11-22' },
      { ...at, type: 'name', value: 'Ada Lovelace' },
      { ...at, type: 'email', value: 'ada@example.com' },
    ]);
  });

  test('an image field draws its image\'s bytes, given them; an attachment field, or an image without bytes, draws nothing (docs/api.md#files-from-signers)', () => {
    const file = (attachmentId: string) => ({ attachmentId, name: `${attachmentId}.png`, contentType: 'image/png', size: 3, sha256: '0'.repeat(64), uploadedAt: '2026-11-22T10:00:00.000Z' });
    const files = [field('g1', 'image'), field('g2', 'attachment'), field('g3', 'image')];
    const signed: RecipientAction = { ...action, values: [{ fieldId: 'g1', value: file('one') }, { fieldId: 'g2', value: file('two') }, { fieldId: 'g3', value: file('three') }] };
    const bytes = new Uint8Array([1, 2, 3]);
    const images = new Map([['one', bytes], ['two', bytes]]);
    expect(fieldDrawings({ fields: files, signers: [ada] }, new Map([['a', signed]]), (candidate) => candidate.page, images)).toEqual([{ page: 2, x: 0.1, y: 0.2, width: 0.3, height: 0.05, type: 'image', value: { image: bytes } }]);
  });

  test('a declined recipient\'s fields draw nothing', () => {
    expect(fieldDrawings({ fields, signers: [ada, bea] }, new Map([['a', { ...action, status: 'declined' as const }]]))).toEqual([]);
  });

  test('a field made from a text tag draws its value alone, nothing without one (its tag is covered in the frozen copy); a form field\'s name is removed at sealing', () => {
    const tagged: Field[] = [
      { ...field('t1', 'text'), source: 'textTag' },
      { ...field('t2', 'text', 'b'), source: 'textTag' },
      { ...field('t3', 'checkbox'), source: 'formField', formFieldName: 'member' },
    ];
    const at = { page: 2, x: 0.1, y: 0.2, width: 0.3, height: 0.05 };
    const signed: RecipientAction = { ...action, values: [{ fieldId: 't1', value: 'Tagged' }, { fieldId: 't3', value: true }] };
    expect(fieldDrawings({ fields: tagged, signers: [ada, bea] }, new Map([['a', signed]]))).toEqual([
      { ...at, type: 'text', value: 'Tagged' },
      { ...at, type: 'checkbox', value: true },
    ]);
    expect(replacedFormFields({ fields: [...tagged, { ...field('t4', 'text'), source: 'formField', formFieldName: 'member' }] })).toEqual(['member']);
  });
});
