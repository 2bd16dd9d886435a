/**
 * Password hashing (src/lib/auth/password.ts): the native binding keeps the bcrypt format, so hashes
 * made by bcryptjs (every account created before the switch) still verify, and bcryptjs reads its hashes.
 */
import { describe, expect, test } from '@jest/globals';
import bcrypt from 'bcryptjs';
import { hashPassword, passwordBackend, verifyPassword } from '../../src/lib/auth/password.js';

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
