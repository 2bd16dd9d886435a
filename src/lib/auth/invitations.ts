/**
 * Invitation codes for the alpha (docs/api.md#accounts): random, 128 bits or more, stored only as a hash.
 */
import { randomBytes } from 'node:crypto';
import { hashInvitationCode, type InvitationRepository } from '../storage/invitationRepository.js';

export interface CreateInvitationOptions {
  invitations: InvitationRepository;
  /** How many registrations the code allows; default 1. */
  uses?: number;
  /** Lifetime, seconds; omit for a code that never expires. */
  expiresInSeconds?: number;
  now?: Date;
}

export interface CreatedInvitation {
  /** The code to hand to a user: `inv_` and 32 base64url characters (192 random bits). Shown once, never stored. */
  code: string;
  maxUses: number;
  expiresAt: string | null;
}

/** Creates a new invitation code. */
export async function createInvitation({ invitations, uses = 1, expiresInSeconds, now = new Date() }: CreateInvitationOptions): Promise<CreatedInvitation> {
  if (!Number.isInteger(uses) || uses < 1) throw new RangeError('uses must be a whole number of at least 1');
  const code = `inv_${randomBytes(24).toString('base64url')}`;
  const expiresAt = expiresInSeconds === undefined ? null : new Date(now.getTime() + expiresInSeconds * 1000).toISOString();
  await invitations.insert({ codeHash: hashInvitationCode(code), maxUses: uses, uses: 0, expiresAt, createdAt: now.toISOString() });
  return { code, maxUses: uses, expiresAt };
}
