/**
 * What telemetry must never carry (docs/api.md#telemetry): a token, an API key, a password, a SAS
 * signature, a code or an e-mail address. The service's spans and metrics are given only ids, names
 * of operations and tables, statuses and counts; these rules are the second line, applied to every
 * text telemetry exports that the service did not compose itself: log lines, error messages, and
 * every string attribute.
 */

/** An e-mail address (RFC 5322's common form: local part, `@`, a dotted domain). */
const EMAIL = /[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+/g;
/** A URL's user and password (`smtp://user:pass@host`). */
const URL_CREDENTIALS = /\/\/[^/\s:@]+:[^/\s@]+@/g;
/** A SAS signature, or any other signature or credential in a query string. */
const QUERY_SECRET = /\b(sig|signature|code|token|key|secret|password|accesskey|access_token)=[^&\s"'<>]*/gi;
/** An `Authorization` value: `Bearer`, `Basic`, `SharedKey` and the credential after it. */
const AUTHORIZATION = /\b(Bearer|Basic|SharedKey|SharedKeyLite)\s+[^\s"',;]+/gi;
/** A JWT (three base64url parts, the first a JSON object). */
const JWT = /\beyJ[A-Za-z0-9_-]*\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*/g;
/**
 * A long random string: signing tokens, API keys, invitation codes and webhook secrets are 24 to 32
 * random bytes in base64 or base64url (see {@link looksRandom}).
 */
const LONG_RUN = /[A-Za-z0-9_+=-]{24,}/g;

/**
 * Whether a run of 24 or more base64 characters is a random secret rather than a name: not only hex
 * digits and dashes (ids, UUIDs and SHA-256 hashes name things, they open nothing), and either with a
 * digit among letters or, from 32 characters, with letters of both cases (a random string of that
 * length without a digit is rare, one without both cases rarer still; names such as
 * `webhook-deliveries-poison` have neither).
 */
function looksRandom(run: string): boolean {
  if (/^[0-9a-fA-F-]+$/.test(run)) return false;
  const letters = /[A-Za-z]/.test(run);
  if (letters && /[0-9]/.test(run)) return true;
  return run.length >= 32 && /[a-z]/.test(run) && /[A-Z]/.test(run);
}

/**
 * `text` with every e-mail address, URL credential, query-string secret (`sig=`), `Authorization` credential, JWT and
 * long random string ({@link looksRandom}: ids and hashes stay) replaced by a bracketed word. For log
 * lines, error messages and string attributes before they are exported.
 */
export function redact(text: string): string {
  return text
    .replace(JWT, '[jwt]')
    .replace(AUTHORIZATION, (_match, scheme: string) => `${scheme} [redacted]`)
    .replace(URL_CREDENTIALS, '//[redacted]@')
    .replace(QUERY_SECRET, (_match, name: string) => `${name}=[redacted]`)
    .replace(EMAIL, '[email]')
    .replace(LONG_RUN, (run) => (looksRandom(run) ? '[redacted]' : run));
}
