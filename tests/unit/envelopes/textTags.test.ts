/** Text tags as fields (CONTRACT §15.2): the tag syntax, and who a tag's `r=` names on an envelope. */
import { describe, expect, test } from '@jest/globals';
import { signerAt } from '../../../src/lib/envelopes/detectFields.js';
import { newSigner, type Signer } from '../../../src/lib/envelopes/model.js';
import { parseTextTag } from '../../../src/lib/envelopes/textTags.js';

const signers: Signer[] = [
  newSigner({ id: 'a', email: 'ada@example.com', name: 'Ada', role: 'signer' }),
  newSigner({ id: 'c', email: 'cat@example.com', name: 'Cat', role: 'cc' }),
  newSigner({ id: 'b', email: 'bea@example.com', name: 'Bea', role: 'signer' }),
];
const rect = { x: 0.1, y: 0.2, width: 0.3, height: 0.02 };
const parse = (text: string, list: Signer[] = signers) => parseTextTag({ page: 3, text, rect }, (who) => signerAt(list, who));

describe('parseTextTag', () => {
  test('the type alone: required, no label, for the first signer', () => {
    expect(parse('signature')).toEqual({ assignee: signers[0], type: 'signature', page: 3, ...rect, required: true, label: null, source: 'textTag' });
  });

  test('keys in any order, spaces around them ignored; r counts every recipient', () => {
    expect(parse(' text ; label = Phone number ;required=false; r=3 ')).toMatchObject({ assignee: signers[2], type: 'text', required: false, label: 'Phone number' });
  });

  test('spaces a text engine put inside the type, a key or r are ignored; a label keeps its own', () => {
    expect(parse('sig nature; r = 3 ;lab el=Sign here')).toMatchObject({ type: 'signature', assignee: signers[2], label: 'Sign here' });
  });

  test('a dropdown takes its options', () => {
    expect(parse('dropdown;options=Monthly|Yearly;label=Billing')).toMatchObject({ type: 'dropdown', options: ['Monthly', 'Yearly'], label: 'Billing' });
  });

  test.each([
    ['sign', /unknown type "sign"/],
    ['text;color=red', /unknown key "color"/],
    ['text;label', /gives no value to label/],
    ['text;label=a;label=b', /repeats the key label/],
    ['text;required=yes', /required=yes/],
    ['signature;r=2', /role is cc/],
    ['signature;r=4', /names no signer: the envelope lists 3 recipients/],
    ['signature;r=first', /1-based position/],
    ['signature;r=0', /1-based position/],
    ['text;options=a|b', /only a dropdown has options/],
    ['dropdown', /without options/],
    ['dropdown;options=a||b', /1 to 50 options/],
    [`text;label=${'x'.repeat(101)}`, /longer than 100/],
  ])('{{%s}} is refused', (text, message) => {
    const parsed = parse(text);
    expect(parsed).toEqual({ error: expect.stringMatching(message) });
  });

  test('with no signer of role signer, a tag without r names nobody', () => {
    expect(parse('text', [signers[1]!])).toEqual({ error: expect.stringMatching(/no signer with role signer/) });
  });
});
