/**
 * The rules of field values (`src/lib/envelopes/fieldRules.ts`): number, date and dropdown values,
 * text lengths counted in code points, RE2 patterns matching the whole value and never escaping
 * their anchors, and the consistency of a field's rules. Compared with a reference on random input.
 */
import { describe, expect, test } from '@jest/globals';
import fc from 'fast-check';
import { fieldRuleProblems, patternRefusal, valueRefusal } from '../../../src/lib/envelopes/fieldRules.js';
import { patternEngine, patternMatches, patternSize, MAX_PATTERN_SIZE } from '../../../src/lib/envelopes/patternEngine.js';

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
    expect(patternMatches('(a+)+$', `${'a'.repeat(5000)}!`)).toBe(false);
    expect(patternMatches('(a+)+$', 'a'.repeat(5000))).toBe(true);
  });
});

describe('fieldRuleProblems', () => {
  test('unbalanced parentheses cannot escape the anchoring group', () => {
    expect(fieldRuleProblems({ type: 'text', pattern: 'a)|(b' })).toEqual([['pattern', expect.stringMatching(/not a valid regular expression/)]]);
  });

  test('a consistent field has none; each inconsistency is named by its property', () => {
    expect(fieldRuleProblems({ type: 'dropdown', options: ['a', 'b'], value: 'b', readOnly: true })).toEqual([]);
    for (const type of ['date_signed', 'name', 'email']) {
      expect(fieldRuleProblems({ type, value: '2001-01-01', readOnly: true })).toEqual([['value', expect.stringContaining(`cannot be prefilled on a ${type} field`)]]);
      expect(fieldRuleProblems({ type, value: 'Dr Ada Lovelace' })).toEqual([['value', expect.stringContaining('the service fills in')]]);
      expect(fieldRuleProblems({ type, value: '' })).toEqual([]);
    }
    expect(fieldRuleProblems({ type: 'initials', value: 'AL' }).map(([property]) => property)).toEqual(['value']);
    expect(fieldRuleProblems({ type: 'date', readOnly: true }).map(([property]) => property)).toEqual(['readOnly']);
    expect(fieldRuleProblems({ type: 'text', min: 1, options: ['x'] }).map(([property]) => property).sort()).toEqual(['min', 'options']);
  });
});

describe('the rules of a value, through valueRefusal', () => {
  test('number: min and max are inclusive, each applies alone, and both apply to the number, not the text', () => {
    expect(valueRefusal({ type: 'number', min: 1, max: 3 }, '1')).toBeNull();
    expect(valueRefusal({ type: 'number', min: 1, max: 3 }, '3.000')).toBeNull();
    expect(valueRefusal({ type: 'number', min: 1 }, '0.999')).toBe('must be at least 1');
    expect(valueRefusal({ type: 'number', min: 1 }, '1000000')).toBeNull();
    expect(valueRefusal({ type: 'number', max: -2 }, '-1')).toBe('must be at most -2');
    expect(valueRefusal({ type: 'number', min: 9, max: 10 }, '10')).toBeNull();
    expect(valueRefusal({ type: 'number' }, '1'.repeat(41))).toMatch(/decimal number/);
  });

  test('text: minLength and maxLength are inclusive; 500 characters at most whatever the field says', () => {
    expect(valueRefusal({ type: 'text', minLength: 2, maxLength: 4 }, 'ab')).toBeNull();
    expect(valueRefusal({ type: 'text', minLength: 2, maxLength: 4 }, 'abcd')).toBeNull();
    expect(valueRefusal({ type: 'text', minLength: 2, maxLength: 4 }, 'abcde')).toBe('must be at most 4 characters');
    expect(valueRefusal({ type: 'text', minLength: 2 }, 'a')).toBe('must be at least 2 characters');
    expect(valueRefusal({ type: 'text' }, 'x'.repeat(500))).toBeNull();
    expect(valueRefusal({ type: 'text' }, 'x'.repeat(501))).toBe('must be at most 500 characters');
  });

  test('pattern: the whole value must match, an alternation included; a partial match is refused', () => {
    const field = { type: 'text', pattern: '[A-Z]{2}-[0-9]+' };
    expect(valueRefusal(field, 'AB-12')).toBeNull();
    for (const bad of ['xAB-12', 'AB-12x', 'AB-', 'ab-12', 'AB-12\nAB-12']) expect(valueRefusal(field, bad)).toBe('must match the pattern [A-Z]{2}-[0-9]+');
    expect(valueRefusal({ type: 'text', pattern: 'yes|no' }, 'yes')).toBeNull();
    expect(valueRefusal({ type: 'text', pattern: 'yes|no' }, 'yesno')).toBe('must match the pattern yes|no');
    expect(valueRefusal({ type: 'text', pattern: '\\p{Lu}\\p{Ll}+' }, 'Émile')).toBeNull();
  });

  test('an empty value is "no value": refused only when required, and then whatever the rules', () => {
    for (const field of [{ type: 'text', pattern: '[0-9]+', minLength: 3 }, { type: 'number', min: 5 }, { type: 'date' }, { type: 'dropdown', options: ['a'] }]) {
      expect(valueRefusal({ ...field, required: false }, '')).toBeNull();
      expect(valueRefusal({ ...field, required: false }, '   ')).toBeNull();
      expect(valueRefusal(field, '')).toBe('must not be empty: the field is required');
    }
  });

  test('checkbox: a boolean; a required one must be checked', () => {
    expect(valueRefusal({ type: 'checkbox' }, true)).toBeNull();
    expect(valueRefusal({ type: 'checkbox' }, false)).toBe('must be true: the check box is required');
    expect(valueRefusal({ type: 'checkbox', required: false }, false)).toBeNull();
    expect(valueRefusal({ type: 'checkbox', required: false }, 'true')).toBe('must be true or false');
  });

  test('dropdown: one of the options exactly', () => {
    const field = { type: 'dropdown', options: ['Oak', 'Pine'] };
    expect(valueRefusal(field, 'Pine')).toBeNull();
    expect(valueRefusal(field, 'pine')).toBe('must be one of the options: Oak, Pine');
    expect(valueRefusal(field, 'Oak ')).toBe('must be one of the options: Oak, Pine');
  });
});

describe('patternRefusal', () => {
  test('RE2 syntax: look-around and back-references are refused with RE2\'s reason; a valid pattern is not', () => {
    expect(patternRefusal('[A-Z]{2}[0-9]{2}')).toBeNull();
    for (const pattern of ['(?=a)a', '(?!a)b', '(a)\\1', '(?<=a)b', '[', 'a{2,1}']) {
      expect(patternRefusal(pattern)).toMatch(/^is not a valid regular expression \(RE2 syntax\): .+/);
    }
  });

  test('a valid pattern is never refused because of the patterns compiled before it, anyone\'s', () => {
    const many = Array.from({ length: 600 }, (_, index) => `[a-z]{${index % 7}}x${index}`);
    for (const pattern of many) expect(patternRefusal(pattern)).toBeNull();
    const longest = `(?:${'[a-f0-9]'.repeat(21)})?z`;
    expect(longest.length).toBeLessThanOrEqual(200);
    expect(patternRefusal(longest)).toBeNull();
    // The first patterns still answer, and correctly.
    expect(valueRefusal({ type: 'text', pattern: many[0]! }, 'x0')).toBeNull();
    expect(valueRefusal({ type: 'text', pattern: many[1]! }, 'ax1')).toBeNull();
    expect(valueRefusal({ type: 'text', pattern: many[1]! }, 'x1')).toBe(`must match the pattern ${many[1]!}`);
    expect(fieldRuleProblems({ type: 'text', pattern: longest })).toEqual([]);
  });
});

describe('fieldRuleProblems: rules taken together', () => {
  test('bounds in order: min ≤ max and minLength ≤ maxLength (equal is allowed)', () => {
    expect(fieldRuleProblems({ type: 'number', min: 5, max: 4 })).toEqual([['max', 'must not be less than min']]);
    expect(fieldRuleProblems({ type: 'number', min: 5, max: 5 })).toEqual([]);
    expect(fieldRuleProblems({ type: 'text', minLength: 3, maxLength: 2 })).toEqual([['maxLength', 'must not be less than minLength']]);
    expect(fieldRuleProblems({ type: 'text', minLength: 3, maxLength: 3 })).toEqual([]);
  });

  test('each rule only on its type: pattern and lengths on text, bounds on number, options on dropdown', () => {
    expect(fieldRuleProblems({ type: 'number', pattern: '[0-9]+' })).toEqual([['pattern', 'is only for fields of type text']]);
    expect(fieldRuleProblems({ type: 'date', minLength: 1 })).toEqual([['minLength', 'is only for fields of type text']]);
    expect(fieldRuleProblems({ type: 'text', max: 1 })).toEqual([['max', 'is only for fields of type number']]);
    expect(fieldRuleProblems({ type: 'dropdown' })).toEqual([['options', 'is required for a dropdown: 1 to 50 choices']]);
    expect(fieldRuleProblems({ type: 'dropdown', options: ['a', 'b', 'a'] })).toEqual([['options', 'repeats the option a']]);
  });

  test('a prefilled value obeys the field\'s own rules; with a broken pattern only the pattern is named', () => {
    expect(fieldRuleProblems({ type: 'text', pattern: '[0-9]{3}', value: '123' })).toEqual([]);
    expect(fieldRuleProblems({ type: 'text', pattern: '[0-9]{3}', value: '12' })).toEqual([['value', 'must match the pattern [0-9]{3}']]);
    expect(fieldRuleProblems({ type: 'number', max: 10, value: '11' })).toEqual([['value', 'must be at most 10']]);
    expect(fieldRuleProblems({ type: 'text', pattern: '(?=x)', value: 'x' }).map(([property]) => property)).toEqual(['pattern']);
    expect(fieldRuleProblems({ type: 'signature', value: 'Ada' })).toEqual([['value', 'cannot be prefilled on a signature field: only the recipient signs']]);
  });
});

/** The engine's words that must never reach a client. */
const ENGINE_TEXT = /enlarge|memory|abort|emscripten|wasm|INITIAL_MEMORY|RuntimeError|unicode mode/i;

/** Takes all but 8 KiB of the free memory of `engine`, so that its next compilation faults. */
function fill(engine: ReturnType<typeof patternEngine>): void {
  // A block larger than any hole that freed patterns leave: it starts where the free memory does.
  const probe = engine._malloc(1024 * 1024);
  engine._free(probe);
  engine._malloc(16 * 1024 * 1024 - probe - 8 * 1024);
}

describe('patterns and the engine memory (a fixed 16 MiB)', () => {
  test('600 distinct valid patterns checked and run leave a new valid pattern accepted and its valid value accepted', () => {
    for (let serial = 0; serial < 600; serial++) {
      const pattern = `(?:[A-Za-z]{1,20}|\\d{1,10})-${serial}-(?:x|y|z){1,5}[a-f0-9]{0,16}`;
      expect(fieldRuleProblems({ type: 'text', pattern })).toEqual([]);
      if (serial % 10 === 0) expect(valueRefusal({ type: 'text', pattern }, `Ab-${serial}-xy00`)).toBeNull();
    }
    expect(fieldRuleProblems({ type: 'text', pattern: '[A-Z]{2}[0-9]{6}', value: 'AB123456' })).toEqual([]);
    expect(valueRefusal({ type: 'text', pattern: '[A-Z]{2}[0-9]{6}' }, 'CD654321')).toBeNull();
    expect(valueRefusal({ type: 'text', pattern: '[A-Z]{2}[0-9]{6}' }, 'CD65432')).toMatch(/must match the pattern/);
  }, 300_000);

  test('a fault of the engine (its memory full): the owner\'s valid pattern is still accepted, a recipient\'s valid value too', () => {
    const field = { type: 'text', pattern: '[A-Z]{2}-[0-9]{4}' };
    expect(valueRefusal(field, 'AB-1234')).toBeNull(); // compiled and kept in the engine
    const engine = patternEngine();
    fill(engine);
    expect(fieldRuleProblems({ type: 'text', pattern: '[a-z]{1,30}(?:\\.[a-z]{1,30}){0,3}@\\w{100}' })).toEqual([]);
    expect(patternEngine() === engine).toBe(false); // the full engine faulted and was replaced
    fill(patternEngine());
    expect(valueRefusal({ type: 'text', pattern: '[0-9]{3}-[A-Z]+\\w{100}' }, `123-ABC${'x'.repeat(100)}`)).toBeNull();
    expect(patternEngine() === engine).toBe(false);
    expect(valueRefusal(field, 'AB-1234')).toBeNull();
    expect(valueRefusal(field, 'AB-123')).toMatch(/must match the pattern/);
  });

  test('a fault of the engine (it throws): the check is made again in a fresh engine, its text is never shown', () => {
    const engine = patternEngine();
    engine.WrappedRE2 = function broken() {
      throw new Error('abort(Cannot enlarge memory arrays) at wasm-function[123]');
    } as unknown as typeof engine.WrappedRE2;
    expect(fieldRuleProblems({ type: 'text', pattern: 'x[0-9]+y' })).toEqual([]);
    expect(patternEngine() === engine).toBe(false);
    expect(valueRefusal({ type: 'text', pattern: 'x[0-9]+z' }, 'x12z')).toBeNull();
  });

  test('a pattern too complex for the engine: refused in the service\'s words; one saved before the limit never stops a recipient', () => {
    for (const pattern of ['\\pL{1000}', '\\PL{10}', '[^a]{1000}[^b]{1000}', '(?:.{100}){10}x{1000}', '(?i)(?:\\p{Greek}|[a-z]){100}']) {
      expect(patternSize(pattern)).toBeGreaterThan(MAX_PATTERN_SIZE);
      const problems = fieldRuleProblems({ type: 'text', pattern });
      expect(problems).toEqual([['pattern', expect.stringMatching(/^is too complex/)]]);
      expect(problems[0]![1]).not.toMatch(ENGINE_TEXT);
    }
    // Compiling this one fills the engine's memory (it faults even a fresh engine): the value is
    // accepted without it, neither refused nor an error.
    expect(valueRefusal({ type: 'text', pattern: '\\pL{100}' }, 'abc')).toBeNull();
    expect(valueRefusal({ type: 'text', pattern: '\\pL{100}' }, 'abc')).toBeNull(); // known now: no second attempt
    expect(valueRefusal({ type: 'text', pattern: '[a-c]+' }, 'abc')).toBeNull();
  }, 120_000);

  test('a pattern that does not compile: the service\'s words, the owner\'s own text at most, never the anchoring it adds', () => {
    for (const [pattern, words] of [
      ['(a', /it has a \( without its \): \(a$/],
      ['a)|(b', /it has a \) without its \(/],
      ['[a', /it has a \[ without its \]/],
      ['\\k', /escape sequence RE2 does not know: \\k$/],
      ['(?=a)a', /no look-around/],
      ['a**', /repeats a repetition/],
      ['x{1001}', /above 1000/],
    ] as [string, RegExp][]) {
      const problems = fieldRuleProblems({ type: 'text', pattern });
      expect(problems).toEqual([['pattern', expect.stringMatching(/^is not a valid regular expression \(RE2 syntax\)/)]]);
      expect(problems[0]![1]).toMatch(words);
      expect(problems[0]![1]).not.toMatch(/\^\(\?:|Invalid regular expression/);
    }
  });
});
