/**
 * The rules of field values (`src/lib/envelopes/fieldRules.ts`): number, date and dropdown values,
 * text lengths counted in code points, RE2 patterns matching the whole value and never escaping
 * their anchors, and the consistency of a field's rules. Compared with a reference on random input.
 */
import { describe, expect, test } from '@jest/globals';
import fc from 'fast-check';
import { fieldRuleProblems, valueRefusal, wholeValuePattern } from '../../../src/lib/envelopes/fieldRules.js';

describe('valueRefusal', () => {
  test('number: decimal strings only, bounds compared as numbers', () => {
    const field = { type: 'number', min: -1.5, max: 10 };
    for (const ok of ['0', '10', '10.00', '-1.5', '007.50']) expect(valueRefusal(field, ok)).toBeNull();
    for (const bad of ['1e1', '.5', '5.', '+5', '0x10', ' 5', 'NaN', '1,5']) expect(valueRefusal(field, bad)).toMatch(/decimal number/);
    expect(valueRefusal(field, '10.01')).toBe('must be at most 10');
    expect(valueRefusal(field, '-1.6')).toBe('must be at least -1.5');
    expect(valueRefusal(field, 5)).toMatch(/not a JSON number/);
  });

  test('date: every real calendar date of a leap and a common year, and nothing else', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 9999 }), fc.integer({ min: 0, max: 13 }), fc.integer({ min: 0, max: 32 }), (year, month, day) => {
        const text = `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
        const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
        const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1];
        const real = month >= 1 && month <= 12 && day >= 1 && day <= days!;
        expect(valueRefusal({ type: 'date' }, text) === null).toBe(real);
      }),
    );
  });

  test('text: lengths in code points; the pattern matches the whole value as RegExp would, for simple patterns', () => {
    expect(valueRefusal({ type: 'text', maxLength: 2 }, '😀😀')).toBeNull();
    expect(valueRefusal({ type: 'text', minLength: 3 }, '😀😀')).toBe('must be at least 3 characters');
    fc.assert(
      fc.property(fc.stringMatching(/^[ab]{0,8}$/), (value) => {
        const expected = /^(?:a+b*|b)$/u.test(value);
        expect(valueRefusal({ type: 'text', required: false, pattern: 'a+b*|b' }, value) === null).toBe(expected || value === '');
      }),
    );
  });

  test('RE2: a pattern that backtracks catastrophically in RegExp answers, and correctly', () => {
    const whole = wholeValuePattern('(a+)+$');
    expect(whole.test(`${'a'.repeat(5000)}!`)).toBe(false);
    expect(whole.test('a'.repeat(5000))).toBe(true);
  });
});

describe('fieldRuleProblems', () => {
  test('unbalanced parentheses cannot escape the anchoring group', () => {
    expect(fieldRuleProblems({ type: 'text', pattern: 'a)|(b' })).toEqual([['pattern', expect.stringMatching(/not a valid regular expression/)]]);
  });

  test('a consistent field has none; each inconsistency is named by its property', () => {
    expect(fieldRuleProblems({ type: 'dropdown', options: ['a', 'b'], value: 'b', readOnly: true })).toEqual([]);
    expect(fieldRuleProblems({ type: 'name', value: 'Dr Ada Lovelace', readOnly: true })).toEqual([]);
    expect(fieldRuleProblems({ type: 'initials', value: 'AL' }).map(([property]) => property)).toEqual(['value']);
    expect(fieldRuleProblems({ type: 'date', readOnly: true }).map(([property]) => property)).toEqual(['readOnly']);
    expect(fieldRuleProblems({ type: 'text', min: 1, options: ['x'] }).map(([property]) => property).sort()).toEqual(['min', 'options']);
  });
});
