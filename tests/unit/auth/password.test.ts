/**
 * Password hashing (src/lib/auth/password.ts): the native binding keeps the bcrypt format, so hashes
 * made by bcryptjs (every account created before the switch) still verify, and bcryptjs reads its hashes.
 * The bound (docs/api.md#rate-limits-and-quotas): at most N hashes at once, 4 N waiting, the rest refused at once with 503;
 * an address without an account costs no hash and takes no place in the queue.
 */
import { describe, expect, test } from '@jest/globals';
import bcrypt from 'bcryptjs';
import { hashPassword, PasswordHashing, passwordBackend, verifyPassword } from '../../../src/lib/auth/password.js';
import { AppError } from '../../../src/lib/errors.js';
import { patience } from '../../support/patience.js';

describe('password hashing', () => {
  test('hashes off the event loop with the native binding where it has a prebuilt binary (linux x64 glibc here)', async () => {
    if (process.platform === 'linux' && process.arch === 'x64') expect(await passwordBackend()).toBe('native');
    else expect(['native', 'bcryptjs']).toContain(await passwordBackend());
  });

  test.each(['$2a$', '$2b$'])('verifies %s hashes made by bcryptjs', async (prefix) => {
    const made = await bcrypt.hash('correct horse battery', 10);
    const hash = made.replace(/^\$2[ab]\$/, prefix);
    expect(hash.startsWith(prefix)).toBe(true);
    expect(await verifyPassword('correct horse battery', hash)).toBe(true);
    expect(await verifyPassword('correct horse batterY', hash)).toBe(false);
  });

  test('makes $2b$ hashes at the cost asked for, which bcryptjs verifies', async () => {
    const hash = await hashPassword('pässwörd ✓ 12345', 10);
    expect(hash).toMatch(/^\$2b\$10\$[./A-Za-z0-9]{53}$/);
    expect(await bcrypt.compare('pässwörd ✓ 12345', hash)).toBe(true);
    expect(await verifyPassword('pässwörd ✓ 12345', hash)).toBe(true);
    expect(await verifyPassword('passwörd ✓ 12345', hash)).toBe(false);
  });

  test('uses all 72 bytes of a 72-byte password, as bcryptjs does', async () => {
    const password = `${'a'.repeat(71)}b`;
    const hash = await bcrypt.hash(password, 10);
    expect(await verifyPassword(password, hash)).toBe(true);
    expect(await verifyPassword(`${'a'.repeat(71)}c`, hash)).toBe(false);
  });
});

describe('PasswordHashing: the bound per instance', () => {
  /** A cost whose hash takes long enough (about a second here) for the others to be queued meanwhile. */
  const SLOW = 14;

  test('runs N at once, queues 4 N, refuses the next one at once with 503 password-hashing-busy and Retry-After 1', async () => {
    const hashing = new PasswordHashing(1);
    expect(hashing.maxWaiting).toBe(4);
    const admitted = Array.from({ length: 5 }, (_, index) => hashing.hash(`password ${index}`, SLOW));
    // Each caller is placed once the backend is loaded (a microtask or two): wait for the queue to fill.
    for (let turn = 0; turn < 1000 && hashing.load.waiting < 4; turn++) await new Promise((resolve) => setImmediate(resolve));
    expect(hashing.load).toEqual({ running: 1, waiting: 4 });

    const refusals = await Promise.allSettled([hashing.hash('one more', SLOW), hashing.verify('one more', '$2b$10$abcdefghijklmnopqrstuu9c0r5wqT3rYyC0h3G7Gm6f2oJ5H1wW'), hashing.verifyNoAccount(SLOW)]);
    // Refused while the first five still hold the queue: none of them has finished.
    expect(hashing.load).toEqual({ running: 1, waiting: 4 });
    for (const refusal of refusals) {
      expect(refusal.status).toBe('rejected');
      const error = (refusal as PromiseRejectedResult).reason as AppError;
      expect(error).toBeInstanceOf(AppError);
      expect(error).toMatchObject({ code: 'service_unavailable', type: 'urn:problem:password-hashing-busy', retryAfterSeconds: 1 });
    }
    expect(() => hashing.assertAdmissible()).toThrow(AppError);

    const hashes = await Promise.all(admitted);
    expect(hashes.every((hash) => hash.startsWith(`$2b$${SLOW}$`))).toBe(true);
    expect(hashing.load).toEqual({ running: 0, waiting: 0 });
    expect(() => hashing.assertAdmissible()).not.toThrow();
  }, patience(60_000));

  test('before anything is measured, logins without an account share one measuring comparison', async () => {
    const hashing = new PasswordHashing(1);
    let settled = false;
    const first = Promise.all(Array.from({ length: 10 }, () => hashing.verifyNoAccount(10))).finally(() => (settled = true));
    // One hash of a random password, then one comparison, not ten: nothing ever waits in the queue.
    let mostWaiting = 0;
    let mostRunning = 0;
    while (!settled) {
      mostWaiting = Math.max(mostWaiting, hashing.load.waiting);
      mostRunning = Math.max(mostRunning, hashing.load.running);
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(await first).toEqual(Array.from({ length: 10 }, () => false));
    expect({ mostRunning, mostWaiting }).toEqual({ mostRunning: 1, mostWaiting: 0 });
  });

  test('an address without an account waits as a comparison takes, without a hashing slot', async () => {
    const hashing = new PasswordHashing(1);
    // The first one has nothing measured yet: it compares once, through the bound, to measure.
    expect(await hashing.verifyNoAccount(10)).toBe(false);

    const order: string[] = [];
    const slow = hashing.hash('long', SLOW).then(() => order.push('hash'));
    for (let turn = 0; turn < 1000 && hashing.load.running < 1; turn++) await new Promise((resolve) => setImmediate(resolve));
    expect(hashing.load).toEqual({ running: 1, waiting: 0 });
    const noAccount = hashing.verifyNoAccount(10).then((result) => {
      order.push('no account');
      return result;
    });
    // It waits beside the running hash, not behind it: nothing joined the queue.
    expect(hashing.load).toEqual({ running: 1, waiting: 0 });
    expect(await noAccount).toBe(false);
    await slow;
    expect(order).toEqual(['no account', 'hash']);
  }, patience(60_000));
});
