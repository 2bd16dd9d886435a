/**
 * The repository stands on its own: its public texts (README, docs/,
 * SECURITY.md, the OpenAPI document's descriptions, the pages) point nowhere outside the repository and
 * cite no section of the team's contract; their relative links resolve; and the API reference
 * (docs/api.md) names every route, every problem type the code answers with and every setting the
 * code reads, so that it cannot silently fall behind the code.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from '@jest/globals';
import { buildOpenApiDocument } from '../../src/lib/openapi/document.js';
import { loadFunctions } from '../../src/local/loadFunctions.js';
import { problemEntries } from '../../src/lib/problems.js';

const root = process.cwd();
const read = (file: string) => readFileSync(path.join(root, file), 'utf8');

/** Every file below `folder` (relative to the repository) whose name ends in one of `extensions`. */
function filesBelow(folder: string, extensions: string[]): string[] {
  return readdirSync(path.join(root, folder), { recursive: true, encoding: 'utf8' })
    .map((name) => path.join(folder, name))
    .filter((file) => statSync(path.join(root, file)).isFile() && extensions.some((extension) => file.endsWith(extension)));
}

const markdown = ['README.md', 'SECURITY.md', 'bench/README.md', ...filesBelow('docs', ['.md'])];
const pages = filesBelow('src/web', ['.html']);
/** The team's decisions document, by the name it goes by (spelt in two parts so that this file does not cite it). */
const decisions = 'CONTR' + 'ACT';
/** What points outside: the shared folder beside the repository, and citations of the team's decisions or the spec by section. */
const outside = [/\.\.\/shared/, new RegExp(`\\b${decisions}\\b`), /\bspec §/];

describe('nothing public points outside the repository', () => {
  test.each([...markdown, ...pages])('%s', (file) => {
    const text = read(file);
    expect(outside.filter((pattern) => pattern.test(text)).map(String)).toEqual([]);
  });

  test('no description or summary of the OpenAPI document', () => {
    const texts: string[] = [];
    const collect = (value: unknown): void => {
      if (Array.isArray(value)) value.forEach(collect);
      else if (value !== null && typeof value === 'object') {
        for (const [key, inner] of Object.entries(value)) {
          if ((key === 'description' || key === 'summary') && typeof inner === 'string') texts.push(inner);
          else collect(inner);
        }
      }
    };
    collect(buildOpenApiDocument());
    expect(texts.length).toBeGreaterThan(100);
    expect(texts.filter((text) => outside.some((pattern) => pattern.test(text)))).toEqual([]);
  });

  test('the check above finds what it looks for (so it can fail)', () => {
    expect(outside.filter((pattern) => pattern.test(`see [the decisions](../shared/${decisions}.md), spec §4`)).length).toBe(3);
  });
});

/** GitHub's anchor of a heading: lower case, punctuation other than `-` removed, spaces as `-`. */
const anchor = (heading: string) => heading.trim().toLowerCase().replace(/[^\p{L}\p{N} _-]/gu, '').replace(/ /g, '-');
/** The anchors of a Markdown text's headings (code blocks left out: their `#` lines are comments). */
const anchorsOf = (text: string) => new Set([...text.replace(/```[\s\S]*?```/g, '').matchAll(/^#{1,6} (.+)$/gm)].map((match) => anchor(match[1]!)));

describe('relative links in the Markdown files resolve', () => {

  test.each(markdown)('%s', (file) => {
    const text = read(file).replace(/```[\s\S]*?```/g, '');
    const broken: string[] = [];
    for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z]+:/.test(target!)) continue;
      const [where, fragment] = target!.split('#') as [string, string | undefined];
      const resolved = where === '' ? file : path.join(path.dirname(file), where);
      if (!existsSync(path.join(root, resolved))) broken.push(target!);
      else if (fragment !== undefined && resolved.endsWith('.md') && !anchorsOf(read(resolved)).has(fragment)) broken.push(target!);
    }
    expect(broken).toEqual([]);
  });
});

describe('docs/api.md covers the code', () => {
  const reference = read('docs/api.md');

  test('every route of src/functions', async () => {
    const routes = await loadFunctions();
    expect(routes.length).toBeGreaterThan(10);
    const missing = routes.filter((route) => !reference.includes(`/api/${route.route}`)).map((route) => route.route);
    expect(missing).toEqual([]);
  });

  /**
   * The problem slugs the source answers with: the catalogue's (src/lib/problems.ts), and the codes
   * of any `new AppError` thrown outside it without a type.
   */
  function problemTypesInSource(): Set<string> {
    const slugs = new Set(problemEntries().map((entry) => entry.slug));
    for (const file of filesBelow('src', ['.ts'])) {
      if (file.includes(`${path.sep}openapi${path.sep}`)) continue;
      const text = read(file);
      for (const match of text.matchAll(/type: '(?:urn:problem:)?([a-z]+(?:-[a-z]+)+)'/g)) slugs.add(match[1]!);
      for (const match of text.matchAll(/new AppError\(\s*'([a-z_]+)'/g)) {
        // The call's own text, up to its closing parenthesis, tells whether it names a type.
        let depth = 0;
        let end = match.index;
        for (; end < text.length; end++) {
          if (text[end] === '(') depth++;
          else if (text[end] === ')' && --depth === 0) break;
        }
        if (!text.slice(match.index, end).includes('type:')) slugs.add(match[1]!.replaceAll('_', '-'));
      }
    }
    return slugs;
  }

  test('every problem type, in the table of errors', () => {
    const slugs = problemTypesInSource();
    for (const expected of ['validation-failed', 'not-found', 'method-not-allowed', 'unsupported-media-type', 'internal-error', 'document-certified']) expect(slugs).toContain(expected);
    const errors = reference.slice(reference.indexOf('\n## Errors'), reference.indexOf('\n## Limits'));
    expect([...slugs].filter((slug) => !errors.includes(`| \`${slug}\` |`)).sort()).toEqual([]);
  });

  test('every setting src/lib/config.ts reads, in the table of settings', () => {
    const config = read('src/lib/config.ts');
    const schema = config.slice(config.indexOf('const environmentSchema'), config.indexOf('export interface Config'));
    const settings = [...schema.matchAll(/^ {2}([A-Z][A-Z0-9_]+):/gm)].map((match) => match[1]!);
    expect(settings.length).toBeGreaterThan(25);
    const table = reference.slice(reference.indexOf('\n## Configuration'), reference.indexOf('\n## CORS and caching'));
    expect(settings.filter((setting) => !table.includes(`\`${setting}\``))).toEqual([]);
  });
});

describe('every section of docs/api.md that the code, tests, benchmarks and deployment cite exists', () => {
  const apiReference = 'docs/' + 'api.md';
  /** The anchor after each `docs/api.md#` in a text (plain, or as the target of a relative link). */
  const citations = (text: string) => [...text.matchAll(/docs\/api\.md#([\p{L}\p{N}_-]+)/gu)].map((match) => match[1]!);
  const folders = ['src', 'tests', 'bench', 'infra', 'scripts', '.github'].filter((folder) => existsSync(path.join(root, folder)));
  const texts = ['.ts', '.js', '.mjs', '.cjs', '.html', '.css', '.md', '.json', '.bicep', '.yml', '.yaml', '.sh'];

  test('each cited anchor is a heading of docs/api.md', () => {
    const headings = anchorsOf(read(apiReference));
    const cited: string[] = [];
    const broken: string[] = [];
    for (const file of folders.flatMap((folder) => filesBelow(folder, texts))) {
      for (const fragment of citations(read(file))) {
        cited.push(fragment);
        if (!headings.has(fragment)) broken.push(`${file}: ${apiReference}#${fragment}`);
      }
    }
    expect(cited.length).toBeGreaterThan(100);
    expect(broken).toEqual([]);
  });

  test('the check above finds what it looks for (so it can fail)', () => {
    const headings = anchorsOf(read(apiReference));
    const sample = `see ${apiReference}#signer-authentication and [x](../${apiReference}#no-such-section)`;
    expect(citations(sample)).toEqual(['signer-authentication', 'no-such-section']);
    expect(citations(sample).map((fragment) => headings.has(fragment))).toEqual([true, false]);
  });
});
