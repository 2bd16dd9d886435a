// @ts-check
// The signing page's languages: its messages come from the `sign` catalogue of the page's locale
// (ICU MessageFormat, formatted by intl-messageformat), fetched as /api/sign/messages-<locale>.json.
// English is bundled with the page (messages-en.js), so a catalogue that fails to load never takes
// the page down: the page falls back to English and says so once in the console.
import { IntlMessageFormat } from './intl-messageformat.js';
import english from './messages-en.js';

/** @typedef {import('intl-messageformat').PrimitiveType} MessageValue */
/** A message's ICU arguments by name. @typedef {Record<string, MessageValue>} MessageValues */

/**
 * The supported locales, each by its own name (the language switch lists them so).
 * @type {Readonly<Record<string, string>>}
 */
export const LOCALE_NAMES = {
  en: 'English',
  de: 'Deutsch',
  fr: 'Français',
  es: 'Español',
  it: 'Italiano',
  'pt-BR': 'Português (Brasil)',
  nl: 'Nederlands',
  pl: 'Polski',
  sv: 'Svenska',
  da: 'Dansk',
  nb: 'Norsk bokmål',
  fi: 'Suomi',
  cs: 'Čeština',
  tr: 'Türkçe',
  ru: 'Русский',
  uk: 'Українська',
  el: 'Ελληνικά',
  ar: 'العربية',
  he: 'עברית',
  'zh-CN': '简体中文',
  'zh-TW': '繁體中文',
  ja: '日本語',
  ko: '한국어',
  hi: 'हिन्दी',
  th: 'ไทย',
  id: 'Bahasa Indonesia',
  vi: 'Tiếng Việt',
};

/**
 * Fills a language switch with every supported locale, each by its own name (the signing page's, the
 * public link page's and the verify page's).
 * @param {HTMLElement} select
 */
export function addLanguageOptions(select) {
  Object.keys(LOCALE_NAMES).forEach((tag) => {
    const option = document.createElement('option');
    option.value = tag;
    option.lang = tag;
    option.textContent = LOCALE_NAMES[tag];
    select.appendChild(option);
  });
}

/** Locales written right to left. */
const RIGHT_TO_LEFT = ['ar', 'he'];

/** @type {{ locale: string, messages: Record<string, unknown>, formats: Map<string, IntlMessageFormat> }} */
const current = { locale: 'en', messages: english, formats: new Map() };
let warned = false;

/** The page's locale now. */
export function locale() {
  return current.locale;
}

/**
 * Whether `value` is a supported locale tag.
 * @param {unknown} value
 * @returns {value is string}
 */
export function isSupported(value) {
  return typeof value === 'string' && Object.hasOwn(LOCALE_NAMES, value);
}

/** Tags that name a supported language under another code (CLDR language aliases). */
/** @type {Readonly<Record<string, string>>} */
const LANGUAGE_ALIASES = { no: 'nb', iw: 'he', in: 'id' };

/**
 * The supported locale that best serves a reader preferring `tags` (BCP 47 language tags, most
 * preferred first: the browser's `navigator.languages`), else `'en'`. Each tag in turn, like the
 * lookup of RFC 4647 (section 3.4): a supported locale equal to it (ignoring case), else one of the
 * same language and script once both are completed with their likely subtags (Unicode CLDR, through
 * `Intl.Locale.prototype.maximize`), the same region first. So `de-AT` → `de`, `pt-PT` → `pt-BR`,
 * `zh-HK` and `zh-Hant` → `zh-TW`, `zh-SG` → `zh-CN`, `no` → `nb`; a language not supported gives
 * way to the reader's next one.
 * @param {readonly unknown[]} tags
 * @returns {string}
 */
export function preferredLocale(tags) {
  const supported = Object.keys(LOCALE_NAMES);
  /** @typedef {{ language: string, script: string | undefined, region: string | undefined } | null} Maximal */
  /** @type {Map<string, Maximal>} */
  const maximal = new Map();
  /** @type {(tag: string) => Maximal} */
  const maximize = (tag) => {
    if (!maximal.has(tag)) {
      let value = null;
      try {
        const full = new Intl.Locale(tag).maximize();
        value = { language: LANGUAGE_ALIASES[full.language] || full.language, script: full.script, region: full.region };
      } catch {
        value = null;
      }
      maximal.set(tag, value);
    }
    return /** @type {Maximal} */ (maximal.get(tag));
  };
  for (const tag of Array.isArray(tags) ? tags : []) {
    if (typeof tag !== 'string') continue;
    const exact = supported.find((candidate) => candidate.toLowerCase() === tag.toLowerCase());
    if (exact !== undefined) return exact;
    const wanted = maximize(tag);
    if (wanted === null) continue;
    const alike = supported.filter((candidate) => {
      const offered = maximize(candidate);
      return offered !== null && offered.language === wanted.language && offered.script === wanted.script;
    });
    if (alike.length > 0) return alike.find((candidate) => maximize(candidate)?.region === wanted.region) || alike[0];
  }
  return 'en';
}

/**
 * Makes `tag` the page's language: fetches its catalogue (English needs none), then sets `lang` and
 * `dir` on the document. A catalogue that cannot be fetched or read leaves the page in English, with
 * one warning in the console for the page's life.
 * @param {unknown} tag
 * @returns {Promise<string>} the locale the page is now in
 */
export async function useLocale(tag) {
  /** @type {{ locale: string, messages: Record<string, unknown> }} */
  let next = { locale: 'en', messages: english };
  if (isSupported(tag) && tag !== 'en') {
    try {
      const response = await fetch(new URL('messages-' + tag + '.json', import.meta.url), { headers: { Accept: 'application/json' }, referrerPolicy: 'no-referrer' });
      if (!response.ok) throw new Error('status ' + response.status);
      const messages = await response.json();
      if (messages === null || typeof messages !== 'object') throw new Error('not a catalogue');
      next = { locale: tag, messages: messages };
    } catch (error) {
      if (!warned) console.warn('The ' + tag + ' messages of the signing page could not be loaded (' + (error instanceof Error ? error.message : String(error)) + '); the page stays in English.');
      warned = true;
    }
  }
  current.locale = next.locale;
  current.messages = next.messages;
  current.formats = new Map();
  document.documentElement.lang = next.locale;
  document.documentElement.dir = RIGHT_TO_LEFT.indexOf(next.locale) >= 0 ? 'rtl' : 'ltr';
  return next.locale;
}

/** @param {string} key */
function format(key) {
  let compiled = current.formats.get(key);
  if (compiled === undefined) {
    const own = current.messages[key];
    const source = typeof own === 'string' ? own : english[key];
    compiled = new IntlMessageFormat(source === undefined ? key : source, source === own ? current.locale : 'en');
    current.formats.set(key, compiled);
  }
  return compiled;
}

/**
 * The message `key` in the page's language, its ICU arguments filled in from `values`. On a right-to-
 * left page each text argument (a name, an address, a document's name) is isolated (FSI … PDI,
 * Unicode bidirectional algorithm, UAX #9), so a Latin address keeps its order inside Arabic text.
 * @param {string} key
 * @param {MessageValues} [values]
 * @returns {string}
 */
export function t(key, values) {
  return String(format(key).format(document.documentElement.dir === 'rtl' ? isolated(values) : values));
}

/** The arguments that carry people's or documents' own text (never a select's or a plural's). */
const OWN_TEXT = ['document', 'sender', 'name', 'email', 'person', 'typed', 'value', 'file', 'message'];

/**
 * @param {MessageValues | undefined} values
 * @returns {MessageValues | undefined}
 */
function isolated(values) {
  if (values === undefined) return values;
  const copy = { ...values };
  OWN_TEXT.forEach((name) => {
    if (typeof copy[name] === 'string') copy[name] = '\u2068' + copy[name] + '\u2069';
  });
  return copy;
}

/**
 * Fills `element` with the message `key`, whose tags (`<link>…</link>`) become the elements
 * `tags` gives: `{link: (text) => element}`. Text stays text (never parsed as HTML).
 * @param {Element} element
 * @param {string} key
 * @param {Record<string, (text: string) => Node>} tags
 */
export function fillRich(element, key, tags) {
  /** @type {Record<string, (chunks: (string | Node)[]) => Node>} */
  const values = {};
  Object.keys(tags).forEach((tag) => {
    values[tag] = (chunks) => tags[tag](chunks.join(''));
  });
  const parts = format(key).format(values);
  element.textContent = '';
  (Array.isArray(parts) ? parts : [parts]).forEach((part) => element.append(part));
}

/** A time in the page's language and the reader's time zone, naming the zone ("25 November 2026 at 14:05 CET"). */
/** @param {string | null | undefined} iso */
export function formatDate(iso) {
  if (!iso) return '';
  return new Date(iso).toLocaleString(current.locale, { year: 'numeric', month: 'long', day: 'numeric', hour: 'numeric', minute: '2-digit', timeZoneName: 'short' });
}

/** "A, B and C" in the page's language. */
/** @param {string[]} items */
export function formatList(items) {
  return new Intl.ListFormat(current.locale, { style: 'long', type: 'conjunction' }).format(items);
}

/**
 * Translates the page's fixed text: every element with `data-i18n` gets the message it names as its
 * text, and `data-i18n-aria-label` its accessible name.
 * @param {ParentNode} root
 */
export function localiseDocument(root) {
  root.querySelectorAll('[data-i18n]').forEach((element) => { element.textContent = t(/** @type {string} */ (/** @type {HTMLElement} */ (element).dataset.i18n)); });
  root.querySelectorAll('[data-i18n-aria-label]').forEach((element) => element.setAttribute('aria-label', t(/** @type {string} */ (/** @type {HTMLElement} */ (element).dataset.i18nAriaLabel))));
}
