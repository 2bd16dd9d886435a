/**
 * The public append-only log's operations (docs/api.md#public-log): appending a completed envelope's
 * leaves, making signed tree heads when they are due, and the proofs and key anyone may ask for.
 *
 * A completion writes a `log` due entry in its own change (`envelopes/complete.ts`), appends right
 * after its commit, and removes the entry; a process that dies in between leaves the entry, and the
 * sweeper appends the envelope (`sweeper/sweep.ts`). Appends are idempotent per envelope
 * (`logStore.ts`), so every completed envelope reaches the log once.
 */
import type { DueEntry, DueKind } from '../storage/dueIndex.js';
import type { Services } from '../services.js';
import { timestampDigest } from '../pdf/index.js';
import { problem } from '../problems.js';
import { consistencyRanges, inclusionRanges } from './merkle.js';
import { toHex } from './logStore.js';
import { headIsDue, logKeyFromSeed, signTreeHead, type LogKey, type LogPublicJwk, type TreeHead } from './treeHead.js';

/** Due-index kind of completions to append to the log (docs/api.md#public-log): id = envelope id. */
export const LOG_DUE_KIND: DueKind = 'log';
/** Seconds after a completion when the sweeper appends it, should the completion's own append not have. */
export const LOG_APPEND_GRACE_SECONDS = 60;

/** The `log` due entry of an envelope completed at `at` (ISO 8601): due {@link LOG_APPEND_GRACE_SECONDS} later. */
export function logDueEntry(record: { ownerId: string; id: string }, at: string): DueEntry {
  return { kind: LOG_DUE_KIND, dueAt: new Date(Date.parse(at) + LOG_APPEND_GRACE_SECONDS * 1000).toISOString(), ownerId: record.ownerId, id: record.id };
}

/**
 * An envelope's leaves (docs/api.md#public-log): the 32 bytes of each sealed PDF's SHA-256, in order,
 * then the 32 bytes of its audit trail's head.
 * @param sealedSha256s lower-case hex SHA-256 of each sealed PDF (one today)
 * @param auditHead lower-case hex `hash` of the last event the seal holds
 * @throws RangeError when one is not 64 hex digits
 */
export function logLeaves(sealedSha256s: readonly string[], auditHead: string): Uint8Array[] {
  return [...sealedSha256s, auditHead].map((hex) => {
    if (!/^[0-9a-f]{64}$/.test(hex)) throw new RangeError(`A log leaf must be a lower-case hex SHA-256, not "${hex}"`);
    return new Uint8Array(Buffer.from(hex, 'hex'));
  });
}

/**
 * The leaves of a completion from its `envelope.completed` event's details (`sealedSha256`, each
 * of `documents[].sealedSha256` when there are several, and `auditHead`), or `null` when they name no chain head (an envelope completed before the chained trail).
 */
export function completionLeaves(details: Record<string, unknown>): Uint8Array[] | null {
  const { sealedSha256, auditHead, documents } = details;
  if (typeof sealedSha256 !== 'string' || typeof auditHead !== 'string') return null;
  // Several documents (docs/api.md#several-documents): one leaf per sealed PDF, in order; with
  // `output: combined` every document names the one combined PDF, which is one leaf.
  const each = Array.isArray(documents) ? documents.map((entry: unknown) => (entry as { sealedSha256?: unknown }).sealedSha256).filter((hash): hash is string => typeof hash === 'string') : [];
  return logLeaves([...new Set([sealedSha256, ...each])], auditHead);
}

const keys = new WeakMap<Uint8Array, LogKey>();

/**
 * The log key of `LOG_SIGNING_KEY` (docs/api.md#configuration), made once per process.
 * @throws Error when the setting is unset (only possible outside Azure: there it is required at start)
 */
export function logKey(services: Pick<Services, 'config'>): LogKey {
  const seed = services.config.log.signingKey;
  if (seed === undefined) throw new Error('LOG_SIGNING_KEY is not set: the public log cannot sign its tree heads (docs/api.md#configuration).');
  let key = keys.get(seed);
  if (key === undefined) {
    key = logKeyFromSeed(seed);
    keys.set(seed, key);
  }
  return key;
}

/** The log's public key, as `GET /api/log/key` answers it. @throws as {@link logKey} */
export function logPublicKey(services: Pick<Services, 'config'>): LogPublicJwk {
  return logKey(services).publicJwk;
}

/**
 * Makes a signed tree head when one is due (docs/api.md#signed-tree-heads, `treeHead.ts` `headIsDue`):
 * after a completion, by the sweeper, and when `GET /api/log/sth` finds none. Two instances at once
 * make one: the newest head is replaced conditional on the one read.
 * @param options `emptyTree: false`: no head of the empty tree (the sweeper's: nothing to cover yet)
 * @returns the head made, or `null` when none was due, another instance made one first, or
 *   `LOG_SIGNING_KEY` is unset
 * @throws AppError 503 `timestamp-authority-unavailable` when `TSA_URL` is set and the authority fails
 *   (no head is made; the next completion or sweep tries again)
 */
export async function makeHeadIfDue(services: Pick<Services, 'config' | 'publicLog'>, now: Date = new Date(), options: { emptyTree?: boolean } = {}): Promise<TreeHead | null> {
  // Without a key (outside Azure only, docs/api.md#configuration) the log appends but signs nothing.
  if (services.config.log.signingKey === undefined) return null;
  const [newest, state] = await Promise.all([services.publicLog.latestHead(), services.publicLog.state()]);
  if (state.size === 0 && options.emptyTree === false) return null;
  if (!headIsDue(newest?.head ?? null, state.size, now, services.config.log.headIntervalSeconds)) return null;
  // Every node below the head's size must be written before it is signed: proofs read them.
  const tree = await services.publicLog.settledState();
  const tsaUrl = services.config.tsaUrl;
  const head = await signTreeHead(
    { treeSize: tree.size, rootHash: toHex(tree.rootHash), timestamp: now.toISOString() },
    logKey(services),
    tsaUrl === undefined ? undefined : async (digest) => await timestampDigest(tsaUrl, digest),
  );
  return (await services.publicLog.storeHead(head, newest)) ? head : null;
}

/**
 * The newest signed tree head; when there is none yet (an empty log), one is made now.
 * @throws as {@link makeHeadIfDue}; Error as {@link logKey} when there is none and no key to make one
 */
export async function newestHead(services: Pick<Services, 'config' | 'publicLog'>): Promise<TreeHead> {
  const stored = await services.publicLog.latestHead();
  if (stored !== null) return stored.head;
  const made = await makeHeadIfDue(services);
  if (made !== null) return made;
  // Another instance made the first head meanwhile, unless there is no key to make one with.
  const other = await services.publicLog.latestHead();
  if (other !== null) return other.head;
  logKey(services);
  throw new Error('The public log has no signed tree head, and none could be made.');
}

/** `GET /api/log/proof`'s answer (docs/api.md#get-an-inclusion-proof). */
export interface InclusionProofView {
  leafIndex: number;
  treeSize: number;
  /** RFC 9162 §2.1.3.1 PATH, from the leaf up, lower-case hex. */
  auditPath: string[];
}

/**
 * The inclusion proof of the leaf whose value is `hash` in the tree of `treeSize` leaves (default:
 * the newest head's).
 * @param hash lower-case hex of a leaf's 32 bytes (a sealed PDF's SHA-256, or an audit trail's head)
 * @throws AppError 400 `validation-failed` when `treeSize` is beyond the newest head's;
 *   404 `log-entry-not-found` when no leaf has this value, or it is not in that tree yet
 */
export async function inclusionProof(services: Pick<Services, 'config' | 'publicLog'>, { hash, treeSize }: { hash: string; treeSize?: number }): Promise<InclusionProofView> {
  const newest = await newestHead(services);
  const size = treeSize ?? newest.treeSize;
  if (size > newest.treeSize) throw beyondNewest('treeSize', newest.treeSize);
  const leafIndex = await services.publicLog.leafIndex(hash);
  if (leafIndex === null) throw problem('logEntryNotFound');
  if (leafIndex >= size) {
    throw problem('logEntryNotFound', {
      detail: `The leaf is not in the tree of ${size} leaves: it was appended later (index ${leafIndex}). A tree head covers it within LOG_STH_INTERVAL_SECONDS of its completion.`,
    });
  }
  const auditPath = await services.publicLog.rangeHashes(inclusionRanges(leafIndex, size));
  return { leafIndex, treeSize: size, auditPath: auditPath.map(toHex) };
}

/**
 * The consistency proof between the trees of `first` and `second` leaves (RFC 9162 §2.1.4.1), each
 * at most the newest head's size.
 * @throws AppError 400 `validation-failed` when `second` is beyond the newest head's size
 */
export async function consistencyProof(services: Pick<Services, 'config' | 'publicLog'>, { first, second }: { first: number; second: number }): Promise<{ proof: string[] }> {
  const newest = await newestHead(services);
  if (second > newest.treeSize) throw beyondNewest('second', newest.treeSize);
  const proof = await services.publicLog.rangeHashes(consistencyRanges(first, second));
  return { proof: proof.map(toHex) };
}

function beyondNewest(path: string, size: number) {
  const message = `must be at most ${size}, the newest signed tree head's size`;
  return problem('validationFailed', { detail: `The query is invalid: ${path} ${message}.`, errors: [{ path, message }] });
}
