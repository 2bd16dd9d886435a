/**
 * Imports between the folders of `src/lib` go one way (docs/architecture.md, "Which folder may import
 * which"): no two folders import each other, nor go round in a longer circle. A value import counts
 * (`import`, `export ... from`, `import()`); a type-only one does not (`import type`, or every name
 * marked `type`), since it leaves nothing at run time. A file directly in `src/lib` counts as a folder
 * of its own, as `config.ts` or `services.ts`.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from '@jest/globals';
import ts from 'typescript';

const root = process.cwd();
const lib = path.join(root, 'src', 'lib');

/** One value import of a module of another folder: from which file to which folder. */
interface FolderImport {
  from: string;
  fromFolder: string;
  toFolder: string;
}

/** The folder of `src/lib` a file (absolute) belongs to: its first path segment, `.ts` or `.js` dropped. */
function folderOf(file: string): string {
  return path.relative(lib, file).split(path.sep)[0]!.replace(/\.(ts|js)$/, '');
}

/** Whether an import or re-export leaves something at run time. */
function importsValues(statement: ts.ImportDeclaration | ts.ExportDeclaration): boolean {
  if (ts.isExportDeclaration(statement)) {
    if (statement.isTypeOnly) return false;
    const names = statement.exportClause;
    return names === undefined || !ts.isNamedExports(names) || names.elements.length === 0 || names.elements.some((element) => !element.isTypeOnly);
  }
  const clause = statement.importClause;
  if (clause === undefined) return true; // `import './x.js'`: run for its effect
  if (clause.isTypeOnly) return false;
  if (clause.name !== undefined) return true;
  const bindings = clause.namedBindings;
  if (bindings === undefined || ts.isNamespaceImport(bindings)) return true;
  return bindings.elements.length === 0 || bindings.elements.some((element) => !element.isTypeOnly);
}

/** The module specifiers of a file's value imports: static imports, re-exports and `import()` of a string. */
function valueSpecifiers(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const specifiers: string[] = [];
  const visit = (node: ts.Node): void => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier !== undefined && ts.isStringLiteral(node.moduleSpecifier)) {
      if (importsValues(node)) specifiers.push(node.moduleSpecifier.text);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword && node.arguments[0] !== undefined && ts.isStringLiteral(node.arguments[0])) {
      specifiers.push(node.arguments[0].text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return specifiers;
}

/** Every value import in `src/lib` of a module in another folder of `src/lib`. */
function folderImports(): FolderImport[] {
  const files = readdirSync(lib, { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.ts') && !name.endsWith('.d.ts'))
    .map((name) => path.join(lib, name));
  return files.flatMap((file) =>
    valueSpecifiers(file)
      .filter((specifier) => specifier.startsWith('.'))
      .map((specifier) => path.resolve(path.dirname(file), specifier))
      .filter((target) => !path.relative(lib, target).startsWith('..'))
      .map((target) => ({ from: path.relative(root, file).split(path.sep).join('/'), fromFolder: folderOf(file), toFolder: folderOf(target) }))
      .filter(({ fromFolder, toFolder }) => fromFolder !== toFolder),
  );
}

/** Folder → the folders it imports. */
function folderGraph(imports: FolderImport[]): Map<string, Set<string>> {
  const graph = new Map<string, Set<string>>();
  for (const { fromFolder, toFolder } of imports) {
    if (!graph.has(fromFolder)) graph.set(fromFolder, new Set());
    graph.get(fromFolder)!.add(toFolder);
  }
  return graph;
}

/** A circle of folders (`a → b → a`, or longer) reachable from some folder, or `null` when there is none. */
function findCircle(graph: Map<string, Set<string>>): string[] | null {
  const done = new Set<string>();
  const path: string[] = [];
  const visit = (folder: string): string[] | null => {
    const at = path.indexOf(folder);
    if (at >= 0) return [...path.slice(at), folder];
    if (done.has(folder)) return null;
    path.push(folder);
    for (const next of [...(graph.get(folder) ?? [])].sort()) {
      const circle = visit(next);
      if (circle !== null) return circle;
    }
    path.pop();
    done.add(folder);
    return null;
  };
  for (const folder of [...graph.keys()].sort()) {
    const circle = visit(folder);
    if (circle !== null) return circle;
  }
  return null;
}

describe('the folders of src/lib import one way (docs/architecture.md)', () => {
  const imports = folderImports();
  const graph = folderGraph(imports);

  test('the imports are found: envelopes imports storage, recipients imports envelopes', () => {
    expect(graph.get('envelopes')?.has('storage')).toBe(true);
    expect(graph.get('recipients')?.has('envelopes')).toBe(true);
  });

  test('no two folders import each other', () => {
    const twoWay = imports
      .filter(({ fromFolder, toFolder }) => graph.get(toFolder)?.has(fromFolder) === true)
      .map(({ from, toFolder }) => `${from} → ${toFolder}`)
      .sort();
    expect([...new Set(twoWay)]).toEqual([]);
  });

  test('no longer circle either', () => {
    expect(findCircle(graph)).toBeNull();
  });

  test('a circle is found when there is one', () => {
    const circular = folderGraph([
      { from: 'a.ts', fromFolder: 'a', toFolder: 'b' },
      { from: 'b.ts', fromFolder: 'b', toFolder: 'c' },
      { from: 'c.ts', fromFolder: 'c', toFolder: 'a' },
    ]);
    expect(findCircle(circular)).toEqual(['a', 'b', 'c', 'a']);
    expect(findCircle(folderGraph([{ from: 'a.ts', fromFolder: 'a', toFolder: 'b' }]))).toBeNull();
  });
});

describe('what counts as a value import', () => {
  const statement = (text: string) => ts.createSourceFile('x.ts', text, ts.ScriptTarget.Latest).statements[0] as ts.ImportDeclaration | ts.ExportDeclaration;

  test.each([
    ["import { a } from './a.js';", true],
    ["import { a, type B } from './a.js';", true],
    ["import a from './a.js';", true],
    ["import * as a from './a.js';", true],
    ["import './a.js';", true],
    ["export { a } from './a.js';", true],
    ["export * from './a.js';", true],
    ["import type { A } from './a.js';", false],
    ["import { type A, type B } from './a.js';", false],
    ["export type { A } from './a.js';", false],
  ])('%s: %s', (text, values) => {
    expect(importsValues(statement(text))).toBe(values);
  });
});
