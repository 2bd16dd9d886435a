/** Text tags as fields (docs/api.md#fields-from-the-document): the tag syntax, and who a tag's `r=` names on an envelope. */
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
/** A tag in 12-point text on a US Letter page (612 × 792 points), its text's box `rect`. */
const tagAt = (text: string, bounds = rect) => ({ page: 3, text, rect: bounds, bounds, fontSize: 12, pageWidth: 612, pageHeight: 792 });
const parse = (text: string, list: Signer[] = signers, bounds = rect) => parseTextTag(tagAt(text, bounds), (who) => signerAt(list, who));
const close = (value: number) => expect.closeTo(value, 5);

describe('parseTextTag', () => {
  test('the type alone: required, no label, for the first signer, as wide and tall as the tag\'s text', () => {
    expect(parse('text')).toEqual({ assignee: signers[0], type: 'text', page: 3, ...rect, required: true, label: null, source: 'textTag' });
  });

  test('a signature or initials field is 3 × the tag\'s line height tall, from the tag\'s top-left', () => {
    for (const type of ['signature', 'initials']) {
      expect(parse(type)).toMatchObject({ type, x: 0.1, y: 0.2, width: 0.3, height: close(0.06) });
    }
  });

  test('a checkbox is a square of the tag\'s font size', () => {
    expect(parse('checkbox')).toMatchObject({ x: 0.1, y: 0.2, width: close(12 / 612), height: close(12 / 792) });
    expect(parse('checkbox;w=24')).toMatchObject({ width: close(24 / 612), height: close(24 / 792) });
    expect(parse('checkbox;h=0.05')).toMatchObject({ width: close((0.05 * 792) / 612), height: close(0.05) });
  });

  test('w, h, x and y in points (1 and above) or fractions of the page (below 1), the offset from the tag\'s top-left', () => {
    expect(parse('signature;w=120;h=0.1;x=36;y=-0.05')).toMatchObject({ width: close(120 / 612), height: close(0.1), x: close(0.1 + 36 / 612), y: close(0.15) });
    expect(parse('text; w = 0.5 ; x=-36; y = 1')).toMatchObject({ width: close(0.5), height: close(0.02), x: close(0.1 - 36 / 612), y: close(0.2 + 1 / 792) });
  });

  test('a field placed by default is kept inside the page', () => {
    expect(parse('signature', signers, { x: 0.8, y: 0.97, width: 0.3, height: 0.02 })).toMatchObject({ x: close(0.7), y: close(0.94), width: close(0.3), height: close(0.06) });
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
    ['signature;w=0', /w=0; it must be a size above 0/],
    ['signature;h=-20', /h=-20; it must be a size above 0/],
    ['signature;w=wide', /w=wide; it must be a size above 0 in points/],
    ['signature;x=1e3', /x=1e3; it must be an offset/],
    ['signature;y=', /y=; it must be an offset/],
    ['signature;w=0.2;w=0.3', /repeats the key w/],
    ['signature;x=0.7', /past the page's right edge/],
    ['signature;w=700', /past the page's right edge/],
    ['signature;y=-0.3', /past the page's top edge/],
    ['signature;x=-100', /past the page's left edge/],
    ['signature;h=0.8;y=0.1', /past the page's bottom edge/],
    ['checkbox;x=0.9;w=0.2', /past the page's right edge/],
  ])('{{%s}} is refused', (text, message) => {
    const parsed = parse(text);
    expect(parsed).toEqual({ error: expect.stringMatching(message) });
  });

  test('with no signer of role signer, a tag without r names nobody', () => {
    expect(parse('text', [signers[1]!])).toEqual({ error: expect.stringMatching(/no signer with role signer/) });
  });
});
