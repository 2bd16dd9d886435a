/**
 * Password hashing with bcrypt (OWASP Password Storage Cheat Sheet). bcrypt reads at most 72 bytes,
 * so longer passwords are refused at the boundary rather than silently truncated (CONTRACT §2).
 */
import bcrypt from 'bcryptjs';

/** Longest password bcrypt uses in full, bytes of UTF-8. */
export const MAX_PASSWORD_BYTES = 72;

/** bcrypt hash of `password` with 2^cost rounds. */
export async function hashPassword(password: string, cost: number): Promise<string> {
  return await bcrypt.hash(password, cost);
}

/** Whether `password` matches the bcrypt `hash`. */
export async function verifyPassword(password: string, hash: string): Promise<boolean> {
  return await bcrypt.compare(password, hash);
}

const dummyHashes = new Map<number, Promise<string>>();

/**
 * A hash of a random password at `cost`, computed once: compared against when the e-mail address is
 * unknown, so that unknown-user and wrong-password logins take about the same time (CONTRACT §2).
 */
export async function dummyHash(cost: number): Promise<string> {
  let hash = dummyHashes.get(cost);
  if (hash === undefined) {
    hash = bcrypt.hash(`dummy-${Math.random()}-${Date.now()}`, cost);
    dummyHashes.set(cost, hash);
  }
  return await hash;
}
