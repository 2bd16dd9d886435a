/**
 * The engine that runs field patterns: RE2 compiled to WebAssembly (`re2-wasm`), a linear-time engine,
 * so a user's pattern never reaches JavaScript's backtracking `RegExp`.
 *
 * The engine lives in a fixed 16 MiB WebAssembly memory that cannot grow, and every compiled pattern
 * sits in it until it is deleted. So this module:
 * - deletes every compiled pattern it no longer needs (the check of an owner's pattern keeps nothing;
 *   re2-wasm's `RE2` class is not used, as it leaves part of every compilation in the engine's memory);
 * - keeps compiled patterns for recipients' values in a small cache bounded by count and by their
 *   estimated size, so that the cache always leaves room for one more pattern of the largest size allowed;
 * - refuses before compiling a pattern whose estimated compiled size passes {@link MAX_PATTERN_SIZE}
 *   (see docs/api.md#pattern-limits);
 * - treats any fault of the engine (out of memory, or any other exception from inside it) as the end of
 *   that engine: it is dropped whole, with everything compiled in it, and the operation is tried once
 *   more in a fresh engine. A pattern that faults a fresh engine is too complex; the engine's own text
 *   is logged, never shown to a client.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import vm from 'node:vm';

/** A compiled RE2 pattern, as re2-wasm's embind binding gives it. */
interface WrappedRE2 {
  ok(): boolean;
  error(): string;
  match(input: string, start: number, getCapturingGroups: boolean): { index: number };
  delete(): void;
}

/** One instance of the engine: its own WebAssembly memory and bindings. */
export interface PatternEngineInstance {
  WrappedRE2: new (pattern: string, ignoreCase: boolean, multiline: boolean, dotAll: boolean) => WrappedRE2;
  _malloc(size: number): number;
  _free(pointer: number): void;
}

/**
 * Largest estimated compiled size of a pattern, in units of {@link patternSize}. A pattern above it is
 * refused as too complex before it is compiled: about 4 MiB of the engine's memory and a second of
 * compilation at most.
 */
export const MAX_PATTERN_SIZE = 10_000;
/** Most compiled patterns kept for recipients' values, and their largest total estimated size. */
const MAX_CACHED = 64;
const MAX_CACHED_SIZE = MAX_PATTERN_SIZE;

/** Why a pattern is refused. */
export type PatternRefusal = { kind: 'syntax'; message: string } | { kind: 'too-complex' };

/** A pattern that the engine cannot run, even alone in a fresh engine. */
export class PatternTooComplexError extends Error {
  constructor(cause: unknown) {
    super('The pattern is too complex for the pattern engine', { cause });
    this.name = 'PatternTooComplexError';
  }
}

const require = createRequire(import.meta.url);
const gluePath = require.resolve('re2-wasm/build/wasm/re2.js');
let glue: ((...args: unknown[]) => void) | undefined;

interface Engine {
  instance: PatternEngineInstance;
  /** Whether nothing but the current operation ever ran in it (a fault then is the pattern's own). */
  fresh: boolean;
  cache: Map<string, { compiled: WrappedRE2; size: number }>;
  cachedSize: number;
}
let engine: Engine | undefined;
/** Patterns that faulted a fresh engine (saved before a limit that now refuses them): not tried again. */
const unusable = new Set<string>();
const MAX_UNUSABLE = 1000;

/**
 * A new instance of the engine. re2-wasm's glue creates its memory when its module body runs, so the
 * body is run again (as Node runs a CommonJS module) for each instance rather than `require`d once.
 */
function loadEngine(): Engine {
  glue ??= vm.compileFunction(readFileSync(gluePath, 'utf8'), ['exports', 'require', 'module', '__filename', '__dirname', 'Module'], { filename: gluePath }) as (...args: unknown[]) => void;
  const module = { exports: {} as unknown };
  const log = (text: string) => console.warn(`Pattern engine: ${text}`);
  glue(module.exports, require, module, gluePath, path.dirname(gluePath), { print: log, printErr: log });
  const instance = module.exports as PatternEngineInstance;
  // RE2 allocates some tables once, on first use: let them sit at the bottom of the memory.
  const warmUp = new instance.WrappedRE2('^(?:[a-z]+\\pL)$', false, false, false);
  warmUp.match('abc', 0, false);
  warmUp.delete();
  return { instance, fresh: true, cache: new Map(), cachedSize: 0 };
}

/**
 * The engine's current instance (started on first use), for tests that fill its memory or break it to
 * see a fault handled. Whatever is done with it, a later fault in it is not blamed on a pattern.
 */
export function patternEngine(): PatternEngineInstance {
  engine ??= loadEngine();
  engine.fresh = false;
  return engine.instance;
}

/**
 * Runs `operation` in the engine; after a fault, drops the engine and runs it once more in a fresh one.
 * @throws PatternTooComplexError when it faults a fresh engine
 */
function inEngine<T>(operation: (current: Engine) => T): T {
  for (;;) {
    const current = (engine ??= loadEngine());
    try {
      const result = operation(current);
      current.fresh = false;
      return result;
    } catch (error) {
      // Whatever the engine threw, its memory may be left half-changed: it is not used again.
      if (engine === current) engine = undefined;
      console.warn(`Pattern engine: fault, a fresh engine is started (${error instanceof Error ? error.message.split('\n')[0]!.slice(0, 300) : String(error)})`);
      if (current.fresh) throw new PatternTooComplexError(error);
    }
  }
}

/** Unicode classes with thousands of ranges (letters, their cases, the other letters), and `\\P…` (any negation). */
const LARGE_CLASSES: ReadonlySet<string> = new Set(['L', 'Letter', 'L&', 'LC', 'Ll', 'Lu', 'Lo', 'Lm', 'M', 'N', 'S', 'P', 'C', 'Any', 'Common', 'Han']);

/** {@link inEngine}, remembering a pattern that faults a fresh engine so as not to try it again. */
function inEngineOr<T>(pattern: string, operation: (current: Engine) => T): T {
  try {
    return inEngine(operation);
  } catch (error) {
    if (error instanceof PatternTooComplexError) {
      if (unusable.size >= MAX_UNUSABLE) unusable.delete(unusable.values().next().value!);
      unusable.add(pattern);
    }
    throw error;
  }
}

/**
 * An estimate of a pattern's compiled size, growing with what RE2 expands: a counted repetition
 * `x{n,m}` is `m` copies of `x`, and a Unicode class (`\pL`, `.`, a negated class) compiles to many
 * instructions where an ASCII character or range compiles to one. Linear in the pattern's length.
 */
export function patternSize(pattern: string): number {
  // Weights, relative to one literal character; measured against RE2's memory and compile time.
  const UNICODE_CLASS = 300;
  const LARGE_UNICODE_CLASS = 1500;
  const ANY = 10;
  const NEGATED = 10;
  const frames: { total: number; last: number; branch: number }[] = [{ total: 0, last: 0, branch: 0 }];
  let top = frames[0]!;
  const atom = (size: number) => {
    top.total += size;
    top.last = size;
  };
  const repeat = (times: number) => {
    top.total += top.last * (times - 1);
    top.last *= times;
  };
  const classEscape = (at: number): [number, number] => {
    // at: the index of the backslash; returns [size, next index]
    const letter = pattern[at + 1] ?? '';
    if (letter === 'p' || letter === 'P') {
      const braced = pattern[at + 2] === '{';
      const close = braced ? pattern.indexOf('}', at + 3) : at + 2;
      const name = braced ? pattern.slice(at + 3, close === -1 ? pattern.length : close) : (pattern[at + 2] ?? '');
      const size = letter === 'P' || name.startsWith('^') || LARGE_CLASSES.has(name) ? LARGE_UNICODE_CLASS : UNICODE_CLASS;
      return [size, close === -1 ? pattern.length : close + 1];
    }
    if (letter === 'Q') {
      const end = pattern.indexOf('\\E', at + 2);
      const stop = end === -1 ? pattern.length : end;
      return [stop - (at + 2), end === -1 ? stop : end + 2];
    }
    if ('DSW'.includes(letter) && letter !== '') return [NEGATED, at + 2];
    if ('dsw'.includes(letter) && letter !== '') return [4, at + 2];
    return [1, at + 2];
  };
  let caseless = 1;
  let i = 0;
  while (i < pattern.length) {
    const char = pattern[i]!;
    if (char === '\\') {
      const [size, next] = classEscape(i);
      atom(size);
      i = next;
    } else if (char === '[') {
      let j = i + 1;
      let size = 0;
      if (pattern[j] === '^') {
        size += NEGATED;
        j += 1;
      }
      if (pattern[j] === ']') j += 1;
      while (j < pattern.length && pattern[j] !== ']') {
        if (pattern[j] === '\\') {
          const [itemSize, next] = classEscape(j);
          size += itemSize;
          j = next;
        } else if (pattern.startsWith('[:', j)) {
          const close = pattern.indexOf(':]', j + 2);
          size += 4;
          j = close === -1 ? pattern.length : close + 2;
        } else {
          size += 1;
          j += 1;
        }
      }
      atom(Math.max(size, 1));
      i = j + 1;
    } else if (char === '(') {
      if (/^\(\?[a-zA-Z-]*i/.test(pattern.slice(i, i + 12))) caseless = 2;
      const flagsOnly = /^\(\?[a-zA-Z-]*\)/.exec(pattern.slice(i, i + 12));
      if (flagsOnly !== null) {
        i += flagsOnly[0].length;
        continue;
      }
      top = { total: 0, last: 0, branch: 0 };
      frames.push(top);
      i += 1;
    } else if (char === ')') {
      if (frames.length > 1) {
        frames.pop();
        const group = top.total + top.branch;
        top = frames[frames.length - 1]!;
        atom(group);
      }
      i += 1;
    } else if (char === '|') {
      // Alternatives compile one after the other: their sizes add up.
      top.branch += top.total;
      top.total = 0;
      top.last = 0;
      i += 1;
    } else if (char === '{') {
      const counted = /^\{(\d+)(,(\d*))?\}/.exec(pattern.slice(i, i + 20));
      if (counted === null) {
        atom(1);
        i += 1;
      } else {
        const least = Number(counted[1]);
        const most = counted[2] === undefined ? least : counted[3] === '' ? least + 1 : Number(counted[3]);
        repeat(Math.max(1, Math.min(Math.max(least, most), 100_000)));
        i += counted[0].length;
      }
    } else if (char === '*' || char === '+' || char === '?') {
      i += 1;
    } else if (char === '.') {
      atom(ANY);
      i += 1;
    } else {
      atom(1);
      i += char.codePointAt(0)! > 0xffff ? 2 : 1;
    }
  }
  while (frames.length > 1) {
    frames.pop();
    const group = top.total + top.branch;
    top = frames[frames.length - 1]!;
    atom(group);
  }
  return (top.total + top.branch) * caseless;
}

/**
 * re2-wasm's translation of JavaScript pattern syntax into RE2's (`\uXXXX` and `\u{...}` to `\x{...}`,
 * `\cX`, `(?<name>` to `(?P<name>`, `/` escaped), as its `RE2` class does, so patterns mean what they
 * meant with that class. From re2-wasm (Apache License 2.0), itself from node-re2's `new.cc`.
 */
function translate(source: string): string {
  const pattern = source === '' ? '(?:)' : source.replace(/(^|[^\\])((?:\\\\)*)\//g, '$1$2\\/');
  const upper = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
  const hex = '0123456789ABCDEF';
  const isHex = (char: string | undefined) => char !== undefined && hex.includes(char.toUpperCase());
  const result: string[] = [];
  for (let i = 0; i < pattern.length; ) {
    if (pattern[i] === '\\' && i + 1 < pattern.length) {
      const next = pattern[i + 1]!;
      if (next === '\\') {
        result.push('\\\\');
        i += 2;
      } else if (next === 'c') {
        const alpha = i + 2 < pattern.length ? upper.indexOf(pattern[i + 2]!) + 1 : -1;
        if (alpha >= 0) {
          result.push('\\x', hex[Math.floor(alpha / 16)]!, hex[alpha % 16]!);
          i += 3;
        } else {
          result.push('\\c');
          i += 2;
        }
      } else if (next === 'u' && isHex(pattern[i + 2])) {
        result.push('\\x{', pattern[i + 2]!);
        i += 3;
        for (let j = 0; j < 3 && i < pattern.length && isHex(pattern[i]); i++, j++) result.push(pattern[i]!);
        result.push('}');
      } else if (next === 'u' && pattern[i + 2] === '{') {
        result.push('\\x');
        i += 2;
      } else {
        result.push('\\', next);
        i += 2;
      }
    } else if (pattern[i] === '/') {
      result.push('\\/');
      i += 1;
    } else if (pattern.startsWith('(?<', i) && pattern[i + 3] !== '=' && pattern[i + 3] !== '!') {
      result.push('(?P<');
      i += 3;
    } else {
      result.push(pattern[i]!);
      i += 1;
    }
  }
  return result.join('');
}

/** RE2's reasons (the text before its colon), in the service's words. */
const SYNTAX_REASONS: [string, string][] = [
  ['missing )', 'has a ( without its )'],
  ['unexpected )', 'has a ) without its ('],
  ['missing ]', 'has a [ without its ]'],
  ['trailing \\', 'ends with a lone backslash'],
  ['invalid escape sequence', 'has an escape sequence RE2 does not know'],
  ['invalid character class range', 'has an invalid character class or range'],
  ['invalid character class', 'has an invalid character class'],
  ['no argument for repetition operator', 'has a repetition (*, +, ?, {n}) with nothing to repeat'],
  ['bad repetition operator', 'repeats a repetition (such as ** or +*)'],
  ['invalid repetition size', 'has a repetition count above 1000 (nested counts multiply) or {n,m} with n above m'],
  ['invalid perl operator', 'uses a (? group RE2 does not have (no look-around, no back-references)'],
  ['invalid named capture group', 'has an invalid group name'],
  ['missing argument to repetition operator', 'has a repetition (*, +, ?, {n}) with nothing to repeat'],
  ['invalid UTF-8', 'is not valid UTF-8 text'],
];

/**
 * A compile error of RE2 in the service's words: the kind of mistake, and the part of the pattern RE2
 * names when it is the owner's own text (never the anchoring the service adds).
 */
function syntaxRefusal(pattern: string, engineError: string): PatternRefusal {
  if (/too large|too big|out of memory/i.test(engineError)) return { kind: 'too-complex' };
  const colon = engineError.indexOf(': ');
  const code = colon === -1 ? engineError : engineError.slice(0, colon);
  const fragment = colon === -1 ? '' : engineError.slice(colon + 2);
  const words = SYNTAX_REASONS.find(([known]) => code === known)?.[1];
  if (words === undefined) {
    console.warn(`Pattern engine: refused a pattern for a reason without wording (${engineError.slice(0, 300)})`);
    return { kind: 'syntax', message: 'is not a valid regular expression (RE2 syntax)' };
  }
  const shown = fragment !== '' && fragment.length <= 60 && pattern.includes(fragment) ? `: ${fragment}` : '';
  return { kind: 'syntax', message: `is not a valid regular expression (RE2 syntax): it ${words}${shown}` };
}

/** Compiles `source` (already translated) in `current`, or gives RE2's error; nothing is kept. */
function compileError(current: Engine, source: string): string | null {
  const compiled = new current.instance.WrappedRE2(source, false, false, false);
  try {
    return compiled.ok() ? null : compiled.error();
  } finally {
    compiled.delete();
  }
}

/**
 * Why `pattern` cannot be a field's pattern, or `null` when it can: it compiles in RE2 alone (so that
 * unbalanced parentheses cannot escape the anchoring group) and anchored, within {@link MAX_PATTERN_SIZE}.
 * Nothing compiled is kept, and nothing earlier (anyone's patterns) can make a valid pattern refused.
 */
export function checkPattern(pattern: string): PatternRefusal | null {
  if (patternSize(pattern) > MAX_PATTERN_SIZE) return { kind: 'too-complex' };
  const source = translate(pattern);
  try {
    const error = inEngine((current) => compileError(current, source) ?? compileError(current, `^(?:${source})$`));
    return error === null ? null : syntaxRefusal(pattern, error);
  } catch (error) {
    if (error instanceof PatternTooComplexError) return { kind: 'too-complex' };
    throw error;
  }
}

/**
 * Whether the whole of `value` matches `pattern` (as `^(?:pattern)$`, Unicode). The compiled pattern is
 * kept in a small cache for the next values; after a fault the engine is replaced and the check made again.
 * @throws PatternTooComplexError when the pattern cannot run even alone in a fresh engine, or does not compile
 */
export function patternMatches(pattern: string, value: string): boolean {
  if (unusable.has(pattern)) throw new PatternTooComplexError(new Error('the pattern faulted a fresh engine before'));
  const matched = inEngineOr(pattern, (current) => {
    let entry = current.cache.get(pattern);
    if (entry === undefined) {
      const size = Math.max(1, Math.min(patternSize(pattern), MAX_CACHED_SIZE));
      // Room first: the cache keeps at most MAX_CACHED patterns of MAX_CACHED_SIZE together.
      for (const [key, old] of current.cache) {
        if (current.cache.size < MAX_CACHED && current.cachedSize + size <= MAX_CACHED_SIZE) break;
        current.cache.delete(key);
        current.cachedSize -= old.size;
        old.compiled.delete();
      }
      const compiled = new current.instance.WrappedRE2(`^(?:${translate(pattern)})$`, false, false, false);
      if (!compiled.ok()) {
        compiled.delete();
        return null;
      }
      entry = { compiled, size };
      current.cachedSize += size;
    } else {
      current.cache.delete(pattern);
    }
    current.cache.set(pattern, entry); // the most recently used last
    return entry.compiled.match(value, 0, false).index >= 0;
  });
  if (matched === null) throw new PatternTooComplexError(new Error('the pattern does not compile'));
  return matched;
}
