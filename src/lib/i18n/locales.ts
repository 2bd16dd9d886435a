/**
 * The languages the service speaks: recipients' e-mails and signing pages, owners' e-mails and the
 * certificate of completion. BCP 47 tags as the envelope, template and recipient `locale` take them.
 * Each has a message catalogue under `src/locales/<locale>/`; `en` is the default and the fallback.
 */
export const SUPPORTED_LOCALES = [
  'en', 'de', 'fr', 'es', 'it', 'pt-BR', 'nl', 'pl', 'sv', 'da', 'nb', 'fi', 'cs', 'tr',
  'ru', 'uk', 'el', 'ar', 'he', 'zh-CN', 'zh-TW', 'ja', 'ko', 'hi', 'th', 'id', 'vi',
] as const;
export type Locale = (typeof SUPPORTED_LOCALES)[number];

/** The locale of an envelope, template or recipient that names none. */
export const DEFAULT_LOCALE: Locale = 'en';

/** Locales written right to left: their pages carry `dir="rtl"`. */
export const RIGHT_TO_LEFT_LOCALES: readonly Locale[] = ['ar', 'he'];

/** Whether `value` is one of the supported locales (exact, case-sensitive tag). */
export function isSupportedLocale(value: unknown): value is Locale {
  return typeof value === 'string' && (SUPPORTED_LOCALES as readonly string[]).includes(value);
}
