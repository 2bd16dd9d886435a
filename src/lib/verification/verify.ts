/**
 * The verifier of a sealed PDF (docs/evidence.md): what `npm run verify` and the verify page
 * (`GET /api/verify`) both run, in Node.js and in a browser alike. It needs no account and makes no
 * request unless given an origin for the online checks. Each check gives one line,
 * `PASS|FAIL <check>: <reason>` (docs/api.md#the-verifier):
 *
 * - `byte range`: the seal's `/ByteRange` covers the whole file but its own value, or the revision it
 *   sealed followed only by what PAdES adds later (validation data, document timestamps);
 * - `seal signature`: the CMS's messageDigest attribute is the digest of those bytes and its signature
 *   verifies with the signer certificate's key (pkijs);
 * - `seal certificate`: who sealed (subject, SHA-256 fingerprint), the chain as far as the CMS's
 *   certificates reach, validity at the signing time; with a certificate to expect, that it is the one;
 * - `timestamps` (when there are any): each RFC 3161 token's signature and imprint;
 * - `audit trail`: the embedded `audit.json`, every hash recomputed (RFC 8785) and linked;
 * - `certificate hashes`: the certificate page's printed hashes (PDF.js's text) against `audit.json`;
 * - online: `service record` (`GET /api/verify/{sha256}`), `log head` (the newest signed tree head's
 *   Ed25519 signature with `GET /api/log/key`) and `log inclusion` (the sealed PDF's and the audit
 *   head's RFC 9162 inclusion proofs against that head).
 *
 * PDF.js (`pdfjs`) is passed in: Node.js loads its legacy build, a browser the build the service serves.
 */
import { checkAuditChain, recordedHashes, type ChainedEvent } from './auditTrail.js';
import { fromHex, latin1, sha256Hex, digest, sameBytes, toHex } from './bytes.js';
import { certificateChain, checkCms, fingerprint, nameText, parseCms, signatureTimestamp, signatureValue, timestampInfo, TST_INFO, type ParsedCms } from './cms.js';
import { endsRevision, signatureSpans, signedBytes, updateProblems, type SignatureSpan } from './pdfStructure.js';
import { auditPathBytes, leafHash, rootFromInclusionProof, treeHeadSignatureValid, type InclusionProof, type LogKey, type SignedTreeHead } from './publicLog.js';

/** The part of PDF.js's API the verifier uses (`pdfjs-dist`, version 5). */
export interface PdfJsLike {
  getDocument(source: { data: Uint8Array; isEvalSupported?: boolean; disableFontFace?: boolean; useSystemFonts?: boolean; verbosity?: number; stopAtErrors?: boolean }): { promise: Promise<PdfDocumentLike> };
}

/** A document opened by PDF.js. */
export interface PdfDocumentLike {
  numPages: number;
  getPage(pageNumber: number): Promise<{ getTextContent(): Promise<{ items: readonly unknown[] }> }>;
  getAttachments(): Promise<Record<string, { filename: string; content: Uint8Array }> | null>;
  destroy(): Promise<void>;
}

/** One check's verdict. */
export interface Check {
  /** Its name, as the report prints it: `byte range`, `seal signature`, ... */
  name: string;
  passed: boolean;
  /** Why, in a sentence a person can read. */
  reason: string;
}

/** What a verification needs besides the file. */
export interface VerifyOptions {
  /** PDF.js, for the embedded files and the certificate's text. */
  pdfjs: PdfJsLike;
  /** The service's origin (`https://sign.example.com`) for the online checks; none: offline only. */
  online?: string;
  /** The `fetch` to use online (default: the global one). */
  fetch?: typeof fetch;
  /** The certificate the service publishes as its seal's (DER), or its SHA-256 fingerprint in hex: the seal must be made with it. */
  expectedCertificate?: Uint8Array | string;
}

/** The name `audit.json` is embedded under (docs/api.md#chained-audit-trail). */
const AUDIT_TRAIL_FILE = 'audit.json';
/** Most certificate pages read, from the last page back. */
const MAX_CERTIFICATE_PAGES = 60;
/** How long an online request may take, ms. */
const ONLINE_TIMEOUT_MS = 15_000;
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;

const pass = (name: string, reason: string): Check => ({ name, passed: true, reason });
const fail = (name: string, reason: string): Check => ({ name, passed: false, reason });

/** The time as the report writes it: ISO 8601 to the second, UTC. */
function when(date: Date): string {
  return `${date.toISOString().slice(0, 19)}Z`;
}

/** The text of one page, its items joined with spaces. */
async function pageText(document: PdfDocumentLike, pageNumber: number): Promise<string> {
  const content = await (await document.getPage(pageNumber)).getTextContent();
  return content.items.map((item) => (typeof item === 'object' && item !== null && typeof (item as { str?: unknown }).str === 'string' ? (item as { str: string }).str : '')).join(' ');
}

/**
 * The certificate of completion's text: the last page, then each page before it that names the same
 * envelope id (each certificate page's footer does), at most {@link MAX_CERTIFICATE_PAGES}.
 */
async function certificateText(document: PdfDocumentLike): Promise<{ text: string; envelopeIds: string[] }> {
  const last = await pageText(document, document.numPages);
  const envelopeIds = [...new Set(last.toLowerCase().match(UUID) ?? [])];
  const pages = [last];
  for (let pageNumber = document.numPages - 1; pageNumber >= 1 && pages.length < MAX_CERTIFICATE_PAGES && envelopeIds.length > 0; pageNumber--) {
    const text = await pageText(document, pageNumber);
    if (!envelopeIds.some((id) => text.toLowerCase().includes(id))) break;
    pages.unshift(text);
  }
  return { text: pages.join('\n'), envelopeIds };
}

/** The seal's span (the last signature that is not a document timestamp) and the parsed CMS of every span. */
interface Signatures {
  spans: SignatureSpan[];
  parsed: (ParsedCms | Error)[];
  seal: { span: SignatureSpan; cms: ParsedCms } | null;
}

function readSignatures(bytes: Uint8Array, text: string): Signatures | Check {
  let spans: SignatureSpan[];
  try {
    spans = signatureSpans(bytes, text);
  } catch (error) {
    return fail('byte range', (error as Error).message);
  }
  if (spans.length === 0) return fail('byte range', 'the file holds no signature (no /ByteRange): it is not sealed');
  const parsed = spans.map((span) => {
    try {
      return parseCms(span.contents);
    } catch (error) {
      return error as Error;
    }
  });
  // The seal is the last signature that is not a document timestamp: a document may carry others'
  // signatures from before it was sealed, and PAdES adds only document timestamps after the seal.
  const index = parsed.findLastIndex((cms) => !(cms instanceof Error) && cms.contentType !== TST_INFO);
  return { spans, parsed, seal: index === -1 ? null : { span: spans[index]!, cms: parsed[index] as ParsedCms } };
}

/** Check `byte range`. */
function byteRangeCheck(bytes: Uint8Array, text: string, signatures: Signatures): Check {
  const { seal, spans, parsed } = signatures;
  if (seal === null) return fail('byte range', `none of the ${spans.length} signature(s) is a seal: ${parsed.map((cms) => (cms instanceof Error ? cms.message : 'a document timestamp')).join('; ')}`);
  const [, b, c, d] = seal.span.byteRange;
  if (seal.span.end === bytes.length) return pass('byte range', `the seal covers bytes 0..${b} and ${c}..${c + d}: the whole file (${bytes.length} bytes) but its own signature value`);
  if (!endsRevision(text, seal.span.end)) return fail('byte range', `the seal covers bytes 0..${b} and ${c}..${c + d}, which end inside a revision: ${bytes.length - seal.span.end} bytes of the file are not covered`);
  const problems: string[] = [];
  for (const [index, span] of spans.entries()) {
    if (span.end <= seal.span.end) continue;
    const cms = parsed[index]!;
    if (cms instanceof Error || cms.contentType !== TST_INFO) problems.push(`another signature (bytes 0..${span.end}) was added after the seal: ${cms instanceof Error ? cms.message : 'it is not a document timestamp'}`);
  }
  problems.push(...updateProblems(text, seal.span.end));
  if (problems.length > 0) return fail('byte range', `the seal covers the first ${seal.span.end} bytes; what was added after it changes the document: ${problems.join('; ')}`);
  const timestamps = spans.length - 1;
  return pass('byte range', `the seal covers bytes 0..${b} and ${c}..${c + d}, the whole revision it sealed but its own value; the ${bytes.length - seal.span.end} bytes after it only add validation data${timestamps > 0 ? ` and ${timestamps} document timestamp(s)` : ''}, as PAdES does`);
}

/** Check `seal signature`. */
async function sealSignatureCheck(bytes: Uint8Array, seal: { span: SignatureSpan; cms: ParsedCms }): Promise<{ check: Check; signer: import('pkijs').Certificate | null }> {
  const result = await checkCms(seal.cms, signedBytes(bytes, seal.span));
  if (!result.digestMatches) return { check: fail('seal signature', `the messageDigest attribute is not the ${result.digestAlgorithm} of the signed bytes: the file was changed after it was sealed`), signer: result.signer };
  if (!result.signatureVerified) return { check: fail('seal signature', `the signature over the signed attributes does not verify with the signer certificate's key (${result.failure ?? 'no reason given'})`), signer: result.signer };
  return { check: pass('seal signature', `the CMS's messageDigest is the ${result.digestAlgorithm} of the signed bytes and its signature verifies with the key of the certificate it names`), signer: result.signer };
}

/** The seal's signing time: its signature timestamp's (B-T), else the signature dictionary's `/M`. */
function signingTime(seal: { span: SignatureSpan; cms: ParsedCms }): { at: Date; source: string } | null {
  try {
    const token = signatureTimestamp(seal.cms);
    if (token !== null) return { at: timestampInfo(token).genTime, source: 'its signature timestamp' };
  } catch {
    // an unreadable timestamp is reported by the `timestamps` check
  }
  return seal.span.claimedTime === null ? null : { at: seal.span.claimedTime, source: "the signature dictionary's /M" };
}

/** Check `seal certificate`. */
async function sealCertificateCheck(signer: import('pkijs').Certificate | null, seal: { span: SignatureSpan; cms: ParsedCms }, expected: Uint8Array | string | undefined): Promise<Check> {
  if (signer === null) return fail('seal certificate', 'the CMS carries no certificate matching its signer');
  const print = await fingerprint(signer);
  const who = `sealed by ${nameText(signer.subject)} (certificate SHA-256 ${print})`;
  if (expected !== undefined) {
    const wanted = typeof expected === 'string' ? expected.toLowerCase().replace(/[^0-9a-f]/g, '') : toHex(await digest('SHA-256', expected));
    if (wanted !== print) return fail('seal certificate', `${who}, not with the expected certificate (SHA-256 ${wanted}): someone other than the service sealed this file`);
  }
  const chain = await certificateChain(signer, seal.cms);
  const broken = chain.find((link) => link.signatureVerified === false);
  if (broken !== undefined) return fail('seal certificate', `${who}; the signature of ${broken.subject}'s certificate does not verify with its issuer's key`);
  const time = signingTime(seal);
  if (time === null) return fail('seal certificate', `${who}; the seal states no signing time, so the certificate's validity cannot be checked`);
  const expired = chain.find((link) => time.at < link.notBefore || time.at > link.notAfter);
  if (expired !== undefined) return fail('seal certificate', `${who}; ${expired.subject}'s certificate (valid ${when(expired.notBefore)} to ${when(expired.notAfter)}) was not valid at the signing time ${when(time.at)}`);
  const top = chain.at(-1)!;
  const path = chain.length === 1 && top.selfIssued ? 'a self-signed certificate' : `a chain of ${chain.length} certificate(s) up to ${top.selfIssued ? `the self-signed ${top.subject}` : `${top.issuer}, which the seal does not carry`}`;
  const match = expected === undefined ? ' Compare the fingerprint with the certificate the service publishes (or pass --certificate).' : ' It is the expected certificate.';
  return pass('seal certificate', `${who}: ${path}, valid at the signing time ${when(time.at)} (${time.source}). Offline, whether a trusted authority issued it and whether it was revoked is not checked.${match}`);
}

/** Check `timestamps`, or `null` when the seal carries none. */
async function timestampsCheck(bytes: Uint8Array, signatures: Signatures): Promise<Check | null> {
  const { seal, spans, parsed } = signatures;
  if (seal === null) return null;
  const problems: string[] = [];
  const seen: string[] = [];
  let token: ParsedCms | null = null;
  try {
    token = signatureTimestamp(seal.cms);
  } catch (error) {
    problems.push(`the signature timestamp is unreadable (${(error as Error).message})`);
  }
  const tokens: { what: string; cms: ParsedCms; covered: Uint8Array }[] = token === null ? [] : [{ what: 'the signature timestamp', cms: token, covered: signatureValue(seal.cms) }];
  spans.forEach((span, index) => {
    const cms = parsed[index];
    if (span !== seal.span && cms !== undefined && !(cms instanceof Error) && cms.contentType === TST_INFO) tokens.push({ what: `the document timestamp over bytes 0..${span.end}`, cms, covered: signedBytes(bytes, span) });
  });
  if (tokens.length === 0 && problems.length === 0) return null;
  for (const { what, cms, covered } of tokens) {
    try {
      const info = timestampInfo(cms);
      const result = await checkCms(cms, undefined, covered);
      const imprint = info.hashAlgorithm === null ? null : await digest(info.hashAlgorithm, covered);
      if (!result.digestMatches || !result.signatureVerified) problems.push(`${what}'s signature does not verify (${result.failure ?? 'its messageDigest differs'})`);
      else if (imprint === null || !sameBytes(imprint, info.hashedMessage)) problems.push(`${what}'s imprint is not the digest of what it covers`);
      else seen.push(`${what} at ${when(info.genTime)}${result.signer === null ? '' : ` by ${nameText(result.signer.subject)}`}`);
    } catch (error) {
      problems.push(`${what} is unreadable (${(error as Error).message})`);
    }
  }
  if (problems.length > 0) return fail('timestamps', problems.join('; '));
  return pass('timestamps', `${seen.join('; ')}: each token's signature and imprint verify (the authority's trust is not checked offline)`);
}

/** Checks `audit trail` and `certificate hashes`. */
async function evidenceChecks(document: PdfDocumentLike): Promise<{ checks: Check[]; head: string | null; envelopeId: string | null }> {
  const attachments = (await document.getAttachments()) ?? {};
  const file = Object.values(attachments).find((attachment) => attachment.filename === AUDIT_TRAIL_FILE);
  const certificate = await certificateText(document);
  if (file === undefined) {
    return {
      checks: [
        fail('audit trail', `the file embeds no ${AUDIT_TRAIL_FILE} (a seal made before the chained audit trail has none)`),
        fail('certificate hashes', `no ${AUDIT_TRAIL_FILE} to compare the certificate's hashes with`),
      ],
      head: null,
      envelopeId: null,
    };
  }
  const chain = await checkAuditChain(file.content, certificate.envelopeIds);
  const trail = chain.ok ? pass('audit trail', `${AUDIT_TRAIL_FILE} holds ${chain.events.length} events of envelope ${chain.envelopeId}, each hash recomputed (RFC 8785) and each linked to the one before; head ${chain.head}`) : fail('audit trail', chain.problem);
  return { checks: [trail, certificateHashesCheck(certificate.text, chain.ok ? chain.events : null, chain.ok ? chain.head : null)], head: chain.ok ? chain.head : null, envelopeId: chain.ok ? chain.envelopeId : null };
}

/** Check `certificate hashes`: the certificate prints the chain's head and the documents' hashes `audit.json` records, and no other hash. */
function certificateHashesCheck(text: string, events: ChainedEvent[] | null, head: string | null): Check {
  if (events === null || head === null) return fail('certificate hashes', `the certificate's hashes cannot be compared with an ${AUDIT_TRAIL_FILE} whose chain is broken`);
  const compact = text.replace(/\s+/g, '').toLowerCase();
  if (!compact.includes(head)) return fail('certificate hashes', `the certificate does not print the audit trail head ${head}`);
  const sent = [...events].reverse().find((event) => event.type === 'envelope.sent');
  if (sent === undefined) return pass('certificate hashes', `the certificate prints the audit trail head; the envelope was completed without being sent, so ${AUDIT_TRAIL_FILE} records no document hash to compare the printed one with`);
  const recorded = recordedHashes(events.map((event) => event.details));
  const printed = [...new Set(text.toLowerCase().match(/(?<![0-9a-f])[0-9a-f]{64}(?![0-9a-f])/g) ?? [])];
  const unknown = printed.filter((hash) => hash !== head && !recorded.has(hash));
  if (unknown.length > 0) return fail('certificate hashes', `the certificate prints ${unknown.join(', ')}, which ${AUDIT_TRAIL_FILE} does not record`);
  const documents = [...recordedHashes(sent.details)];
  const missing = documents.filter((hash) => !compact.includes(hash));
  if (missing.length > 0) return fail('certificate hashes', `the certificate does not print ${missing.join(', ')}, which envelope.sent records`);
  return pass('certificate hashes', `the certificate prints the audit trail head and the ${documents.length} document hash(es) envelope.sent records (${documents.join(', ')}), and no other`);
}

/** A JSON answer of the service, or why there is none. */
async function getJson(fetcher: typeof fetch, url: URL): Promise<{ status: number; body: unknown }> {
  const response = await fetcher(url, { headers: { Accept: 'application/json' }, signal: AbortSignal.timeout(ONLINE_TIMEOUT_MS) });
  let body: unknown = null;
  try {
    body = await response.json();
  } catch {
    body = null;
  }
  return { status: response.status, body };
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The online checks: `service record`, `log head`, `log inclusion`. */
async function onlineChecks(origin: string, fetcher: typeof fetch, sealedSha256: string, auditHead: string | null, envelopeId: string | null): Promise<Check[]> {
  const at = (path: string): URL => new URL(path, origin);
  const checks: Check[] = [];
  try {
    const record = await getJson(fetcher, at(`/api/verify/${sealedSha256}`));
    if (record.status === 200 && isObject(record.body)) {
      const recordedId = record.body.envelopeId;
      checks.push(envelopeId !== null && recordedId !== envelopeId
        ? fail('service record', `${origin} records sealing this file for envelope ${String(recordedId)}, not ${envelopeId}`)
        : pass('service record', `${origin} records sealing this very file (SHA-256 ${sealedSha256}) for envelope ${String(recordedId)} at ${String(record.body.completedAt)}`));
    } else {
      checks.push(fail('service record', `${origin} did not seal this file (GET /api/verify/${sealedSha256} answered ${record.status}): changed, or sealed by someone else`));
    }
  } catch (error) {
    checks.push(fail('service record', `${origin} could not be asked (${(error as Error).message})`));
  }

  let head: SignedTreeHead;
  try {
    const [sth, key] = await Promise.all([getJson(fetcher, at('/api/log/sth')), getJson(fetcher, at('/api/log/key'))]);
    if (sth.status !== 200 || !isObject(sth.body)) throw new Error(`GET /api/log/sth answered ${sth.status}`);
    if (key.status !== 200 || !isObject(key.body)) throw new Error(`GET /api/log/key answered ${key.status}`);
    head = sth.body as unknown as SignedTreeHead;
    const logKey = key.body as unknown as LogKey;
    if (typeof head.treeSize !== 'number' || typeof head.rootHash !== 'string' || typeof head.signature !== 'string') throw new Error('the head is not {treeSize, rootHash, timestamp, keyId, signature}');
    if (logKey.kid !== undefined && logKey.kid !== head.keyId) {
      checks.push(fail('log head', `the head names key ${head.keyId}, the log publishes ${logKey.kid}`));
      return checks;
    }
    if (!(await treeHeadSignatureValid(head, logKey))) {
      checks.push(fail('log head', `the signature of the head of ${head.treeSize} leaves (${head.timestamp}) does not verify with the log's key ${head.keyId}: it is not the log's`));
      return checks;
    }
    checks.push(pass('log head', `the newest head, ${head.treeSize} leaves at ${head.timestamp}, root ${head.rootHash}, is signed by the log's Ed25519 key ${head.keyId}`));
  } catch (error) {
    checks.push(fail('log head', `the log's newest head could not be checked (${(error as Error).message})`));
    return checks;
  }

  const leaves: [string, string][] = [['the sealed PDF', sealedSha256]];
  if (auditHead !== null) leaves.push(['the audit trail head', auditHead]);
  const found: string[] = [];
  for (const [what, hash] of leaves) {
    try {
      const answer = await getJson(fetcher, at(`/api/log/proof?hash=${hash}&treeSize=${head.treeSize}`));
      if (answer.status === 404) throw new Error(`${what} (${hash}) is not in the log`);
      if (answer.status !== 200 || !isObject(answer.body)) throw new Error(`the proof for ${what} was refused (${answer.status})`);
      const proof = answer.body as unknown as InclusionProof;
      if (proof.treeSize !== head.treeSize) throw new Error(`the proof for ${what} is for a tree of ${String(proof.treeSize)} leaves, not the head's ${head.treeSize}`);
      const root = await rootFromInclusionProof(proof.leafIndex, proof.treeSize, await leafHash(fromHex(hash)), auditPathBytes(proof));
      if (root === null || toHex(root) !== head.rootHash.toLowerCase()) throw new Error(`the proof for ${what} (leaf ${String(proof.leafIndex)}) does not lead to the head's root ${head.rootHash}`);
      found.push(`${what} is leaf ${proof.leafIndex}`);
    } catch (error) {
      checks.push(fail('log inclusion', (error as Error).message));
      return checks;
    }
  }
  checks.push(pass('log inclusion', `${found.join(' and ')} of the ${head.treeSize}-leaf tree: the RFC 9162 inclusion proofs lead to the signed root`));
  return checks;
}

/**
 * Verifies a sealed PDF (see the top of this file for what each check means).
 * @returns the checks in report order; never throws for a bad file (a file PDF.js cannot open fails
 *   the checks that need it)
 */
export async function verifySealedPdf(bytes: Uint8Array, options: VerifyOptions): Promise<Check[]> {
  const text = latin1(bytes);
  const checks: Check[] = [];
  const signatures = readSignatures(bytes, text);
  if ('name' in signatures) {
    checks.push(signatures);
  } else {
    checks.push(byteRangeCheck(bytes, text, signatures));
    const { seal } = signatures;
    if (seal === null) {
      checks.push(fail('seal signature', 'there is no seal to check'));
    } else {
      const { check, signer } = await sealSignatureCheck(bytes, seal);
      checks.push(check, await sealCertificateCheck(signer, seal, options.expectedCertificate));
      const timestamps = await timestampsCheck(bytes, signatures);
      if (timestamps !== null) checks.push(timestamps);
    }
  }

  let head: string | null = null;
  let envelopeId: string | null = null;
  let document: PdfDocumentLike | null = null;
  try {
    document = await options.pdfjs.getDocument({ data: bytes.slice(), isEvalSupported: false, disableFontFace: true, useSystemFonts: false, verbosity: 0 }).promise;
    const evidence = await evidenceChecks(document);
    checks.push(...evidence.checks);
    ({ head, envelopeId } = evidence);
  } catch (error) {
    checks.push(fail('audit trail', `PDF.js cannot read the file (${(error as Error).message})`), fail('certificate hashes', 'the certificate cannot be read'));
  } finally {
    await document?.destroy();
  }

  if (options.online !== undefined) checks.push(...(await onlineChecks(options.online, options.fetch ?? fetch, await sha256Hex(bytes), head, envelopeId)));
  return checks;
}

/**
 * The report: one `PASS|FAIL <check>: <reason>` line per check, then `N passed, M failed`
 * (docs/api.md#the-verifier).
 */
export function reportLines(checks: readonly Check[]): string[] {
  const failed = checks.filter((check) => !check.passed).length;
  return [...checks.map((check) => `${check.passed ? 'PASS' : 'FAIL'} ${check.name}: ${check.reason}`), `${checks.length - failed} passed, ${failed} failed`];
}
