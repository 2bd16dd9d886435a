/**
 * The check of a sealed PDF's `audit.json` (docs/api.md#chained-audit-trail): every event's `hash`
 * recomputed as the SHA-256 of its RFC 8785 canonical JSON less `hash` (the `canonicalize` package),
 * every `prevHash` the `hash` before it, the first the SHA-256 of the envelope id's UTF-8 text.
 */
import canonicalize from 'canonicalize';
import { sha256Hex } from './bytes.js';

/** An event of `audit.json` as far as the chain is concerned. */
export interface ChainedEvent {
  sequence: number;
  type: string;
  prevHash: string;
  hash: string;
  details?: unknown;
  [field: string]: unknown;
}

/** What checking the chain found. */
export type ChainResult =
  | { ok: true; events: ChainedEvent[]; head: string; envelopeId: string }
  | { ok: false; problem: string; events: ChainedEvent[] | null };

/**
 * Checks the chain of `audit.json`'s bytes.
 * @param bytes the embedded file's bytes (UTF-8 JSON: an array of events)
 * @param envelopeIds the envelope ids the document names (the certificate's): the first `prevHash`
 *   must be the SHA-256 of one of them
 */
export async function checkAuditChain(bytes: Uint8Array, envelopeIds: readonly string[]): Promise<ChainResult> {
  let events: unknown;
  try {
    events = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch (error) {
    return { ok: false, problem: `audit.json is not UTF-8 JSON (${(error as Error).message})`, events: null };
  }
  if (!Array.isArray(events) || events.length === 0) return { ok: false, problem: 'audit.json is not a non-empty array of events', events: null };
  const chained = events as ChainedEvent[];
  const first = chained[0]!;
  let envelopeId: string | undefined;
  for (const id of envelopeIds) if ((await sha256Hex(id)) === first.prevHash) envelopeId = id;
  if (envelopeId === undefined) {
    return { ok: false, problem: `the first event's prevHash ${String(first.prevHash)} is not the SHA-256 of the envelope id the certificate names (${envelopeIds.join(', ') || 'none found'})`, events: chained };
  }
  let previous = first.prevHash;
  for (const [index, event] of chained.entries()) {
    if (typeof event !== 'object' || event === null) return { ok: false, problem: `entry ${index + 1} is not an event`, events: chained };
    if (event.sequence !== index + 1) return { ok: false, problem: `event ${index + 1} has sequence ${String(event.sequence)}`, events: chained };
    if (event.prevHash !== previous) return { ok: false, problem: `event ${event.sequence} (${event.type}) has prevHash ${String(event.prevHash)}, not the hash of the event before it (${previous})`, events: chained };
    const { hash, ...rest } = event;
    let canonical: string | undefined;
    try {
      canonical = canonicalize(rest);
    } catch (error) {
      return { ok: false, problem: `event ${event.sequence} has no canonical JSON (${(error as Error).message})`, events: chained };
    }
    const recomputed = await sha256Hex(canonical ?? '');
    if (recomputed !== hash) return { ok: false, problem: `event ${event.sequence} (${event.type}) was changed: its hash is ${String(hash)}, its content hashes to ${recomputed}`, events: chained };
    previous = hash;
  }
  return { ok: true, events: chained, head: previous, envelopeId };
}

/** Every 64-hex-digit value anywhere in `value` (the hashes events record), lower case. */
export function recordedHashes(value: unknown, into: Set<string> = new Set()): Set<string> {
  if (typeof value === 'string' && /^[0-9a-fA-F]{64}$/.test(value)) into.add(value.toLowerCase());
  else if (Array.isArray(value)) for (const item of value) recordedHashes(item, into);
  else if (typeof value === 'object' && value !== null) for (const item of Object.values(value)) recordedHashes(item, into);
  return into;
}
