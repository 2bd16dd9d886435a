/**
 * The message catalogues (ICU MessageFormat, https://unicode-org.github.io/icu/userguide/format_parse/messages/)
 * behind every word people read: e-mails, the certificate of completion, the signing page and the
 * console. One JSON file per locale and namespace, `src/locales/<locale>/<namespace>.json` (copied to
 * `dist/src/locales/` by the build), flat keys to ICU messages. They are read once, on first use, into
 * one i18next instance with the ICU format plugin (i18next-icu, on intl-messageformat), so plurals
 * follow each language's CLDR rules (`{count, plural, one {…} few {…} many {…} other {…}}`).
 *
 * A catalogue that cannot be read or parsed does not take anything down: that locale's namespace
 * falls back to English, and the failure is logged once.
 */
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import i18next from 'i18next';
import type { i18n } from 'i18next';
import ICU from 'i18next-icu';
import { DEFAULT_LOCALE, SUPPORTED_LOCALES, isSupportedLocale } from './locales.js';
import type { Locale } from './locales.js';

export { DEFAULT_LOCALE, SUPPORTED_LOCALES, RIGHT_TO_LEFT_LOCALES, isSupportedLocale } from './locales.js';
export type { Locale } from './locales.js';
export { localeSchema } from './schema.js';

/** Where the catalogues are: `dist/src/locales/` beside the compiled module (`dist/src/lib/i18n/`). */
export const LOCALES_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../locales');

/** A catalogue: flat message keys to ICU messages. */
export type Catalogue = Record<string, string>;

/** Values a message's placeholders take: text, numbers (plurals) and dates. */
export type MessageValues = Record<string, string | number | Date>;

/** A translator bound to one locale: `t('email', 'invitation.subject', { document })`. */
export type Translate = (namespace: string, key: string, values?: MessageValues) => string;

interface Loaded {
  instance: i18n;
  catalogues: Map<Locale, Map<string, Catalogue>>;
}

let loaded: Loaded | undefined;
let cataloguesDir = LOCALES_DIR;
let logFailure: (message: string) => void = (message) => console.warn(message);

/**
 * Reads every catalogue of every supported locale from `directory` (default {@link LOCALES_DIR}).
 * The namespaces are those English has. A locale whose file for a namespace is missing or not a JSON
 * object of strings gets English for that namespace; each such failure is passed to `log` once.
 */
export function loadCatalogues(directory: string = LOCALES_DIR, log: (message: string) => void = logFailure): Map<Locale, Map<string, Catalogue>> {
  const namespaces = readdirSync(path.join(directory, DEFAULT_LOCALE))
    .filter((file) => file.endsWith('.json'))
    .map((file) => file.slice(0, -'.json'.length))
    .sort();
  const english = new Map(namespaces.map((namespace) => [namespace, readCatalogue(directory, DEFAULT_LOCALE, namespace)]));
  const result = new Map<Locale, Map<string, Catalogue>>([[DEFAULT_LOCALE, english]]);
  const failures: string[] = [];
  for (const locale of SUPPORTED_LOCALES) {
    if (locale === DEFAULT_LOCALE) continue;
    const byNamespace = new Map<string, Catalogue>();
    for (const namespace of namespaces) {
      try {
        byNamespace.set(namespace, readCatalogue(directory, locale, namespace));
      } catch (error) {
        failures.push(`${locale}/${namespace}.json (${error instanceof Error ? error.message : String(error)})`);
        byNamespace.set(namespace, english.get(namespace)!);
      }
    }
    result.set(locale, byNamespace);
  }
  if (failures.length > 0) log(`Message catalogues that failed to load, English is used instead: ${failures.join('; ')}`);
  return result;
}

/** One catalogue file, checked to be a flat object of strings. @throws Error when it is not */
function readCatalogue(directory: string, locale: string, namespace: string): Catalogue {
  const parsed: unknown = JSON.parse(readFileSync(path.join(directory, locale, `${namespace}.json`), 'utf8'));
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('not a JSON object');
  for (const [key, value] of Object.entries(parsed)) {
    if (typeof value !== 'string') throw new Error(`message ${key} is not a string`);
  }
  return parsed as Catalogue;
}

function ensureLoaded(): Loaded {
  if (loaded !== undefined) return loaded;
  const catalogues = loadCatalogues(cataloguesDir, logFailure);
  const resources: Record<string, Record<string, Catalogue>> = {};
  for (const [locale, byNamespace] of catalogues) resources[locale] = Object.fromEntries(byNamespace);
  const instance = i18next.createInstance();
  instance.use(ICU).init({
    resources,
    lng: DEFAULT_LOCALE,
    fallbackLng: DEFAULT_LOCALE,
    supportedLngs: [...SUPPORTED_LOCALES],
    // Tags as given (`pt-BR`, `zh-TW`), never reduced to their language.
    load: 'currentOnly',
    ns: [...(catalogues.get(DEFAULT_LOCALE)?.keys() ?? [])],
    keySeparator: false,
    nsSeparator: false,
    initAsync: false,
    returnNull: false,
    interpolation: { escapeValue: false },
  });
  loaded = { instance, catalogues };
  return loaded;
}

/**
 * The message `key` of `namespace` in `locale` with `values` in its placeholders (ICU: `{name}`,
 * plurals, `{when, date, long}`). An unsupported locale is read as English; a key a catalogue lacks
 * falls back to English, then to the key itself. Placeholder names that are i18next options (`lng`,
 * `ns`, `context`, `defaultValue`, `count`'s plural suffixes aside) must not be used in messages.
 */
export function translate(locale: string, namespace: string, key: string, values: MessageValues = {}): string {
  const { instance } = ensureLoaded();
  return instance.t(key, { ...values, lng: isSupportedLocale(locale) ? locale : DEFAULT_LOCALE, ns: namespace });
}

/** {@link translate} bound to one locale. */
export function translatorFor(locale: string): Translate {
  return (namespace, key, values) => translate(locale, namespace, key, values);
}

/**
 * A namespace's whole catalogue in `locale` (as the pages load it), English for an unsupported
 * locale; an empty object for a namespace English does not have.
 */
export function catalogue(locale: string, namespace: string): Record<string, string> {
  const { catalogues } = ensureLoaded();
  return { ...(catalogues.get(isSupportedLocale(locale) ? locale : DEFAULT_LOCALE)?.get(namespace) ?? {}) };
}

/** The namespaces (those of English), sorted. */
export function namespaces(): string[] {
  return [...(ensureLoaded().catalogues.get(DEFAULT_LOCALE)?.keys() ?? [])];
}

/** The Intl locale of dates and times: British English for `en` (day, month, year; 24-hour clock). */
function intlLocale(locale: string): string {
  return locale === DEFAULT_LOCALE ? 'en-GB' : isSupportedLocale(locale) ? locale : 'en-GB';
}

/**
 * A date and time as e-mails write it, in UTC, naming the time zone: `31 January 2026 at 17:00 UTC`
 * in English, `31. Januar 2026 um 17:00 UTC` in German (Intl.DateTimeFormat, long date and short
 * time, then the locale's `common` message `time.utc`). The original text when `iso` is not a timestamp.
 */
export function formatDateTime(locale: string, iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  const time = new Intl.DateTimeFormat(intlLocale(locale), { dateStyle: 'long', timeStyle: 'short', timeZone: 'UTC' }).format(date);
  return translate(locale, 'common', 'time.utc', { time });
}

/**
 * A time to the second as the certificate of completion prints it, in UTC, naming it:
 * `2026-11-22 13:37:06 UTC` in English, the locale's numeric date and 24-hour time otherwise
 * (`22.11.2026, 13:37:06 UTC`). The original text when `iso` is not a timestamp.
 */
export function formatTimestamp(locale: string, iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  if (locale === DEFAULT_LOCALE || !isSupportedLocale(locale)) {
    const text = date.toISOString();
    return `${text.slice(0, 10)} ${text.slice(11, 19)} UTC`;
  }
  const time = new Intl.DateTimeFormat(locale, {
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    hourCycle: 'h23',
    // One calendar for evidence: the Gregorian (Thai would otherwise count Buddhist years).
    calendar: 'gregory',
    timeZone: 'UTC',
  }).format(date);
  return translate(locale, 'common', 'time.utc', { time });
}

/**
 * Tests only: forget the loaded catalogues; read them from `directory` (default the built ones) and
 * log failures with `log` from the next use on.
 */
export function resetCataloguesForTests(options: { directory?: string; log?: (message: string) => void } = {}): void {
  loaded = undefined;
  cataloguesDir = options.directory ?? LOCALES_DIR;
  logFailure = options.log ?? ((message) => console.warn(message));
}
