// @ts-check
// Problem details (RFC 9457, `application/problem+json`) as the pages receive them: the error every
// refused API request rejects with, and what the pages read from its problem.

/** @typedef {import('./api-types').components['schemas']['Problem']} Problem */
/** @typedef {NonNullable<Problem['errors']>[number]} FieldComplaint */

/** A request the API refused (any answer that is not 2xx), or that never reached it (`status` 0). */
export class ApiError extends Error {
  /**
   * @param {string} message the problem's `detail`, or the page's own words when there is none
   * @param {number} status the HTTP status; 0 when the service could not be reached
   * @param {Partial<Problem> | null} problem the answer's body when it is a JSON object, else `null`
   */
  constructor(message, status, problem) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.problem = problem;
  }
}

/**
 * The problem details in an answer's parsed body: the object itself (the service answers every 4xx and
 * 5xx with one), or `null` for an empty body or one that is not a JSON object.
 * @param {unknown} body
 * @returns {Partial<Problem> | null}
 */
export function problemOf(body) {
  return body !== null && typeof body === 'object' && !Array.isArray(body) ? /** @type {Partial<Problem>} */ (body) : null;
}

/**
 * The problem's slug: its `type` without `urn:problem:` (`etag-mismatch`), or `''` when `error`
 * carries no problem with a type.
 * @param {unknown} error any thrown value
 * @returns {string}
 */
export function problemSlug(error) {
  const problem = error instanceof ApiError ? error.problem : null;
  return problem && typeof problem.type === 'string' ? problem.type.replace(/^urn:problem:/, '') : '';
}

/**
 * The field complaints of a validation problem (`errors`: `{path, message}`, path dotted as
 * `signers.0.email`), or none.
 * @param {Partial<Problem> | null | undefined} problem
 * @returns {FieldComplaint[]}
 */
export function fieldComplaints(problem) {
  return problem && Array.isArray(problem.errors) ? problem.errors : [];
}
