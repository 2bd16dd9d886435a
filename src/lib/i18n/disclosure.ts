/**
 * The disclosure about electronic records and signatures a recipient agrees to before acting
 * (docs/api.md#consent-to-electronic-signatures), as the service words it in each supported locale:
 * `src/locales/<locale>/disclosure.json`, key `text`, plain text (read as written, never formatted
 * as an ICU message). Each locale's text is a version of its own: the version is derived from the
 * text, so it differs between locales and changes whenever a text does. An organisation's own text
 * for a locale (docs/api.md#the-organizations-disclosures) takes the same kind of version.
 */
import { createHash } from 'node:crypto';
import { catalogue } from './index.js';
import { DEFAULT_LOCALE, isSupportedLocale, type Locale } from './locales.js';

/** A disclosure as shown and recorded: its exact text, its version and the locale it is written for. */
export interface Disclosure {
  /** The exact words the recipient was shown, plain text (an organisation's may hold line breaks). */
  text: string;
  /** `esd-` and 12 lower-case hex digits of the text's SHA-256 ({@link disclosureVersion}). */
  version: string;
  /** The locale whose text this is. */
  locale: Locale;
}

/** The catalogue namespace of the service's disclosures, and its one key. */
const NAMESPACE = 'disclosure';
const KEY = 'text';

/**
 * The version of a disclosure text: `esd-` and the first 12 hex digits of its SHA-256 (UTF-8), so
 * that it changes whenever the text does and never needs to be bumped by hand
 * (docs/api.md#consent-to-electronic-signatures).
 */
export function disclosureVersion(text: string): string {
  return `esd-${createHash('sha256').update(text, 'utf8').digest('hex').slice(0, 12)}`;
}

/**
 * The service's own disclosure in `locale` (an unsupported value is read as English). A locale whose
 * catalogue lacks the text gets English's, marked as English, so the record never claims a
 * translation that was not shown.
 */
export function serviceDisclosure(locale: string): Disclosure {
  const tag: Locale = isSupportedLocale(locale) ? locale : DEFAULT_LOCALE;
  const english = catalogue(DEFAULT_LOCALE, NAMESPACE)[KEY] ?? '';
  const own = catalogue(tag, NAMESPACE)[KEY];
  // A catalogue that failed to load is English's (`loadCatalogues`): recorded as English then.
  const translated = typeof own === 'string' && own.trim() !== '' && (tag === DEFAULT_LOCALE || own !== english);
  return translated ? { text: own, version: disclosureVersion(own), locale: tag } : { text: english, version: disclosureVersion(english), locale: DEFAULT_LOCALE };
}
