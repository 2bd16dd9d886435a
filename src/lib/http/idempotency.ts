/**
 * Idempotency keys on the owner's `POST` endpoints (docs/api.md#idempotency, following the IETF
 * `Idempotency-Key` header draft): a client sends `Idempotency-Key: <1 to 255 printable ASCII
 * characters>` and may retry the request with the same key as often as it likes; the work is done
 * at most once.
 *
 * - The first request with a key claims it (an insert-only row, `idempotencyKeyRepository.ts`)
 *   before its work starts, then runs. An endpoint whose whole change is one transaction in the
 *   owner's partition (GetUploadUrl, registered with `idempotency: 'claim-in-transaction'`) runs
 *   first, and its transaction inserts the claim with its own rows (`storage/idempotentClaim.ts`):
 *   claim and work land together or not at all, and the key costs no storage round trip of its
 *   own. Where the endpoint knows its answer before that transaction (GetUploadUrl, through
 *   {@link answerInTransaction}), the transaction inserts the kept answer itself instead of a claim:
 *   no write follows the request, every instance replays at once, and no crash can leave the work
 *   done without its answer. When that transaction finds the key's row already there it writes nothing, and the request
 *   is decided as any other (replay, 422, 409 in use or outcome unknown; an expired row is claimed
 *   and the endpoint runs again); a run that wrote nothing (a refusal) claims the key after it. A 2xx or 4xx answer (except 429, which asks to be retried) is
 *   kept for 24 hours for (owner, key): status, body, and the `Content-Type`, `Cache-Control`,
 *   `ETag` and `Location` headers. A 5xx or 429 answer releases the claim, so a retry runs again.
 * - A later request with the same key, method, path and body bytes gets the kept answer, byte for
 *   byte, with `Idempotent-Replayed: true`, and runs nothing: no change, no audit event, no e-mail,
 *   no webhook, no limit or quota counted. On the instance that ran the request the answer comes
 *   from memory at once; the stored row, which the other instances read, is written right after the
 *   answer goes out (`afterResponse.ts`), so that the request waits for one storage write (the claim)
 *   more than without a key, not two (none, with the claim in the endpoint's transaction).
 * - The same key with another method, path or body: 422 `idempotency-key-reused`.
 * - The same key while its first request runs, on any instance: 409 `idempotency-key-in-use` with
 *   `Retry-After`.
 * - A process that died between its work and storing the answer leaves its claim; once the claim's
 *   lease ({@link IDEMPOTENCY_CLAIM_LEASE_SECONDS}) has passed, the key answers 409
 *   `idempotency-outcome-unknown`: the work may or may not have been done, so it is never run again
 *   with this key (until the key expires).
 * - Except on the creating endpoints registered `idempotency: 'resumable'` (CreateEnvelopeFromTemplate, CreateBulkJob,
 *   CreateTemplate, CreateOrganizationInvitation), whose creation spans writes no single transaction
 *   can hold with the key's row: they name what they create after the claim, so once the lease of a
 *   dead request has passed, a retry takes its claim over and runs again, finding and completing (or
 *   answering) what the dead run left; and their answer is kept before it goes out
 *   ({@link runResumably}).
 *
 * Where it runs: `register.ts`, after the owner is authenticated and before anything that counts the
 * request (rate limits, quotas), so that a replay costs no budget.
 */
import { createHash } from 'node:crypto';
import type { HttpRequest, HttpRequestParams, HttpRequestUser, HttpResponseInit, InvocationContext } from '@azure/functions';
import { afterResponse } from '../afterResponse.js';
import { crashPoint } from '../crashPoint.js';
import { withResumableIds } from '../resumableRun.js';
import { LruCache } from '../lruCache.js';
import type { ClaimOptions, DoneKey, IdempotencyKeyRepository, IdempotencyKeyRow, IdempotentRequest, KeptAnswer } from '../storage/idempotencyKeyRepository.js';
import { answerWithClaim, withPendingClaim, type PendingClaim } from '../storage/idempotentClaim.js';
import { describeCause, problemResponse } from './problem.js';
import { withStandardHeaders } from './respond.js';
import { problem } from '../problems.js';

/** The request header (IETF draft `draft-ietf-httpapi-idempotency-key-header`). */
export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';
/** The response header that marks a replayed answer. */
export const IDEMPOTENT_REPLAYED_HEADER = 'Idempotent-Replayed';
/** How long a key and its answer are kept, seconds (docs/api.md#idempotency: 24 hours). */
export const IDEMPOTENCY_KEY_RETENTION_SECONDS = 24 * 60 * 60;
/**
 * How long a claim holds, seconds: longer than any request can run (the Azure front end ends an HTTP
 * request after 230 s), so a claim older than this was left by a process that is gone.
 */
export const IDEMPOTENCY_CLAIM_LEASE_SECONDS = 240;
/** `Retry-After` of 409 `idempotency-key-in-use`, seconds. */
export const IN_USE_RETRY_AFTER_SECONDS = 1;
/** Longest key, characters. */
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;
/** A valid key: 1 to 255 printable ASCII characters (U+0020 to U+007E). */
export const IDEMPOTENCY_KEY_PATTERN = /^[\x20-\x7e]{1,255}$/;
/** The answer headers kept with the body (lower-case); every other header is the instance's own. */
const KEPT_HEADERS = ['content-type', 'cache-control', 'etag', 'location'] as const;
/**
 * Kept answers an instance remembers, and the largest body it remembers (characters or bytes): at
 * most about 16 MiB in all. A larger answer is replayed from storage only.
 */
const REMEMBERED_ANSWERS = 1000;
const MAX_REMEMBERED_BODY = 8 * 1024;

/** The request's `Idempotency-Key`, or `undefined` when it has none. @throws AppError 400 `invalid-idempotency-key` */
export function idempotencyKeyOf(request: HttpRequest): string | undefined {
  const key = request.headers.get(IDEMPOTENCY_KEY_HEADER);
  if (key === null) return undefined;
  if (!IDEMPOTENCY_KEY_PATTERN.test(key)) {
    throw problem('invalidIdempotencyKey', { detail: `${IDEMPOTENCY_KEY_HEADER} must be 1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} printable ASCII characters (U+0020 to U+007E).` });
  }
  return key;
}

/**
 * The answer of an endpoint that takes no `Idempotency-Key` (its answer holds a secret that is never
 * stored, so it cannot be replayed) to a request that sends one.
 * @throws AppError 400 `idempotency-not-supported` when `request` carries the header
 */
export function refuseIdempotencyKey(request: HttpRequest): void {
  if (request.headers.has(IDEMPOTENCY_KEY_HEADER)) {
    throw problem('idempotencyNotSupported', { detail: `This endpoint does not take ${IDEMPOTENCY_KEY_HEADER}: its answer is never stored, so it cannot be replayed. Send the request without it.` });
  }
}

export interface IdempotentCallOptions {
  /** The owner's user id: keys are per owner. */
  ownerId: string;
  /** The request's key ({@link idempotencyKeyOf}). */
  key: string;
  keys: IdempotencyKeyRepository;
  context: InvocationContext;
  /** The clock (tests); default `new Date()`. */
  now?: () => Date;
  /**
   * The endpoint's whole change is one transaction in the owner's partition of table `envelopes` that
   * takes the claim (`storage/idempotentClaim.ts`): the claim is written there, not before the work.
   */
  claimInTransaction?: boolean;
  /**
   * The endpoint creates what it creates under ids derived from the claim (`resumableId`, `ids.ts`)
   * and, run again under the same claim, finds and completes or answers what an earlier run left
   * ({@link runResumably}).
   */
  resumable?: boolean;
}

/** A kept answer as remembered by this instance. */
interface Remembered extends IdempotentRequest {
  expiresAt: number;
  answer: KeptAnswer;
}

const remembered = new LruCache<string, Remembered>(REMEMBERED_ANSWERS);

/**
 * Runs `run` at most once for (owner, key) (see the module comment), or answers for the request that
 * did.
 * @param run the endpoint with its error mapping, given the request to read (its body already read
 *   here, served again from memory): it answers every outcome, 5xx included, and throws only on a
 *   fault of its own
 * @returns the answer of `run`, a replayed answer, or the problem of a reused key, a key in use, or a
 *   key whose first request's outcome is unknown
 * @throws storage errors of the claim (the caller maps them: 503 when storage is unreachable)
 */
export async function runIdempotently(
  request: HttpRequest,
  run: (request: HttpRequest) => Promise<HttpResponseInit>,
  options: IdempotentCallOptions,
): Promise<HttpResponseInit> {
  const { ownerId, key, keys, context } = options;
  const now = options.now ?? (() => new Date());
  const body = new Uint8Array(await request.arrayBuffer());
  const identity = identify(request, body);
  const memoryKey = `${ownerId}\n${key}`;
  const known = remembered.find(memoryKey);
  if (known !== undefined) {
    if (known.expiresAt > now().getTime()) return answerFor(identity, known);
    remembered.delete(memoryKey);
  }

  const claimOptions = {
    ...identity,
    now: now(),
    retentionSeconds: IDEMPOTENCY_KEY_RETENTION_SECONDS,
    leaseSeconds: IDEMPOTENCY_CLAIM_LEASE_SECONDS,
  };
  if (options.resumable === true) return await runResumably(request, body, run, { ...options, identity, memoryKey, now, claimOptions });
  const finish = (answer: HttpResponseInit, etag: string) => keepAnswer(answer, etag, { ...options, identity, memoryKey, now });

  if (options.claimInTransaction === true) {
    // The claim rides in the endpoint's own transaction (storage/idempotentClaim.ts).
    const claimRow = keys.claimRow(ownerId, key, claimOptions);
    const expiresAt = String(claimRow.expiresAt);
    const pending: PendingClaim = { ownerId, entity: claimRow, state: 'pending', answerRow: (kept) => keys.doneRow(ownerId, key, { ...identity, expiresAt, answer: kept }) };
    let answer: HttpResponseInit;
    try {
      answer = await withPendingClaim(pending, async () => await run(new ReadBodyRequest(request, body)));
    } catch (error) {
      if (pending.state === 'committed' && pending.answered === undefined) await release(keys, ownerId, key, pending.etag!, identity, context);
      throw error;
    }
    if (pending.state === 'committed' && pending.answered !== undefined) {
      // The transaction stored the kept answer with the work ({@link answerInTransaction}): nothing left to write but,
      // once per owner and hour, the sweeper's due entry.
      remember(memoryKey, { ...identity, expiresAt, answer: keptAnswer(answer)! });
      afterResponse.start('Scheduling an idempotent answer\'s expiry', async () => {
        try {
          await keys.scheduleForgetting(ownerId, expiresAt);
        } catch (error) {
          context.warn(`The expiry of an idempotent answer (${identity.method} ${identity.path}) could not be scheduled:`, describeCause(error));
        }
      });
      return answer;
    }
    if (pending.state === 'committed') return await finish(answer, pending.etag!);
    if (pending.state === 'pending') {
      // No transaction took the claim: the run changed nothing (a refusal, or storage failing first).
      if (keptAnswer(answer) === undefined) return answer;
      const claim = await keys.claim(ownerId, key, claimOptions);
      return claim.claimed ? await finish(answer, claim.etag) : existingAnswer(claim.existing, identity, memoryKey, now);
    }
    // Taken: the key's row existed, and the transaction wrote nothing; decided below as for any endpoint.
  }

  const claim = await keys.claim(ownerId, key, claimOptions);
  if (!claim.claimed) return existingAnswer(claim.existing, identity, memoryKey, now);
  crashPoint('idempotency.claimed');
  let answer: HttpResponseInit;
  try {
    answer = await run(new ReadBodyRequest(request, body));
  } catch (error) {
    await release(keys, ownerId, key, claim.etag, identity, context);
    throw error;
  }
  return await finish(answer, claim.etag);
}

/**
 * {@link runIdempotently} for an endpoint registered `idempotency: 'resumable'` (docs/api.md#idempotency):
 * a creating request whose creation spans several writes, so that no single transaction can hold it
 * with the key's row. What makes a retry after a crash at any point either replay the answer or finish
 * the one creation:
 * - the run mints the ids of what it creates from the claim (`resumableId`, `ids.ts`: owner, key and
 *   the claim's time), so every run under one claim names the same envelope (or template);
 * - a claim whose lease has passed (its process died) is taken over by the next request with the key
 *   ({@link IdempotencyKeyRepository.takeOver}), which runs the endpoint again under the same claim:
 *   the endpoint finds what the dead run left, completes it (or answers it, when it was complete) and
 *   creates nothing twice;
 * - the answer is kept in storage before it is returned, so an answer that reached the client is the
 *   one every retry replays; a process that dies before that never sent it;
 * - an answer that is not kept (5xx, 429), or a fault, ends the claim's lease instead of deleting it,
 *   so the retry runs at once under the same claim, with the same ids.
 * @throws storage errors of the claim, of its take-over and of keeping the answer (the caller maps them)
 */
async function runResumably(
  request: HttpRequest,
  body: Uint8Array,
  run: (request: HttpRequest) => Promise<HttpResponseInit>,
  options: IdempotentCallOptions & { identity: IdempotentRequest; memoryKey: string; now: () => Date; claimOptions: ClaimOptions },
): Promise<HttpResponseInit> {
  const { ownerId, key, keys, context, identity, memoryKey, now, claimOptions } = options;
  const claim = await keys.claim(ownerId, key, claimOptions);
  let etag: string;
  let claimedAt = claimOptions.now.toISOString();
  let expiresAt = new Date(claimOptions.now.getTime() + IDEMPOTENCY_KEY_RETENTION_SECONDS * 1000).toISOString();
  let resumed = false;
  if (claim.claimed) {
    etag = claim.etag;
  } else {
    const existing = claim.existing;
    if (existing.state === 'done' || existing.fingerprint !== identity.fingerprint || Date.parse(existing.leaseUntil) > now().getTime()) {
      return existingAnswer(existing, identity, memoryKey, now);
    }
    // The request that claimed the key died: run again under its claim, with its ids.
    const taken = await keys.takeOver(ownerId, key, existing, { now: now(), leaseSeconds: IDEMPOTENCY_CLAIM_LEASE_SECONDS });
    if (taken === null) return inUse();
    etag = taken;
    claimedAt = existing.claimedAt;
    expiresAt = existing.expiresAt;
    resumed = true;
  }
  crashPoint('idempotency.claimed');
  const endLease = async () => {
    try {
      await keys.endLease(ownerId, key, etag, now());
    } catch (error) {
      // The lease then runs out by itself: a retry is told the key is in use until it does.
      context.warn(`The claim of an idempotent request (${identity.method} ${identity.path}) could not be handed on:`, describeCause(error));
    }
  };
  let answer: HttpResponseInit;
  try {
    answer = await withResumableIds({ seed: `${ownerId}\n${key}\n${claimedAt}`, at: Date.parse(claimedAt), resumed }, async () => await run(new ReadBodyRequest(request, body)));
  } catch (error) {
    await endLease();
    throw error;
  }
  const kept = keptAnswer(answer);
  if (kept === undefined) {
    await endLease();
    return answer;
  }
  crashPoint('idempotency.answered');
  // Kept before it goes out: no client holds an answer that a retry would not replay.
  let stored: boolean;
  try {
    stored = await keys.keep(ownerId, key, etag, { ...identity, expiresAt, answer: kept });
  } catch (error) {
    // Not answered: the retry runs again under this claim and answers what this run made.
    await endLease();
    throw error;
  }
  if (!stored) {
    context.warn(`The answer of an idempotent request (${identity.method} ${identity.path}) was not kept: its claim was taken over meanwhile.`);
    return answer;
  }
  remember(memoryKey, { ...identity, expiresAt, answer: kept });
  return answer;
}

/** The answer for a key whose row another request holds: its kept answer, or why there is none yet. */
function existingAnswer(existing: IdempotencyKeyRow, identity: IdempotentRequest, memoryKey: string, now: () => Date): HttpResponseInit {
  if (existing.fingerprint !== identity.fingerprint) return reused(existing);
  if (existing.state === 'done') return answerFor(identity, remember(memoryKey, existing));
  if (Date.parse(existing.leaseUntil) > now().getTime()) return inUse();
  return outcomeUnknown(existing.claimedAt);
}

/** Deletes this request's claim (`etag`) so that a retry runs again; a claim that cannot be deleted stays. */
async function release(keys: IdempotencyKeyRepository, ownerId: string, key: string, etag: string, identity: IdempotentRequest, context: InvocationContext): Promise<void> {
  try {
    await keys.release(ownerId, key, etag);
  } catch (error) {
    // The claim stays: a retry is told the key is in use, then that the outcome is unknown, and
    // never runs the work a second time.
    context.warn(`The claim of an idempotent request (${identity.method} ${identity.path}) could not be released:`, describeCause(error));
  }
}

/**
 * After the work under the claim `etag` answered: keeps the answer (from memory on this instance at
 * once, in storage right after the answer goes out) or, for an answer never kept, releases the claim.
 */
async function keepAnswer(
  answer: HttpResponseInit,
  etag: string,
  options: IdempotentCallOptions & { identity: IdempotentRequest; memoryKey: string; now: () => Date },
): Promise<HttpResponseInit> {
  const { ownerId, key, keys, context, identity, memoryKey, now } = options;
  const kept = keptAnswer(answer);
  if (kept === undefined) {
    await release(keys, ownerId, key, etag, identity, context);
    return answer;
  }
  crashPoint('idempotency.answered');
  const expiresAt = new Date(now().getTime() + IDEMPOTENCY_KEY_RETENTION_SECONDS * 1000).toISOString();
  // This instance replays from now on; the stored copy, for the other instances, is written after
  // the answer goes out (until it lands, they answer 409 in use, as while the request ran).
  remember(memoryKey, { ...identity, expiresAt, answer: kept });
  afterResponse.start('Keeping an idempotent answer', async () => {
    try {
      if (!(await keys.keep(ownerId, key, etag, { ...identity, expiresAt, answer: kept }))) remembered.delete(memoryKey);
    } catch (error) {
      // The work is done and answered; its claim stays, so another instance tells a retry that the
      // outcome is unknown rather than doing the work again.
      context.warn(`The answer of an idempotent request (${identity.method} ${identity.path}) could not be kept:`, describeCause(error));
    }
  });
  return answer;
}

/**
 * For an endpoint registered with `idempotency: 'claim-in-transaction'` whose answer is known before
 * its transaction: hands `answer` to the request's waiting idempotency-key claim, so that the
 * transaction stores it as the kept answer with the work (`storage/idempotentClaim.ts`). Call it just
 * before the transaction, with exactly the answer the endpoint will return; without a key it does nothing.
 * @returns `answer`, unchanged
 */
export function answerInTransaction(answer: HttpResponseInit): HttpResponseInit {
  const kept = keptAnswer(answer);
  if (kept !== undefined) answerWithClaim(kept);
  return answer;
}

/** The fingerprint of the request: SHA-256 over method, path and body bytes. */
function identify(request: HttpRequest, body: Uint8Array): IdempotentRequest {
  const method = request.method.toUpperCase();
  const path = new URL(request.url).pathname;
  const fingerprint = createHash('sha256').update(`${method} ${path}\n`).update(body).digest('base64url');
  return { fingerprint, method, path };
}

/**
 * `request` with its body, already read, served again from `bytes`: what the endpoint reads after the
 * fingerprint was taken. Cheaper than `request.clone()`, which tees the body stream (about 0.4 ms a
 * request here, more than the rest of the key's work in this process).
 */
class ReadBodyRequest implements HttpRequest {
  constructor(
    private readonly inner: HttpRequest,
    private readonly bytes: Uint8Array,
  ) {}

  get method(): string {
    return this.inner.method;
  }

  get url(): string {
    return this.inner.url;
  }

  get headers(): Headers {
    return this.inner.headers;
  }

  get query(): URLSearchParams {
    return this.inner.query;
  }

  get params(): HttpRequestParams {
    return this.inner.params;
  }

  get user(): HttpRequestUser | null {
    return this.inner.user;
  }

  /** A new stream of the bytes on every read (`null` for an empty body, as the fetch standard has it). */
  get body(): ReadableStream | null {
    if (this.bytes.byteLength === 0) return null;
    const bytes = this.bytes;
    return new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(bytes.slice());
        controller.close();
      },
    });
  }

  readonly bodyUsed = false;

  arrayBuffer = async (): Promise<ArrayBuffer> => this.bytes.slice().buffer;

  blob = async (): Promise<Blob> => new Blob([this.bytes]);

  formData = async (): Promise<FormData> => await new Response(this.bytes, { headers: this.inner.headers }).formData();

  json = async (): Promise<unknown> => JSON.parse(await this.text());

  text = async (): Promise<string> => new TextDecoder().decode(this.bytes);

  clone = (): HttpRequest => new ReadBodyRequest(this.inner, this.bytes);
}

/**
 * What of `answer` is kept, or `undefined` when it is not: a 5xx or 429 answer (a retry must run
 * again), or a body that is not text or bytes (no endpoint answers such a body).
 */
function keptAnswer(answer: HttpResponseInit): KeptAnswer | undefined {
  const status = answer.status ?? 200;
  if (status >= 500 || status === 429 || status < 200) return undefined;
  const body = answer.body ?? null;
  if (body !== null && typeof body !== 'string' && !(body instanceof Uint8Array)) return undefined;
  const given = (answer.headers ?? {}) as Record<string, string>;
  const headers: Record<string, string> = {};
  for (const name of KEPT_HEADERS) {
    const value = given[name];
    if (value !== undefined) headers[name] = value;
  }
  return { status, headers, body };
}

function remember(memoryKey: string, row: IdempotentRequest & Pick<DoneKey, 'expiresAt' | 'answer'>): Remembered {
  const entry: Remembered = { fingerprint: row.fingerprint, method: row.method, path: row.path, expiresAt: Date.parse(row.expiresAt), answer: row.answer };
  const size = row.answer.body === null ? 0 : typeof row.answer.body === 'string' ? row.answer.body.length : row.answer.body.byteLength;
  if (size <= MAX_REMEMBERED_BODY) remembered.set(memoryKey, entry);
  return entry;
}

/** The kept answer for a request with the same fingerprint, else 422. */
function answerFor(identity: IdempotentRequest, kept: Remembered): HttpResponseInit {
  if (kept.fingerprint !== identity.fingerprint) return reused(kept);
  const { status, headers, body } = kept.answer;
  return withStandardHeaders({ status, headers: { ...headers, [IDEMPOTENT_REPLAYED_HEADER]: 'true' }, ...(body === null ? {} : { body }) });
}

function reused(first: IdempotentRequest): HttpResponseInit {
  return problemResponse(
    problem('idempotencyKeyReused', { detail: `This ${IDEMPOTENCY_KEY_HEADER} was first used for another request (${first.method} ${first.path} with another body, or another method or path); use a new key for a new request.` }),
  );
}

function inUse(): HttpResponseInit {
  return problemResponse(
    problem('idempotencyKeyInUse', { detail: `A request with this ${IDEMPOTENCY_KEY_HEADER} is still running; retry after Retry-After seconds to get its answer.`, retryAfterSeconds: IN_USE_RETRY_AFTER_SECONDS }),
  );
}

function outcomeUnknown(claimedAt: string): HttpResponseInit {
  return problemResponse(
    problem('idempotencyOutcomeUnknown', { detail: `The request sent with this ${IDEMPOTENCY_KEY_HEADER} at ${claimedAt} was interrupted before its answer was stored, so whether it made its change is unknown; it is never run again with this key. Read the resource to see whether the change was made, and use a new key to make it.` }),
  );
}
