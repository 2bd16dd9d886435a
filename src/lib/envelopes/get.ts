/**
 * Reading one envelope (docs/api.md#read-an-envelope).
 */
import { AppError } from '../errors.js';
import { isUuid } from '../ids.js';
import type { EnvelopeRepository, StoredEnvelope } from '../storage/envelopeRepository.js';
import { problem } from '../problems.js';

/**
 * The caller's envelope with this id.
 * @throws AppError 404, the same for an id that does not exist, is malformed, or names another
 *   owner's envelope (docs/api.md#the-envelope: the answer never reveals that it exists)
 */
export async function readOwnedEnvelope(envelopes: EnvelopeRepository, ownerId: string, envelopeId: string): Promise<StoredEnvelope> {
  const stored = isUuid(envelopeId) ? await envelopes.read(ownerId, envelopeId) : null;
  if (stored === null) throw envelopeNotFound();
  return stored;
}

export function envelopeNotFound(): AppError {
  return problem('envelopeNotFound');
}
