// @ts-check
// The signing page's session: the recipient's token (from the link's fragment, kept in this tab),
// what the page holds while the recipient acts, and the recipient's API (/api/signing).
import { apiClient } from './api.js';
import { t } from './i18n.js';

/** /api/, whatever the host's route prefix. */
export const API = new URL('../', import.meta.url);
const TOKEN_KEY = 'envelope-signing-token';
const TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

/**
 * The page's element with this id, typed by its tag in index.html.
 * @type {import('./signElements').ById}
 */
export const $ = /** @type {import('./signElements').ById} */ ((/** @type {string} */ id) => document.getElementById(id));

/** @typedef {import('../shared/api-types').components['schemas']} Schemas */
/** @typedef {Schemas['RecipientView']} RecipientView */
/** What the service shows a recipient who has not entered its code yet. @typedef {Schemas['RestrictedRecipientView']} RestrictedRecipientView */
/** @typedef {RecipientView['fields'][number]} ViewField */
/** @typedef {RecipientView['filled'][number]} FilledField */
/** A signature value as the API takes it. @typedef {Schemas['TypedSignature'] | Schemas['DrawnSignature']} SignatureValue */
/** @typedef {Schemas['FieldValue']} FieldValue */
/** A rectangle in pad pixels. @typedef {{ left: number, right: number, top: number, bottom: number }} PadBox */
/** A signature or initials adopted in the dialog: typed, or drawn (strokes of [x, y] pad pixels). @typedef {{ typed: string, strokes?: undefined } | { typed?: undefined, strokes: number[][][], box: PadBox }} Adopted */
/**
 * A field this recipient fills: its control on the page and the value it holds (a signature value,
 * text, a checkbox's boolean), `null` while empty.
 * @typedef {object} Entry
 * @property {ViewField} field
 * @property {HTMLInputElement | HTMLButtonElement | HTMLSelectElement} element
 * @property {FieldValue['value'] | SignatureValue | null} value
 * @property {HTMLElement} page
 */
/** @typedef {'signature' | 'initials'} SignatureKind */

/**
 * What the page holds while the recipient acts.
 * @type {{
 *   token: string | null, view: RecipientView | null, entries: Map<string, Entry>,
 *   adopted: Record<SignatureKind, Adopted | null>, wholeSignature: SignatureValue | null, disclosureShown: boolean, disclosureLocale: string | null,
 *   lastValues: FieldValue[], adopting: SignatureKind | null, pad: import('./signature_pad.min.js').default | null,
 *   pdf: import('./pdfPages.js').PdfDocument | null, pdfLoading: Promise<import('./pdfPages.js').PdfDocument> | null,
 *   screen: (() => void) | null, languageChosen: boolean, pages: HTMLElement[], filled: { filled: FilledField, element: HTMLElement }[],
 *   fontReady: Promise<unknown>, attemptsLeft: number | undefined, codeSent: boolean, texted: boolean,
 * }}
 */
export const state = {
  token: null,
  view: null,
  /** fieldId -> {field, element, value} for the fields this recipient fills. */
  entries: new Map(),
  /** Adopted signatures, by kind ('signature', 'initials'): {typed} or {strokes, box} (pad pixels). */
  adopted: { signature: null, initials: null },
  /** The signature for the certificate when the signer has no signature field. */
  wholeSignature: null,
  /** Whether the service's disclosure is shown above the consent box (finishing waits for it). */
  disclosureShown: false,
  /** The language of the disclosure shown (or being fetched), sent with the consent. */
  disclosureLocale: null,
  /** The values of the last complete request, to name the fields the service refused. */
  lastValues: [],
  /** What the adopt dialog was opened for. */
  adopting: null,
  pad: null,
  pdf: null,
  /** The document's download, started as soon as the view says the recipient can act. */
  pdfLoading: null,
  /** Redraws the words of what the page shows now (after a change of language). */
  screen: null,
  /** Whether the reader picked a language with the switch (the page then keeps it). */
  languageChosen: false,
  /** The document's page elements, once laid out. */
  pages: [],
  /** Other recipients' values shown on the pages: {filled, element}. */
  filled: [],
  /** Caveat, loaded: typed signatures are measured in it to fit their fields. */
  fontReady: Promise.resolve(),
  /** The code form: wrong codes still allowed, whether a one-time code was sent from this page, and whether codes come by text message. */
  attemptsLeft: undefined,
  codeSent: false,
  texted: false,
};

// ---- The token -----------------------------------------------------------------------------------

/** The token from the fragment (then removed from the address bar) or, after a reload, from this tab. */
export function readToken() {
  let fragment = window.location.hash.replace(/^#/, '');
  try { fragment = decodeURIComponent(fragment); } catch (ignored) { /* not a token either way */ }
  if (fragment !== '') {
    history.replaceState(history.state, '', window.location.pathname + window.location.search);
    const token = TOKEN_PATTERN.test(fragment) ? fragment : null;
    try {
      if (token === null) sessionStorage.removeItem(TOKEN_KEY);
      else sessionStorage.setItem(TOKEN_KEY, token);
    } catch (ignored) {
      // Storage disabled: the token lives in memory only (a reload then needs the link again).
    }
    return token;
  }
  try {
    return sessionStorage.getItem(TOKEN_KEY);
  } catch (ignored) {
    return null;
  }
}

/** The recipient's API, with the token as its bearer token; no cache, no Referer. */
const request = apiClient({
  base: API,
  token: () => state.token,
  init: { cache: 'no-store', referrerPolicy: 'no-referrer' },
  failure: (status) => t('serviceAnswered', { status: status }),
  unreachable: () => t('unreachable'),
});

/**
 * One request to the recipient's API. Resolves with the answer's body (the view, mostly); rejects
 * with an ApiError carrying `status` (0 when the service could not be reached) and the problem
 * details (RFC 9457) for any answer that is not 2xx.
 * @param {string} method
 * @param {string} path below /api/: `signing`, `signing/complete`, ...
 * @param {unknown} [body] sent as JSON
 * @returns {Promise<any>} the operation's JSON: its schema is the operation's (RecipientView mostly), named by the caller
 */
export async function signingApi(method, path, body) {
  return (await request(method, path, { json: body })).body;
}
