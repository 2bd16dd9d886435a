/**
 * The message catalogues (docs/languages.md): every supported locale has every message of every namespace
 * English has (whatever namespaces exist: e-mails, certificate, common words, signing page, console),
 * each a valid ICU message with the same placeholders as English, plurals with every category the
 * language's CLDR plural rules name, selects with English's cases. A catalogue that fails to load
 * falls back to English and is logged once; an unsupported locale is refused listing the supported ones.
 */
import { mkdtempSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, test } from '@jest/globals';
import { IntlMessageFormat } from 'intl-messageformat';
import {
  LOCALES_DIR,
  SUPPORTED_LOCALES,
  catalogue,
  formatDateTime,
  formatTimestamp,
  localeSchema,
  namespaces,
  resetCataloguesForTests,
  translate,
} from '../../src/lib/i18n/index.js';

/** An ICU message's syntax tree, as far as this test reads it (intl-messageformat's element types). */
interface Element {
  type: number;
  value?: string;
  options?: Record<string, { value: Element[] }>;
  children?: Element[];
}
// @formatjs/icu-messageformat-parser TYPE: 1 argument, 2 number, 3 date, 4 time, 5 select, 6 plural, 8 tag.
const ARGUMENT_TYPES = new Set([1, 2, 3, 4, 5, 6]);
const SELECT = 5;
const PLURAL = 6;

function parse(message: string, locale: string): Element[] {
  return new IntlMessageFormat(message, locale).getAst() as unknown as Element[];
}

/** The names of every placeholder of a message, with the kind of each select/plural. */
function placeholders(elements: Element[], found = new Set<string>()): Set<string> {
  for (const element of elements) {
    if (ARGUMENT_TYPES.has(element.type) && element.value !== undefined) found.add(`${element.value}${element.type === PLURAL ? ':plural' : ''}`);
    for (const option of Object.values(element.options ?? {})) placeholders(option.value, found);
    if (element.children !== undefined) placeholders(element.children, found);
  }
  return found;
}

/** Every select and plural of a message, with its cases. */
function branches(elements: Element[], found: { kind: 'select' | 'plural'; name: string; cases: string[] }[] = []): typeof found {
  for (const element of elements) {
    if ((element.type === SELECT || element.type === PLURAL) && element.options !== undefined) {
      found.push({ kind: element.type === SELECT ? 'select' : 'plural', name: element.value ?? '', cases: Object.keys(element.options).sort() });
    }
    for (const option of Object.values(element.options ?? {})) branches(option.value, found);
    if (element.children !== undefined) branches(element.children, found);
  }
  return found;
}

function readCatalogue(locale: string, namespace: string): Record<string, string> {
  return JSON.parse(readFileSync(path.join(LOCALES_DIR, locale, `${namespace}.json`), 'utf8')) as Record<string, string>;
}

const englishNamespaces = readdirSync(path.join(LOCALES_DIR, 'en'))
  .filter((file) => file.endsWith('.json'))
  .map((file) => file.slice(0, -'.json'.length));

describe('message catalogues', () => {
  test('English has the namespaces the server speaks in', () => {
    expect(englishNamespaces).toEqual(expect.arrayContaining(['common', 'email', 'certificate']));
    expect(namespaces()).toEqual([...englishNamespaces].sort());
  });

  test('every supported locale has a folder of catalogues, and no other folder exists', () => {
    expect(readdirSync(LOCALES_DIR).sort()).toEqual([...SUPPORTED_LOCALES].sort());
  });

  describe.each(englishNamespaces)('namespace %s', (namespace) => {
    const english = readCatalogue('en', namespace);

    test.each(SUPPORTED_LOCALES.map((locale) => [locale]))('%s has every message, with English placeholders and its plural categories', (locale) => {
      const messages = readCatalogue(locale, namespace);
      expect(Object.keys(messages).sort()).toEqual(Object.keys(english).sort());
      const categories = new Intl.PluralRules(locale).resolvedOptions().pluralCategories;
      const problems: string[] = [];
      for (const [key, englishMessage] of Object.entries(english)) {
        const message = messages[key];
        if (typeof message !== 'string' || message.trim() === '') {
          problems.push(`${key}: missing or empty`);
          continue;
        }
        let tree: Element[];
        try {
          tree = parse(message, locale);
        } catch (error) {
          problems.push(`${key}: not a valid ICU message (${String(error)})`);
          continue;
        }
        const englishTree = parse(englishMessage, 'en');
        const expected = [...placeholders(englishTree)].map((name) => name.replace(/:plural$/, '')).sort();
        const actual = [...placeholders(tree)].map((name) => name.replace(/:plural$/, '')).sort();
        if (JSON.stringify(actual) !== JSON.stringify(expected)) problems.push(`${key}: placeholders ${actual.join(',')} differ from English ${expected.join(',')}`);
        const englishSelects = new Map(branches(englishTree).filter((branch) => branch.kind === 'select').map((branch) => [branch.name, branch.cases]));
        for (const branch of branches(tree)) {
          if (branch.kind === 'plural') {
            const missing = categories.filter((category) => !branch.cases.includes(category));
            if (missing.length > 0) problems.push(`${key}: plural {${branch.name}} lacks ${missing.join(', ')}`);
          } else if (JSON.stringify(branch.cases) !== JSON.stringify(englishSelects.get(branch.name))) {
            problems.push(`${key}: select {${branch.name}} has cases ${branch.cases.join(',')}, English ${englishSelects.get(branch.name)?.join(',')}`);
          }
        }
      }
      expect(problems).toEqual([]);
    });
  });
});

describe('translate', () => {
  test('formats plurals by the language\'s rules', () => {
    expect(translate('en', 'certificate', 'heading.audit', { count: 1 })).toBe('Audit trail (1 event)');
    expect(translate('en', 'certificate', 'heading.audit', { count: 3 })).toBe('Audit trail (3 events)');
    expect(translate('ru', 'certificate', 'heading.audit', { count: 3 })).toContain('события');
    expect(translate('ru', 'certificate', 'heading.audit', { count: 5 })).toContain('событий');
    expect(translate('ru', 'certificate', 'heading.audit', { count: 21 })).toContain('событие');
    expect(translate('pl', 'email', 'link.personalDays', { days: 30 })).toContain('30 dni');
    expect(translate('ar', 'email', 'link.personalDays', { days: 2 })).toContain('يومين');
    expect(translate('de', 'email', 'invitation.subject.signer', { document: 'Mietvertrag.pdf' })).toBe('Bitte prüfen und unterschreiben: Mietvertrag.pdf');
  });

  test('leaves typed text as typed: no escaping, no ICU syntax taken from values', () => {
    expect(translate('en', 'email', 'greeting.named', { name: '<b>{x}</b> & \'Ada\'' })).toBe('Hello <b>{x}</b> & \'Ada\',');
  });

  test('reads an unsupported locale as English', () => {
    expect(translate('xx', 'email', 'greeting.anonymous')).toBe('Hello,');
    expect(catalogue('xx', 'email')).toEqual(catalogue('en', 'email'));
  });

  test('lists a namespace\'s catalogue for a page to load, empty for an unknown namespace', () => {
    expect(catalogue('ja', 'certificate').title).toBe('完了証明書');
    expect(catalogue('ja', 'nothing-here')).toEqual({});
  });

  test('formats times in the locale, naming UTC; the certificate\'s English form stays 2026-11-22 13:37:06 UTC', () => {
    expect(formatTimestamp('en', '2026-11-22T13:37:06.123Z')).toBe('2026-11-22 13:37:06 UTC');
    expect(formatTimestamp('de', '2026-11-22T13:37:06.123Z')).toBe('22.11.2026, 13:37:06 UTC');
    expect(formatTimestamp('ja', '2026-11-22T13:37:06.123Z')).toBe('2026/11/22 13:37:06 UTC');
    // One calendar for evidence: Gregorian years in Thai too.
    expect(formatTimestamp('th', '2026-11-22T13:37:06.123Z')).toContain('2026');
    expect(formatDateTime('en', '2026-01-31T17:00:00Z')).toBe('31 January 2026 at 17:00 UTC');
    expect(formatDateTime('de', '2026-01-31T17:00:00Z')).toBe('31. Januar 2026 um 17:00 UTC');
    expect(formatDateTime('de', 'not a time')).toBe('not a time');
  });
});

describe('a catalogue that fails to load', () => {
  let directory: string | undefined;
  afterEach(() => {
    resetCataloguesForTests();
    if (directory !== undefined) rmSync(directory, { recursive: true, force: true });
    directory = undefined;
  });

  test('falls back to English for that locale and namespace, logged once', () => {
    directory = mkdtempSync(path.join(tmpdir(), 'catalogues-'));
    for (const locale of SUPPORTED_LOCALES) {
      mkdirSync(path.join(directory, locale));
      for (const namespace of englishNamespaces) {
        writeFileSync(path.join(directory, locale, `${namespace}.json`), JSON.stringify(readCatalogue(locale, namespace)));
      }
    }
    writeFileSync(path.join(directory, 'de', 'email.json'), '{ "greeting.named": ');
    rmSync(path.join(directory, 'fr', 'certificate.json'));
    const logged: string[] = [];
    resetCataloguesForTests({ directory, log: (message) => logged.push(message) });

    expect(translate('de', 'email', 'greeting.anonymous')).toBe('Hello,');
    expect(translate('de', 'email', 'verification.subject')).toBe('Verify your e-mail address');
    expect(translate('fr', 'certificate', 'title')).toBe('Certificate of completion');
    // The locale's other catalogues still work.
    expect(translate('de', 'certificate', 'title')).toBe('Abschlusszertifikat');
    expect(translate('fr', 'email', 'greeting.anonymous')).toBe('Bonjour,');
    expect(catalogue('de', 'email')).toEqual(catalogue('en', 'email'));
    expect(logged).toHaveLength(1);
    expect(logged[0]).toContain('de/email.json');
    expect(logged[0]).toContain('fr/certificate.json');
  });
});

describe('localeSchema', () => {
  test('accepts every supported locale exactly as listed', () => {
    for (const locale of SUPPORTED_LOCALES) expect(localeSchema.safeParse(locale).success).toBe(true);
    expect(localeSchema.safeParse('pt-br').success).toBe(false);
    expect(localeSchema.safeParse('pt').success).toBe(false);
  });

  test('refuses another value with a message listing the supported ones', () => {
    const result = localeSchema.safeParse('xx');
    expect(result.success).toBe(false);
    const message = result.error?.issues[0]?.message ?? '';
    for (const locale of SUPPORTED_LOCALES) expect(message).toContain(locale);
  });
});
