/**
 * One HTTP request of a webhook delivery (docs/api.md#webhooks): `POST` of the signed body to the target,
 * connected to an address checked beforehand, never following a redirect, with one deadline for
 * connecting, the TLS handshake and the response headers.
 *
 * Node's `http`/`https` with a `lookup` that answers with the checked addresses only: the connection
 * goes to an address that passed the SSRF check, never to what a second DNS query might say. TLS
 * still verifies the certificate against the URL's host name (SNI and host name check use the URL).
 */
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import type { ResolvedAddress } from '../../outbound/target.js';

/** The delivery deadline in production (docs/api.md#webhooks), milliseconds. */
export const WEBHOOK_TIMEOUT_MS = 10_000;
/** Longest `error` text kept in the log, characters. */
const MAX_ERROR_LENGTH = 500;

export interface PostRequest {
  url: URL;
  /** The exact bytes to send (the JSON the signature covers). */
  body: string;
  headers: Record<string, string>;
  /** Where to connect: the addresses the host resolved to, already checked. Not used for IP literal hosts. */
  addresses: ResolvedAddress[];
}

export interface PostOptions {
  /** Deadline for the answer's status line and headers, milliseconds. */
  timeoutMs: number;
  /** Certificates to trust besides the system's (tests with their own CA). */
  ca?: string | Buffer | Array<string | Buffer>;
}

/** What became of the request. */
export interface PostResult {
  /** 2xx. */
  ok: boolean;
  /** The HTTP status, or `null` when none came. */
  status: number | null;
  /** Why it is not a success, a sentence for the log; `null` when `ok`. */
  error: string | null;
}

/**
 * Sends one request. Never throws: every failure is a {@link PostResult} saying what happened.
 * A 3xx is a failure ("redirect ... not followed"); the answer's body is not read.
 */
export async function postWebhook(request: PostRequest, options: PostOptions): Promise<PostResult> {
  const { url } = request;
  const lookup: LookupFunction = (_hostname, lookupOptions, callback) => {
    const family = lookupOptions.family === 4 || lookupOptions.family === 'IPv4' ? 4 : lookupOptions.family === 6 || lookupOptions.family === 'IPv6' ? 6 : 0;
    const candidates = request.addresses.filter((entry) => family === 0 || entry.family === family);
    if (candidates.length === 0) {
      callback(Object.assign(new Error('no checked address of the requested family'), { code: 'ENOTFOUND' }), '', 0);
      return;
    }
    if (lookupOptions.all) callback(null, candidates.map(({ address, family: entryFamily }) => ({ address, family: entryFamily })));
    else callback(null, candidates[0]!.address, candidates[0]!.family);
  };
  const transport = url.protocol === 'https:' ? https : http;
  return await new Promise<PostResult>((resolve) => {
    let settled = false;
    const finish = (result: PostResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ ...result, error: result.error === null ? null : result.error.slice(0, MAX_ERROR_LENGTH) });
    };
    const outgoing = transport.request(
      url,
      {
        method: 'POST',
        headers: { ...request.headers, 'content-length': String(Buffer.byteLength(request.body, 'utf8')) },
        lookup,
        // A fresh connection per attempt: no pooled socket can outlive the address check.
        agent: false,
        ...(options.ca === undefined ? {} : { ca: options.ca }),
      },
      (response) => {
        const status = response.statusCode ?? 0;
        // The status is all that counts; the body is not read.
        response.destroy();
        outgoing.destroy();
        if (status >= 200 && status < 300) finish({ ok: true, status, error: null });
        else if (status >= 300 && status < 400) {
          const location = response.headers.location;
          finish({ ok: false, status, error: `the receiver answered HTTP ${status}, a redirect${location === undefined ? '' : ` to ${location}`}, which is not followed` });
        } else finish({ ok: false, status, error: `the receiver answered HTTP ${status}` });
      },
    );
    const timer = setTimeout(() => {
      finish({ ok: false, status: null, error: `no answer within ${formatSeconds(options.timeoutMs)} (timed out)` });
      outgoing.destroy();
    }, options.timeoutMs);
    outgoing.on('error', (error) => finish({ ok: false, status: null, error: describeNetworkError(error) }));
    outgoing.end(request.body);
  });
}

function formatSeconds(milliseconds: number): string {
  const seconds = milliseconds / 1000;
  return `${Number.isInteger(seconds) ? seconds : seconds.toFixed(1)} s`;
}

/** A network failure in a sentence: what happened and the system's code. */
function describeNetworkError(error: Error): string {
  const code = (error as { code?: unknown }).code;
  switch (code) {
    case 'ECONNRESET':
      return 'the connection was reset before an answer came (ECONNRESET)';
    case 'ECONNREFUSED':
      return 'the connection was refused (ECONNREFUSED)';
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return `the address cannot be reached (${code})`;
    case 'EPIPE':
      return 'the connection was closed while the request was sent (EPIPE)';
    case 'ENOTFOUND':
      return 'no address to connect to (ENOTFOUND)';
    case 'HPE_INVALID_CONSTANT':
    case 'HPE_INVALID_STATUS':
    case 'HPE_INVALID_VERSION':
      return `the receiver's answer is not HTTP (${code})`;
    default:
      break;
  }
  if (typeof code === 'string' && (/^(ERR_TLS|ERR_SSL|CERT_|UNABLE_TO|DEPTH_ZERO|SELF_SIGNED|HOSTNAME)/.test(code) || /certificate|tls|ssl/i.test(error.message))) {
    return `TLS failed: ${error.message} (${code})`;
  }
  return typeof code === 'string' ? `${error.message} (${code})` : error.message;
}
