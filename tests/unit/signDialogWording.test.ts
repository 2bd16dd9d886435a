/**
 * The German adopt dialog's wording agrees with the noun it is about. The dialog adopts either a
 * signature ("die Unterschrift", feminine: "sie") or initials ("das Kürzel", neuter: "es"); its
 * heading names the noun through `{kind, select, …}`, and its intro (`adoptIntro`) is the same
 * sentence for both, so it must read correctly after either heading: no pronoun that agrees with
 * only one of the two nouns ("Sie legen sie einmal fest; sie wird dann …" is wrong for "Kürzel").
 * Each message is formatted as the signing page formats it: intl-messageformat with the page's
 * locale, given the dialog's `kind` (the page gives the intro no arguments; extra ones are ignored).
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, test } from '@jest/globals';
import { IntlMessageFormat } from 'intl-messageformat';

async function german(): Promise<Record<string, string>> {
  return JSON.parse(await readFile(path.resolve(process.cwd(), 'src', 'locales', 'de', 'sign.json'), 'utf8')) as Record<string, string>;
}

const format = (source: string, kind: string): string => String(new IntlMessageFormat(source, 'de').format({ kind }));

describe('the German adopt dialog', () => {
  test.each([
    ['initials', 'Ihr Kürzel festlegen'],
    ['signature', 'Ihre Unterschrift festlegen'],
  ])('for %s it reads "%s" and an intro with no pronoun of the wrong gender', async (kind, heading) => {
    const messages = await german();
    expect(format(messages.adoptHeading!, kind)).toBe(heading);
    const intro = format(messages.adoptIntro!, kind);
    expect(intro).toBe('Sie legen dies einmal fest; danach wird jedes Feld, das Sie auswählen, damit ausgefüllt.');
    // "sie" (lower case: not the polite "Sie") and "ihr"/"ihre" stand for a feminine noun; "er"/"ihn"
    // for a masculine one; "es" for a neuter one: the intro follows both nouns, so it uses none of them.
    expect(intro.split(/[\s,.;:]+/).filter((word) => ['sie', 'ihr', 'ihre', 'er', 'ihn', 'es'].includes(word))).toEqual([]);
  });
});
