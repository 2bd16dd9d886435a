/**
 * Revocation data for the seal's long-term validation (PAdES B-LT and B-LTA; `sealLevel.ts`): OCSP
 * responses (RFC 6960) and CRLs (RFC 5280) fetched from the URLs the certificates name, checked, and
 * kept until their `nextUpdate` so a steady stream of seals does not fetch them each time. Runs in
 * the seal worker; @libpdf/core's long-term validation asks it through the {@link RevocationProvider}
 * interface and writes what it answers into the DSS.
 *
 * Every URL a certificate names is fetched with the webhook address rules (`target.ts`,
 * `addresses.ts`): the host is resolved and the connection goes only to addresses that pass
 * (loopback and private ones only with `OUTBOUND_ALLOW_PRIVATE_NETWORKS=true`); `http:` is allowed,
 * as revocation data is signed and conventionally served over plain HTTP. Only ports 80 and 443
 * ({@link SOURCE_PORTS}) are fetched, except the URLs the operator's own chains name (the sealing
 * certificate's, from `SEAL_P12_BASE64`, and the timestamp authority's, from `TSA_URL`;
 * {@link FetchPolicy.anyPortUrls}): the certificates of signatures already in an uploaded document
 * are anyone's, and their URLs must not reach a service on another port (docs/seal-levels.md#how-the-service-gathers-the-data).
 * No redirect is followed; each request has {@link NETWORK_TIMEOUT_MS} for everything, and at most
 * {@link MAX_RESPONSE_BYTES}.
 *
 * A certificate that names an OCSP responder gets its OCSP response, else its CRL. An answer is
 * used only when it parses, says "good" for the certificate, is signed by the certificate's issuer
 * (or a responder it delegated to) and is current; anything else is recorded as a failure
 * ({@link CheckedRevocationProvider.failures}) which the seal turns into a 503: a seal never reaches
 * a lower level in silence.
 */
import { createHash } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import type { RevocationProvider } from '@libpdf/core';
import { hostOf, resolveTarget, TargetRefusedError, type ResolvedAddress } from '../outbound/target.js';
import { waitingOnNetwork } from './networkWait.js';

/** How long one request for revocation data (or an issuer certificate) may take in all, milliseconds. */
export const NETWORK_TIMEOUT_MS = 10_000;
/** Largest answer read, bytes (CRLs of large CAs run to a few MiB). */
export const MAX_RESPONSE_BYTES = 16 * 1024 * 1024;

const OCSP_ACCESS_METHOD = '1.3.6.1.5.5.7.48.1';
const AIA_EXTENSION = '1.3.6.1.5.5.7.1.1';
const CRL_DISTRIBUTION_POINTS = '2.5.29.31';
const URI_GENERAL_NAME = 6;

/** A request for revocation data that failed: a sentence for the log and the health reasons. */
export class RevocationFetchError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'RevocationFetchError';
  }
}

export interface FetchPolicy {
  /** `OUTBOUND_ALLOW_PRIVATE_NETWORKS`. */
  allowPrivate: boolean;
  /**
   * URLs (as `URL.href`) that may name any port: those the operator's own chains name
   * ({@link sourceUrlsOf}). Every other URL only {@link SOURCE_PORTS}.
   */
  anyPortUrls?: ReadonlySet<string>;
}

/** The only ports a URL from a certificate is fetched on, unless the operator's own chains name it. */
export const SOURCE_PORTS: readonly number[] = [80, 443];

/** The port a URL connects to: its own, else its scheme's default (80 for `http:`, 443 for `https:`). */
export function portOf(url: URL): number {
  if (url.port !== '') return Number(url.port);
  return url.protocol === 'https:' ? 443 : 80;
}

/**
 * Throws unless `url` may be fetched under `policy`'s port rule (see the module comment).
 * @throws RevocationFetchError naming the port
 */
export function checkSourcePort(url: URL, policy: FetchPolicy): void {
  if (SOURCE_PORTS.includes(portOf(url)) || policy.anyPortUrls?.has(url.href) === true) return;
  throw new RevocationFetchError(`${url.href} was not fetched: port ${portOf(url)} is not allowed (only ${SOURCE_PORTS.join(' and ')})`);
}

/**
 * Every URL the certificates name for their revocation data or their issuer (OCSP, CRL distribution
 * points, AIA caIssuers), as `URL.href`: the sources the operator's chains may name on any port.
 */
export function sourceUrlsOf(chain: readonly Uint8Array[]): string[] {
  const urls: string[] = [];
  for (const der of chain) {
    const certificate = parseCertificate(der);
    const { ocsp, crl } = revocationUrls(certificate);
    for (const text of [...ocsp, ...crl, ...issuerUrls(certificate)]) {
      try {
        urls.push(new URL(text).href);
      } catch {
        // Not a URL: never fetched anyway.
      }
    }
  }
  return urls;
}

/**
 * One GET or POST to a URL a certificate names, with the address rules of the module comment.
 * @returns the answer's body
 * @throws RevocationFetchError for a refused address, no answer, a status other than 2xx, a body too large or a timeout
 */
export async function fetchChecked(
  text: string,
  request: { method: 'GET' | 'POST'; accept: string; body?: Uint8Array; contentType?: string },
  policy: FetchPolicy,
): Promise<Uint8Array> {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new RevocationFetchError(`${text} is not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new RevocationFetchError(`${text} is not an http: or https: URL`);
  if (url.username !== '' || url.password !== '') throw new RevocationFetchError(`${url.origin} carries a user name or password`);
  checkSourcePort(url, policy);
  return await waitingOnNetwork(async () => {
    let addresses: ResolvedAddress[];
    try {
      addresses = await resolveTarget(hostOf(url), { allowPrivate: policy.allowPrivate });
    } catch (error) {
      if (error instanceof TargetRefusedError) throw new RevocationFetchError(`${url.href} was not fetched: ${error.message.replace('webhooks', 'the service')}`);
      throw error;
    }
    return await get(url, addresses, request);
  });
}

function get(url: URL, addresses: ResolvedAddress[], request: { method: 'GET' | 'POST'; accept: string; body?: Uint8Array; contentType?: string }): Promise<Uint8Array> {
  const lookup: LookupFunction = (_hostname, options, callback) => {
    const family = options.family === 4 || options.family === 'IPv4' ? 4 : options.family === 6 || options.family === 'IPv6' ? 6 : 0;
    const candidates = addresses.filter((entry) => family === 0 || entry.family === family);
    if (candidates.length === 0) {
      callback(Object.assign(new Error('no checked address of the requested family'), { code: 'ENOTFOUND' }), '', 0);
      return;
    }
    if (options.all) callback(null, candidates.map(({ address, family: entryFamily }) => ({ address, family: entryFamily })));
    else callback(null, candidates[0]!.address, candidates[0]!.family);
  };
  const transport = url.protocol === 'https:' ? https : http;
  return new Promise<Uint8Array>((resolve, reject) => {
    let settled = false;
    const fail = (message: string, cause?: unknown) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      outgoing.destroy();
      reject(new RevocationFetchError(`${url.href}: ${message}`, { cause }));
    };
    const headers: Record<string, string> = { accept: request.accept };
    if (request.body !== undefined) {
      headers['content-type'] = request.contentType ?? 'application/octet-stream';
      headers['content-length'] = String(request.body.byteLength);
    }
    const outgoing = transport.request(url, { method: request.method, headers, lookup, agent: false }, (response) => {
      const status = response.statusCode ?? 0;
      if (status < 200 || status >= 300) {
        response.destroy();
        fail(`answered HTTP ${status}`);
        return;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      response.on('data', (chunk: Buffer) => {
        size += chunk.byteLength;
        if (size > MAX_RESPONSE_BYTES) fail(`answered more than ${MAX_RESPONSE_BYTES} bytes`);
        else chunks.push(chunk);
      });
      response.on('error', (error) => fail(error.message, error));
      response.on('end', () => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(new Uint8Array(Buffer.concat(chunks)));
      });
    });
    const timer = setTimeout(() => fail(`no complete answer within ${NETWORK_TIMEOUT_MS / 1000} s`), NETWORK_TIMEOUT_MS);
    outgoing.on('error', (error) => fail(error.message, error));
    outgoing.end(request.body === undefined ? undefined : Buffer.from(request.body));
  });
}

/**
 * A `fetch` for @libpdf/core's issuer-certificate lookups (AIA caIssuers): the same rules as
 * {@link fetchChecked}, GET only. The library uses `globalThis.fetch` for them; the seal worker
 * installs this one there, so no URL from a certificate is fetched unchecked.
 */
export function checkedFetch(policy: () => FetchPolicy): typeof fetch {
  return async (input, init) => {
    const url = input instanceof Request ? input.url : String(input);
    if ((init?.method ?? 'GET').toUpperCase() !== 'GET') throw new TypeError(`Only GET requests go through the checked fetch (${url}).`);
    const key = `issuer ${url}`;
    let body = cached(key, Date.now());
    if (body === undefined) {
      body = await fetchChecked(url, { method: 'GET', accept: 'application/pkix-cert' }, policy());
      // A CA's certificate at its published URL changes rarely: kept an hour.
      remember(key, body, new Date(Date.now() + ISSUER_CACHE_MS));
    }
    return new Response(body.slice(), { status: 200 });
  };
}

/** How long an issuer certificate fetched from an AIA caIssuers URL is kept, milliseconds. */
const ISSUER_CACHE_MS = 3_600_000;

interface CachedAnswer {
  bytes: Uint8Array;
  /** `nextUpdate`, milliseconds since the epoch. */
  until: number;
}

/** Answers still valid, by source: `ocsp <url> <certificate SHA-256>` or `crl <url>`. Per worker. */
const cache = new Map<string, CachedAnswer>();
/** Most answers kept; the oldest go first. */
const CACHE_LIMIT = 256;

function remember(key: string, bytes: Uint8Array, nextUpdate: Date | undefined): void {
  // An answer without nextUpdate (RFC 6960 §4.2.2.1: newer information is always available) is not kept.
  if (nextUpdate === undefined) return;
  cache.delete(key);
  if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value!);
  cache.set(key, { bytes, until: nextUpdate.getTime() });
}

function cached(key: string, now: number): Uint8Array | undefined {
  const entry = cache.get(key);
  if (entry === undefined) return undefined;
  if (entry.until > now) return entry.bytes;
  cache.delete(key);
  return undefined;
}

/** Forgets every cached answer (tests). */
export function clearRevocationCache(): void {
  cache.clear();
}

/** Certificates parsed so far, by SHA-256 of their DER (pkijs's schema matching is slow; the same few certificates come back on every seal). */
const parsedCertificates = new Map<string, pkijs.Certificate>();

/**
 * Parses a DER certificate, from the per-worker memo when it was parsed before.
 * @throws Error when the bytes are not a certificate
 */
export function parseCertificate(der: Uint8Array): pkijs.Certificate {
  const key = sha256Hex(der);
  const known = parsedCertificates.get(key);
  if (known !== undefined) return known;
  const asn1 = asn1js.fromBER(der.slice().buffer);
  if (asn1.offset === -1) throw new Error('not a DER certificate');
  const certificate = new pkijs.Certificate({ schema: asn1.result });
  if (parsedCertificates.size >= CACHE_LIMIT) parsedCertificates.delete(parsedCertificates.keys().next().value!);
  parsedCertificates.set(key, certificate);
  return certificate;
}

export function sha256Hex(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/**
 * What is read from a certificate on every seal, kept per certificate object ({@link parseCertificate}
 * hands out the same object for the same DER, so the seal's chains are read once per worker).
 */
const urlsOf = new WeakMap<pkijs.Certificate, RevocationUrls>();
const selfIssued = new WeakMap<pkijs.Certificate, boolean>();

export interface RevocationUrls {
  readonly ocsp: readonly string[];
  readonly crl: readonly string[];
}

/** URIs of the certificate's OCSP responders (AIA) and CRL distribution points. */
export function revocationUrls(certificate: pkijs.Certificate): RevocationUrls {
  let urls = urlsOf.get(certificate);
  if (urls === undefined) {
    urls = readRevocationUrls(certificate);
    urlsOf.set(certificate, urls);
  }
  return urls;
}

function readRevocationUrls(certificate: pkijs.Certificate): RevocationUrls {
  const extension = (id: string) => certificate.extensions?.find((candidate) => candidate.extnID === id);
  const ocsp: string[] = [];
  const aia = extension(AIA_EXTENSION)?.parsedValue as pkijs.InfoAccess | undefined;
  for (const description of aia?.accessDescriptions ?? []) {
    if (description.accessMethod === OCSP_ACCESS_METHOD && description.accessLocation.type === URI_GENERAL_NAME) ocsp.push(String(description.accessLocation.value));
  }
  const crl: string[] = [];
  const points = extension(CRL_DISTRIBUTION_POINTS)?.parsedValue as pkijs.CRLDistributionPoints | undefined;
  for (const point of points?.distributionPoints ?? []) {
    if (!Array.isArray(point.distributionPoint)) continue;
    for (const name of point.distributionPoint) if (name.type === URI_GENERAL_NAME) crl.push(String(name.value));
  }
  return { ocsp: ocsp.filter(isHttp), crl: crl.filter(isHttp) };
}

const CA_ISSUERS_ACCESS_METHOD = '1.3.6.1.5.5.7.48.2';

/** URIs of the certificate's issuer certificates (AIA caIssuers). */
function issuerUrls(certificate: pkijs.Certificate): string[] {
  const aia = certificate.extensions?.find((candidate) => candidate.extnID === AIA_EXTENSION)?.parsedValue as pkijs.InfoAccess | undefined;
  return (aia?.accessDescriptions ?? [])
    .filter((description) => description.accessMethod === CA_ISSUERS_ACCESS_METHOD && description.accessLocation.type === URI_GENERAL_NAME)
    .map((description) => String(description.accessLocation.value))
    .filter(isHttp);
}

function isHttp(url: string): boolean {
  return /^https?:\/\//i.test(url);
}

/** Whether the certificate is its own issuer (a trust anchor: no revocation data). */
export function isSelfIssued(certificate: pkijs.Certificate): boolean {
  let answer = selfIssued.get(certificate);
  if (answer === undefined) {
    answer = Buffer.from(certificate.subject.toSchema().toBER(false)).equals(Buffer.from(certificate.issuer.toSchema().toBER(false)));
    selfIssued.set(certificate, answer);
  }
  return answer;
}

/** The certificate's subject as text (`CN=..., O=...`), for messages. */
export function subjectOf(certificate: pkijs.Certificate): string {
  const names: Record<string, string> = { '2.5.4.3': 'CN', '2.5.4.10': 'O', '2.5.4.11': 'OU', '2.5.4.6': 'C' };
  return certificate.subject.typesAndValues.map((entry) => `${names[entry.type] ?? entry.type}=${String(entry.value.valueBlock.value)}`).join(', ');
}

/**
 * The {@link RevocationProvider} of one seal: fetches (or serves from the cache) each certificate's
 * OCSP response, or its CRL when it names no OCSP responder, and checks what it gets. Failures do
 * not throw out of the library (which would swallow them): they are recorded in {@link failures}
 * by certificate, and what was obtained in {@link obtained}, for the seal to check its own chains.
 */
export class CheckedRevocationProvider implements RevocationProvider {
  /** Certificates (SHA-256 of the DER) whose revocation data was obtained. */
  readonly obtained = new Set<string>();
  /** Why revocation data could not be obtained, by certificate (SHA-256 of the DER). */
  readonly failures = new Map<string, string>();
  /** Requests actually sent (not served from the cache), for the log. */
  fetched = 0;
  private readonly issuers = new Map<string, pkijs.Certificate>();
  /** What this seal already obtained, by source: asked again (the prefetch, then the library), the same answer. */
  private readonly memo = new Map<string, Uint8Array>();

  constructor(readonly policy: FetchPolicy, private readonly now: () => number = Date.now) {}

  async getOCSP(certificateDer: Uint8Array, issuerDer: Uint8Array): Promise<Uint8Array | null> {
    const id = sha256Hex(certificateDer);
    const certificate = parseCertificate(certificateDer);
    const issuer = parseCertificate(issuerDer);
    this.issuers.set(id, issuer);
    const [url] = revocationUrls(certificate).ocsp;
    if (url === undefined) return null;
    return await this.record(id, certificate, async () => {
      const key = `ocsp ${url} ${id}`;
      const hit = this.memo.get(key) ?? cached(key, this.now());
      if (hit !== undefined) return this.keep(key, hit);
      const request = new pkijs.OCSPRequest();
      await request.createForCertificate(certificate, { hashAlgorithm: 'SHA-1', issuerCertificate: issuer });
      this.fetched++;
      const answer = await fetchChecked(url, {
        method: 'POST',
        accept: 'application/ocsp-response',
        contentType: 'application/ocsp-request',
        body: new Uint8Array(request.toSchema(true).toBER(false)),
      }, this.policy);
      const nextUpdate = await checkOcspResponse(answer, certificate, issuer, url, this.now());
      remember(key, answer, nextUpdate);
      return this.keep(key, answer);
    });
  }

  private keep(key: string, answer: Uint8Array): Uint8Array {
    this.memo.set(key, answer);
    return answer;
  }

  async getCRL(certificateDer: Uint8Array): Promise<Uint8Array | null> {
    const id = sha256Hex(certificateDer);
    const certificate = parseCertificate(certificateDer);
    const urls = revocationUrls(certificate);
    // OCSP where the certificate names a responder (its failure is already recorded), else the CRL.
    if (urls.ocsp.length > 0 || urls.crl.length === 0) return null;
    const issuer = this.issuers.get(id);
    return await this.record(id, certificate, async () => {
      let lastError: unknown;
      for (const url of urls.crl) {
        const key = `crl ${url}`;
        const hit = this.memo.get(key) ?? cached(key, this.now());
        if (hit !== undefined) return this.keep(key, hit);
        try {
          this.fetched++;
          const answer = await fetchChecked(url, { method: 'GET', accept: 'application/pkix-crl' }, this.policy);
          const nextUpdate = await checkCrl(answer, certificate, issuer, url, this.now());
          remember(key, answer, nextUpdate);
          return this.keep(key, answer);
        } catch (error) {
          lastError = error;
        }
      }
      throw lastError;
    });
  }

  private async record(id: string, certificate: pkijs.Certificate, obtain: () => Promise<Uint8Array>): Promise<Uint8Array> {
    try {
      const answer = await obtain();
      this.obtained.add(id);
      this.failures.delete(id);
      return answer;
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      this.failures.set(id, `no revocation data for "${subjectOf(certificate)}": ${reason}`);
      throw error;
    }
  }
}

function fromDer<T>(bytes: Uint8Array, make: (schema: asn1js.AsnType) => T, what: string, url: string): T {
  const asn1 = asn1js.fromBER(bytes.slice().buffer);
  if (asn1.offset === -1) throw new RevocationFetchError(`${url}: the answer is not a DER ${what}`);
  try {
    return make(asn1.result);
  } catch (cause) {
    throw new RevocationFetchError(`${url}: the answer is not a valid ${what}`, { cause });
  }
}

/**
 * Checks an OCSP response for `certificate` (RFC 6960 §3.2): successful, signed by the issuer or a
 * responder it authorized, "good", current.
 * @returns its nextUpdate, if it has one
 * @throws RevocationFetchError saying what is wrong
 */
async function checkOcspResponse(answer: Uint8Array, certificate: pkijs.Certificate, issuer: pkijs.Certificate, url: string, now: number): Promise<Date | undefined> {
  const response = fromDer(answer, (schema) => new pkijs.OCSPResponse({ schema }), 'OCSP response', url);
  const status = response.responseStatus.valueBlock.valueDec;
  if (status !== 0 || response.responseBytes === undefined) throw new RevocationFetchError(`${url}: the OCSP responder answered status ${status}, not successful`);
  const basic = fromDer(new Uint8Array(response.responseBytes.response.valueBlock.valueHexView), (schema) => new pkijs.BasicOCSPResponse({ schema }), 'basic OCSP response', url);
  let verified = false;
  try {
    // The issuer itself signs, or a responder it delegated to (id-kp-OCSPSigning, issued by it: a chain to the issuer).
    verified = await basic.verify({ trustedCerts: [issuer], issuerCerts: [issuer], trustedResponders: [issuer] });
  } catch (cause) {
    throw new RevocationFetchError(`${url}: the OCSP response's signature does not check: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
  }
  if (!verified) throw new RevocationFetchError(`${url}: the OCSP response's signature does not check`);
  const { isForCertificate, status: certificateStatus } = await basic.getCertificateStatus(certificate, issuer);
  if (!isForCertificate) throw new RevocationFetchError(`${url}: the OCSP response is not for the certificate asked about`);
  if (certificateStatus !== 0) throw new RevocationFetchError(`${url}: the OCSP responder says the certificate is ${certificateStatus === 1 ? 'revoked' : 'unknown'}`);
  const single = basic.tbsResponseData.responses.find((entry) => entry.certID.serialNumber.isEqual(certificate.serialNumber));
  const thisUpdate = single?.thisUpdate.getTime();
  if (thisUpdate !== undefined && thisUpdate > now + 5 * 60_000) throw new RevocationFetchError(`${url}: the OCSP response's thisUpdate is in the future`);
  const nextUpdate = single?.nextUpdate;
  if (nextUpdate !== undefined && nextUpdate.getTime() <= now) throw new RevocationFetchError(`${url}: the OCSP response has expired (nextUpdate passed)`);
  return nextUpdate;
}

/**
 * Checks a CRL for `certificate` (RFC 5280 §6.3): parses, signed by the issuer when it is known,
 * current, and does not list the certificate.
 * @returns its nextUpdate, if it has one
 * @throws RevocationFetchError saying what is wrong
 */
async function checkCrl(answer: Uint8Array, certificate: pkijs.Certificate, issuer: pkijs.Certificate | undefined, url: string, now: number): Promise<Date | undefined> {
  const crl = fromDer(answer, (schema) => new pkijs.CertificateRevocationList({ schema }), 'CRL', url);
  if (issuer !== undefined) {
    let verified = false;
    try {
      verified = await crl.verify({ issuerCertificate: issuer });
    } catch (cause) {
      throw new RevocationFetchError(`${url}: the CRL's signature does not check`, { cause });
    }
    if (!verified) throw new RevocationFetchError(`${url}: the CRL's signature does not check`);
  }
  const nextUpdate = crl.nextUpdate?.value;
  if (nextUpdate !== undefined && nextUpdate.getTime() <= now) throw new RevocationFetchError(`${url}: the CRL has expired (nextUpdate passed)`);
  if (crl.isCertificateRevoked(certificate)) throw new RevocationFetchError(`${url}: the CRL lists the certificate as revoked`);
  return nextUpdate;
}
