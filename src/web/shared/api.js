// @ts-check
// The pages' one API client: JSON in and out over fetch, the bearer token, and any answer that is not
// 2xx turned into an ApiError carrying its problem details (RFC 9457). The console and the signing
// page each make one with their own token and their own words for answers without details.
import { ApiError, problemOf } from './problems.js';

/**
 * @typedef {object} ApiClientOptions
 * @property {URL} base the API's root (`/api/`, whatever the host's route prefix)
 * @property {() => string | null} token the bearer token to send, or `null` to send none
 * @property {(status: number) => string} failure the message of an answer without a problem's `detail`
 * @property {() => string} unreachable the message when the service could not be reached at all
 * @property {RequestInit} [init] more of fetch's options for every request (cache, referrer policy)
 */

/**
 * @typedef {object} RequestOptions
 * @property {unknown} [json] the request's body, sent as JSON
 * @property {{ text: string, contentType: string }} [raw] the request's body as text of a media type of its own (a CSV file)
 * @property {string | null} [ifMatch] the ETag the change is conditional on (`If-Match`)
 */

/**
 * An answer the API accepted. The body is the operation's JSON (or `null` when empty); its schema is
 * the operation's in the OpenAPI document, which the caller names (`@type {Envelope}`), hence `any`.
 * @typedef {object} ApiResponse
 * @property {number} status
 * @property {Headers} headers
 * @property {any} body
 */

/** @typedef {(method: string, path: string, options?: RequestOptions) => Promise<ApiResponse>} ApiRequest */

/**
 * A client of the API at `options.base`.
 * @param {ApiClientOptions} options
 * @returns {ApiRequest} one request: `path` relative to the API's root (`envelopes/<id>`); rejects
 *   with an {@link ApiError} for any answer that is not 2xx (status 0 when nothing answered)
 */
export function apiClient(options) {
  return async function request(method, path, { json, raw, ifMatch } = {}) {
    /** @type {Record<string, string>} */
    const headers = { Accept: 'application/json' };
    const token = options.token();
    if (token !== null) headers.Authorization = 'Bearer ' + token;
    if (ifMatch) headers['If-Match'] = ifMatch;
    /** @type {RequestInit} */
    const init = { ...options.init, method, headers };
    if (json !== undefined) {
      headers['Content-Type'] = 'application/json';
      init.body = JSON.stringify(json);
    } else if (raw !== undefined) {
      headers['Content-Type'] = raw.contentType;
      init.body = raw.text;
    }
    let response;
    try {
      response = await fetch(new URL(path, options.base), init);
    } catch (ignored) {
      throw new ApiError(options.unreachable(), 0, null);
    }
    const text = await response.text();
    /** @type {unknown} */
    let body = null;
    try { body = text === '' ? null : JSON.parse(text); } catch (ignored) { body = null; }
    if (!response.ok) {
      const problem = problemOf(body);
      throw new ApiError(problem && typeof problem.detail === 'string' ? problem.detail : options.failure(response.status), response.status, problem);
    }
    return { status: response.status, headers: response.headers, body };
  };
}
