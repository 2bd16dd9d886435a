/**
 * The rules of field values (`src/lib/envelopes/fieldRules.ts`): number, date and dropdown values,
 * text lengths counted in code points, RE2 patterns matching the whole value and never escaping
 * their anchors, and the consistency of a field's rules. Compared with a reference on random input.
 */
import { describe, expect, test } from '@jest/globals';
import fc from 'fast-check';
import { fieldRuleProblems, valueRefusal } from '../../src/lib/envelopes/fieldRules.js';
import { patternEngine, patternMatches, patternSize, MAX_PATTERN_SIZE } from '../../src/lib/envelopes/patternEngine.js';

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
    expect(fieldRuleProblems({ type: 'name', value: 'Dr Ada Lovelace', readOnly: true })).toEqual([]);
    expect(fieldRuleProblems({ type: 'initials', value: 'AL' }).map(([property]) => property)).toEqual(['value']);
    expect(fieldRuleProblems({ type: 'date', readOnly: true }).map(([property]) => property)).toEqual(['readOnly']);
    expect(fieldRuleProblems({ type: 'text', min: 1, options: ['x'] }).map(([property]) => property).sort()).toEqual(['min', 'options']);
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
