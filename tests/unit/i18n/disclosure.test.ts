/**
 * The disclosure about electronic records and signatures in every supported locale
 * (docs/api.md#consent-to-electronic-signatures, docs/languages.md): each locale has its own text,
 * written in its own script and distinct from English, with a version of its own.
 */
import { describe, expect, test } from '@jest/globals';
import { disclosureVersion, serviceDisclosure } from '../../../src/lib/i18n/disclosure.js';
import { SUPPORTED_LOCALES } from '../../../src/lib/i18n/locales.js';

/** The script most of each locale's text is written in (Unicode script property). */
const SCRIPTS: Record<(typeof SUPPORTED_LOCALES)[number], RegExp> = {
  en: /\p{Script=Latin}/gu, de: /\p{Script=Latin}/gu, fr: /\p{Script=Latin}/gu, es: /\p{Script=Latin}/gu, it: /\p{Script=Latin}/gu,
  'pt-BR': /\p{Script=Latin}/gu, nl: /\p{Script=Latin}/gu, pl: /\p{Script=Latin}/gu, sv: /\p{Script=Latin}/gu, da: /\p{Script=Latin}/gu,
  nb: /\p{Script=Latin}/gu, fi: /\p{Script=Latin}/gu, cs: /\p{Script=Latin}/gu, tr: /\p{Script=Latin}/gu, id: /\p{Script=Latin}/gu, vi: /\p{Script=Latin}/gu,
  ru: /\p{Script=Cyrillic}/gu, uk: /\p{Script=Cyrillic}/gu, el: /\p{Script=Greek}/gu, ar: /\p{Script=Arabic}/gu, he: /\p{Script=Hebrew}/gu,
  'zh-CN': /\p{Script=Han}/gu, 'zh-TW': /\p{Script=Han}/gu, ja: /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/gu, ko: /\p{Script=Hangul}/gu,
  hi: /\p{Script=Devanagari}/gu, th: /\p{Script=Thai}/gu,
};

describe('the service\'s disclosure', () => {
  const english = serviceDisclosure('en');

  test.each(SUPPORTED_LOCALES.map((locale) => [locale]))('%s has its own text, in its script, with the version of that text', (locale) => {
    const disclosure = serviceDisclosure(locale);
    expect(disclosure.locale).toBe(locale);
    expect(disclosure.text.trim().length).toBeGreaterThan(100);
    expect(disclosure.version).toMatch(/^esd-[0-9a-f]{12}$/);
    expect(disclosure.version).toBe(disclosureVersion(disclosure.text));
    if (locale === 'en') {
      expect(disclosure.text).toMatch(/^Consent to use electronic records and signatures\./);
    } else {
      expect(disclosure.text).not.toBe(english.text);
      expect(disclosure.version).not.toBe(english.version);
    }
    const letters = disclosure.text.match(/\p{L}/gu) ?? [];
    const inScript = disclosure.text.match(SCRIPTS[locale]) ?? [];
    // Mostly the locale's own script (names such as "SHA-256" aside): never an untranslated English text.
    expect(inScript.length / letters.length).toBeGreaterThan(0.9);
  });

  test('every locale\'s version differs from every other\'s', () => {
    expect(new Set(SUPPORTED_LOCALES.map((locale) => serviceDisclosure(locale).version)).size).toBe(SUPPORTED_LOCALES.length);
  });

  test('an unsupported locale is read as English', () => {
    expect(serviceDisclosure('xx')).toEqual(english);
    expect(serviceDisclosure('pt')).toEqual(english);
  });

  test('the version is esd- and the first 12 hex digits of the SHA-256 of the text\'s UTF-8', () => {
    // SHA-256("abc") = ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad (FIPS 180-2, B.1).
    expect(disclosureVersion('abc')).toBe('esd-ba7816bf8f01');
  });
});
