/**
 * The one way a template is changed under contention (docs/api.md#templates), as envelopes are
 * (`envelopes/mutate.ts`): read it, let the operation decide and write conditional on the ETag it
 * read, and when a concurrent change won, read it again and let the operation decide again, on the
 * generic loop of `../retryOnConflict.ts`. This module owns the re-reading, the `If-Match` answer, the
 * back-off and the 409 `template-contended`.
 */
import { problem } from '../problems.js';
import { retryOnConflict } from '../retryOnConflict.js';
import type { Services } from '../services.js';
import { EnvelopeChangedError } from '../storage/envelopeRepository.js';
import { TemplateChangedError, type StoredTemplate } from '../storage/templateRepository.js';
import type { Actor } from '../envelopes/model.js';
import { readTemplateFor } from './access.js';

/**
 * Runs `mutate` on a template the caller may change (its own; for an admin or the owner, any of the
 * organisation's: `access.ts`) as stored (with its ETag) until it returns without a
 * concurrent change winning its write: each time it throws TemplateChangedError (or
 * EnvelopeChangedError, which freezing the document throws when the template is no longer the draft
 * it read), waits a
 * growing random delay, reads the template again and runs `mutate` again on that.
 * @param key the caller and the template's id
 * @param options.ifMatch the request's `If-Match` header, or `null`: with one, a concurrent change
 *   that wins answers 412 `etag-mismatch` instead of another round (the operation itself compares it
 *   with the version it read)
 * @returns what `mutate` returns
 * @throws AppError 404 `template-not-found` (missing, malformed id, another organisation's); 403
 *   `forbidden-role` (a template of the organisation the caller may not change); 412
 *   `etag-mismatch` (with `ifMatch`); 409 `template-contended` when concurrent changes won every
 *   round; whatever else `mutate` throws
 */
export async function mutateTemplate<T>(services: Services, key: { actor: Actor; templateId: string }, mutate: (stored: StoredTemplate) => Promise<T>, options: { ifMatch?: string | null } = {}): Promise<T> {
  const ifMatch = options.ifMatch ?? null;
  return await retryOnConflict(
    async () => {
      const stored = await readTemplateFor(services, key.actor, key.templateId, 'change');
      try {
        return await mutate(stored);
      } catch (error) {
        if (ifMatch !== null && isConflict(error)) throw problem('etagMismatch');
        throw error;
      }
    },
    {
      isConflict,
      exhausted: () => {
        throw problem('templateContended');
      },
    },
  );
}

function isConflict(error: unknown): boolean {
  return error instanceof TemplateChangedError || error instanceof EnvelopeChangedError;
}
