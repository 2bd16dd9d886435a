/**
 * The run a resumable creating request is in (docs/api.md#idempotency): what `ids.ts` derives the
 * ids of what it creates from. Apart from `ids.ts` so that the request path every function loads
 * (`http/idempotency.ts`) carries no UUID library until a handler runs (bench/README.md, cold start).
 */
import { AsyncLocalStorage } from 'node:async_hooks';

/** What the ids of one resumable run are derived from. */
export interface ResumableIdSeed {
  /** Unique to the claim (owner, key and the claim's time): every run under that claim gets the same ids. */
  seed: string;
  /** The claim's time, epoch milliseconds: the UUIDs' timestamp. */
  at: number;
  /** Whether an earlier run under this claim may have left work behind (its process died). */
  resumed: boolean;
}

const seeds = new AsyncLocalStorage<ResumableIdSeed>();

/** Runs `work` with the ids of `resumableId` (`ids.ts`) derived from `seed`. */
export async function withResumableIds<T>(seed: ResumableIdSeed, work: () => Promise<T>): Promise<T> {
  return await seeds.run(seed, work);
}

/** The seed of the resumable run the caller is in, if any. */
export function currentResumableSeed(): ResumableIdSeed | undefined {
  return seeds.getStore();
}
