// @ts-check
// The page's language: the recipient's, the envelope's or the reader's, and the switch between them.
import { addLanguageOptions, isSupported, locale, localiseDocument, preferredLocale, useLocale } from './i18n.js';
import { paintWholeSignature } from './signatures.js';
import { $, state } from './signingSession.js';
/** @typedef {import('./signingSession.js').RecipientView} RecipientView */
/** @typedef {import('./signingSession.js').RestrictedRecipientView} RestrictedRecipientView */

/**
 * The recipient's language: its own `locale`, else the envelope's. Before the recipient entered its
 * code the view names neither (only the restricted view), so the page speaks the browser's language:
 * the supported locale that best matches `navigator.languages` (else English).
 * @param {RecipientView | RestrictedRecipientView} view
 * @returns {string}
 */
export function viewLocale(view) {
  // The restricted view has no recipient, and its envelope no locale.
  const full = /** @type {{ recipient?: { locale?: string | null }, envelope?: { locale?: string | null } }} */ (view);
  const candidates = [full.recipient && full.recipient.locale, full.envelope && full.envelope.locale];
  return candidates.find(isSupported) || readerLocale();
}

/** The supported locale closest to the browser's preferred languages (`navigator.languages`), else English. */
export function readerLocale() {
  const tags = Array.isArray(navigator.languages) && navigator.languages.length > 0 ? navigator.languages : [navigator.language];
  return preferredLocale(tags);
}

/**
 * Puts the page in `tag` (for this page only: nothing is stored) and redraws what it shows.
 * @param {string} tag
 */
export async function switchLanguage(tag) {
  const now = await useLocale(tag);
  localiseDocument(document);
  $('language').value = now;
  paintWholeSignature();
  if (state.screen !== null) state.screen();
}

/** The language switch: every supported language, each by its own name. */
export function fillLanguageSwitch() {
  const select = $('language');
  addLanguageOptions(select);
  select.value = locale();
  select.addEventListener('change', () => {
    state.languageChosen = true;
    void switchLanguage(select.value);
  });
}
