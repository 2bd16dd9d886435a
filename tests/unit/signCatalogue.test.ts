/**
 * The signing page's message catalogues (`src/locales/<locale>/sign.json`): every supported locale
 * has every message English has and no other; each message parses as ICU MessageFormat and uses the
 * same arguments (names and kinds: plain, select, plural, number) and rich-text tags as English; every
 * plural gives `other` and each category the locale's plural rules (CLDR, through `Intl.PluralRules`)
 * give a whole number from 0 to 1000 (the page's plurals count fields); the language switch's own names (`LOCALE_NAMES` of the page) are the catalogues'
 * `languageName`. The verify page (`src/web/evidence`, docs/evidence.md#the-verify-page) speaks with
 * the same catalogues: every message it names is in them, and each locale's is its own translation,
 * never English's text.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, test } from '@jest/globals';
import { IntlMessageFormat } from 'intl-messageformat';
import { SUPPORTED_LOCALES } from '../../src/lib/i18n/locales.js';

const ROOT = path.resolve(process.cwd(), 'src');

async function catalogue(locale: string): Promise<Record<string, string>> {
  return JSON.parse(await readFile(path.join(ROOT, 'locales', locale, 'sign.json'), 'utf8')) as Record<string, string>;
}

/** The element types of intl-messageformat's syntax tree (`TYPE` of @formatjs/icu-messageformat-parser). */
const TYPE = { argument: 1, number: 2, date: 3, time: 4, select: 5, plural: 6, tag: 8 } as const;
/** The parts of an element of that tree read here. */
interface MessageFormatElement {
  type: number;
  value?: string;
  options?: Record<string, { value: MessageFormatElement[] }>;
  children?: MessageFormatElement[];
}

/** The syntax tree of an ICU message (throws when it does not parse). */
const parse = (message: string, locale: string): MessageFormatElement[] => new IntlMessageFormat(message, locale).getAst() as unknown as MessageFormatElement[];

/** "name:kind" of every argument and tag of a message, and its plurals' categories. */
function shape(elements: MessageFormatElement[], found = { args: new Set<string>(), plurals: [] as string[][] }) {
  for (const element of elements) {
    if (element.type === TYPE.argument) found.args.add(`${element.value}:argument`);
    else if (element.type === TYPE.number) found.args.add(`${element.value}:number`);
    else if (element.type === TYPE.date || element.type === TYPE.time) found.args.add(`${element.value}:date`);
    else if (element.type === TYPE.tag) {
      found.args.add(`${element.value}:tag`);
      shape(element.children ?? [], found);
    } else if (element.type === TYPE.select) {
      found.args.add(`${element.value}:select`);
      for (const option of Object.values(element.options ?? {})) shape(option.value, found);
    } else if (element.type === TYPE.plural) {
      found.args.add(`${element.value}:plural`);
      found.plurals.push(Object.keys(element.options ?? {}));
      for (const option of Object.values(element.options ?? {})) shape(option.value, found);
    }
  }
  return found;
}

describe('the sign catalogues', () => {
  test.each(SUPPORTED_LOCALES.map((locale) => [locale]))('%s has every message of English, with the same arguments and its plural categories', async (locale) => {
    const english = await catalogue('en');
    const own = await catalogue(locale);
    expect(Object.keys(own).sort()).toEqual(Object.keys(english).sort());
    const rules = new Intl.PluralRules(locale);
    const categories = [...new Set(Array.from({ length: 1001 }, (_, count) => rules.select(count)))];
    for (const [key, source] of Object.entries(english)) {
      const expected = shape(parse(source, 'en'));
      const actual = shape(parse(own[key]!, locale));
      expect({ key, args: [...actual.args].sort() }).toEqual({ key, args: [...expected.args].sort() });
      for (const plural of actual.plurals) {
        expect({ key, missing: categories.filter((category) => !plural.includes(category)) }).toEqual({ key, missing: [] });
        expect(plural).toContain('other');
      }
    }
  });

  test('the language switch names each locale as its catalogue does', async () => {
    const source = await readFile(path.join(ROOT, 'web', 'sign', 'i18n.js'), 'utf8');
    const block = /export const LOCALE_NAMES = (\{[\s\S]*?\});/.exec(source)![1]!;
    const names = Object.fromEntries([...block.matchAll(/^\s*'?([A-Za-z-]+)'?: '([^']+)',$/gm)].map((match) => [match[1], match[2]]));
    expect(Object.keys(names)).toEqual([...SUPPORTED_LOCALES]);
    for (const locale of SUPPORTED_LOCALES) expect({ locale, name: names[locale] }).toEqual({ locale, name: (await catalogue(locale)).languageName });
  });

  test('every message the verify page names is in the catalogue, translated in every other locale', async () => {
    const html = await readFile(path.join(ROOT, 'web', 'evidence', 'index.html'), 'utf8');
    const script = await readFile(path.join(ROOT, 'web', 'evidence', 'evidence.js'), 'utf8');
    const named = new Set([
      ...[...html.matchAll(/data-i18n(?:-aria-label)?="([^"]+)"/g)].map((match) => match[1]!),
      ...[...script.matchAll(/\bt\('([A-Za-z]+)'/g)].map((match) => match[1]!),
      // Keys the script chooses between or passes on (`fillRich`): every string that names one.
      ...[...script.matchAll(/'(verify[A-Z][A-Za-z]*)'/g)].map((match) => match[1]!),
    ]);
    const english = await catalogue('en');
    // The page's own messages, found in both its files, and the signing page's it shares.
    expect([...named].filter((key) => key.startsWith('verify')).sort()).toEqual(Object.keys(english).filter((key) => key.startsWith('verify')).sort());
    expect([...named].filter((key) => !key.startsWith('verify')).sort()).toEqual(['language', 'pageTitle', 'siteTitle', 'skipLink']);
    for (const key of named) expect({ key, missing: english[key] === undefined }).toEqual({ key, missing: false });
    for (const locale of SUPPORTED_LOCALES.filter((tag) => tag !== 'en')) {
      const own = await catalogue(locale);
      const copied = [...named].filter((key) => key.startsWith('verify') && own[key] === english[key]);
      expect({ locale, copied }).toEqual({ locale, copied: [] });
    }
  });
});
