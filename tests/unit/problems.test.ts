/**
 * The catalogue of problems (src/lib/problems.ts) is the one list of problem types: each slug names
 * one problem for one status, each status is a valid HTTP error status, each key is thrown somewhere,
 * and docs/api.md's Errors table lists exactly the catalogue's slugs with the catalogue's statuses.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from '@jest/globals';
import { AppError } from '../../src/lib/errors.js';
import { problem, problemCatalogue, problemEntries, problemType, type ProblemKey } from '../../src/lib/problems.js';

const root = process.cwd();
const read = (file: string) => readFileSync(path.join(root, file), 'utf8');

function sourceFiles(folder: string): string[] {
  return readdirSync(path.join(root, folder), { recursive: true, encoding: 'utf8' })
    .map((name) => path.join(folder, name))
    .filter((file) => file.endsWith('.ts') && statSync(path.join(root, file)).isFile());
}

/** The rows of docs/api.md's Errors table: `<status> <slug>`. */
function documentedProblems(): string[] {
  const reference = read('docs/api.md');
  const errors = reference.slice(reference.indexOf('\n## Errors'), reference.indexOf('\n## ', reference.indexOf('\n## Errors') + 1));
  return [...errors.matchAll(/^\| (\d{3}) \| `([a-z-]+)` \|/gm)].map((match) => `${match[1]} ${match[2]}`);
}

describe('the catalogue of problems', () => {
  const entries = problemEntries();

  test('each slug names one problem per status, with a valid status and a sentence for detail', () => {
    const pairs = entries.map((entry) => `${entry.status} ${entry.slug}`);
    expect(new Set(pairs).size).toBe(pairs.length);
    // A slug answered with two statuses is the exception, and there is one: captcha-failed (Register 403, Login 401).
    const slugs = entries.map((entry) => entry.slug);
    expect(slugs.filter((slug, index) => slugs.indexOf(slug) !== index)).toEqual(['captcha-failed']);
    for (const entry of entries) {
      expect(entry.slug).toMatch(/^[a-z]+(-[a-z]+)*$/);
      expect(entry.key).toBe(entry.slug.replace(/-([a-z])/g, (_, letter: string) => letter.toUpperCase()) + (entry.key.endsWith('Login') ? 'Login' : ''));
      expect(entry.status === 500 || (entry.status >= 400 && entry.status <= 499) || entry.status === 503).toBe(true);
      expect(entry.detail).toMatch(/^[A-Z].*\.$/);
    }
  });

  test('problem() builds the AppError of its entry, the site\'s detail and members kept', () => {
    const error = problem('envelopeContended');
    expect(error).toBeInstanceOf(AppError);
    expect([error.type, error.status, error.detail]).toEqual(['urn:problem:envelope-contended', 409, problemCatalogue.envelopeContended.detail]);
    const specific = problem('validationFailed', { detail: 'The request body is invalid: name is required.', errors: [{ path: 'name', message: 'is required' }] });
    expect([specific.type, specific.status, specific.detail, specific.errors]).toEqual(['urn:problem:validation-failed', 400, 'The request body is invalid: name is required.', [{ path: 'name', message: 'is required' }]]);
    expect(problemType('internalError')).toBe('urn:problem:internal-error');
  });

  test('docs/api.md\'s Errors table lists exactly the catalogue, status by status', () => {
    const documented = documentedProblems();
    expect(documented.length).toBeGreaterThan(50);
    expect(new Set(documented).size).toBe(documented.length);
    expect([...documented].sort()).toEqual(entries.map((entry) => `${entry.status} ${entry.slug}`).sort());
  });

  test('every key is thrown (or answered) somewhere in the service', () => {
    const source = sourceFiles('src')
      .filter((file) => !file.endsWith(`${path.sep}problems.ts`))
      .map(read)
      .join('\n');
    const unused = (Object.keys(problemCatalogue) as ProblemKey[]).filter((key) => !new RegExp(`problem(?:Error|Type)?\\('${key}'`).test(source));
    expect(unused).toEqual([]);
  });

  test('no source file spells the problem URN but the catalogue and the AppError class that forms it', () => {
    const spelling = sourceFiles('src').filter((file) => !file.includes(`${path.sep}web${path.sep}`) && read(file).includes('urn:problem:'));
    expect(spelling.map((file) => path.relative('src', file)).sort()).toEqual([path.join('lib', 'errors.ts'), path.join('lib', 'problems.ts')]);
  });
});
