/**
 * Identifiers (docs/api.md#conventions): UUIDs; envelope ids (and every other id we mint) UUID version 7, which is
 * time-ordered (RFC 9562 §5.7).
 *
 * A creating request that may be run again after its process died (docs/api.md#idempotency: an
 * `Idempotency-Key` on an endpoint registered `idempotency: 'resumable'`) mints the ids of what it
 * creates with {@link resumableId}: inside {@link withResumableIds} they are derived from the key's
 * claim, so the run after a crash names the same envelope, finds what the first run left and completes
 * it, instead of making a second one. Outside it they are new version 7 UUIDs.
 */
import { createHash } from 'node:crypto';
import { v7, validate } from 'uuid';
import { currentResumableSeed, type ResumableIdSeed } from './resumableRun.js';


/** A new UUID version 7, monotonic within this process. */
export function uuidv7(): string {
  return v7();
}

/** Whether `value` is a UUID in canonical text form (any version). */
export function isUuid(value: string): boolean {
  return validate(value) && value === value.toLowerCase();
}

/**
 * The id of what the current request creates under the name `purpose` (`envelope`, `template`...):
 * inside {@link withResumableIds}, a UUID version 7 whose timestamp is the claim's and whose random
 * bits are SHA-256 of the seed and `purpose` (the same on every run under the claim); else a new
 * {@link uuidv7}.
 */
export function resumableId(purpose: string): string {
  const current = currentResumableSeed();
  if (current === undefined) return uuidv7();
  const bytes = createHash('sha256').update(`${current.seed}\n${purpose}`).digest().subarray(0, 16);
  // RFC 9562 §5.7: 48-bit big-endian Unix milliseconds, version 7, variant 10, the rest random.
  const ms = BigInt(current.at);
  for (let index = 0; index < 6; index++) bytes[index] = Number((ms >> BigInt(8 * (5 - index))) & 0xffn);
  bytes[6] = 0x70 | (bytes[6]! & 0x0f);
  bytes[8] = 0x80 | (bytes[8]! & 0x3f);
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** Whether the current request runs again under a claim whose earlier run died (see {@link ResumableIdSeed.resumed}). */
export function resumingRun(): boolean {
  return currentResumableSeed()?.resumed === true;
}
