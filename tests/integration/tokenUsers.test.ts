/**
 * The bearer guard's user lookup (UserRepository.findForToken) against a real Azurite: how long a
 * deleted user's token can keep working is bounded, and only found users are remembered.
 */
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, test } from '@jest/globals';
import { getServices, type Services } from '../../src/lib/services.js';
import { ensureStorage } from '../../src/lib/storage/setup.js';
import { TOKEN_USER_CACHE_MS, UserRepository } from '../../src/lib/storage/userRepository.js';

let services: Services;

beforeAll(async () => {
  services = getServices();
  await ensureStorage(services.storage, { allowedOrigins: ['*'] });
});

async function newUser(users: UserRepository): Promise<{ userId: string; email: string; emailVerified: boolean; name: string | null }> {
  const user = { userId: randomUUID(), email: `cache-${randomUUID()}@example.com`, emailVerified: true, name: null };
  await users.insert({ ...user, role: 'user', passwordHash: '$2b$10$invalidinvalidinvalidinvalidinvalidinvalidinvalidinv', createdAt: new Date().toISOString(), verificationSentAt: null });
  return user;
}

describe('findForToken', () => {
  test('a user deleted by another instance is refused once TOKEN_USER_CACHE_MS has passed, not later', async () => {
    let now = 1_000_000;
    const thisInstance = new UserRepository(services.storage.tables.users, () => now);
    const otherInstance = new UserRepository(services.storage.tables.users);
    const user = await newUser(otherInstance);
    expect(await thisInstance.findForToken(user.email)).toEqual(user);

    await otherInstance.delete(user.email);
    now += TOKEN_USER_CACHE_MS - 1;
    expect(await thisInstance.findForToken(user.email)).toEqual(user);
    now += 1;
    expect(await thisInstance.findForToken(user.email)).toBeNull();
  });

  test('a user deleted through the same instance is refused at once', async () => {
    const users = new UserRepository(services.storage.tables.users);
    const user = await newUser(users);
    expect(await users.findForToken(user.email)).toEqual(user);
    await users.delete(user.email);
    expect(await users.findForToken(user.email)).toBeNull();
  });

  test('an address not found is not remembered', async () => {
    const users = new UserRepository(services.storage.tables.users);
    const email = `later-${randomUUID()}@example.com`;
    expect(await users.findForToken(email)).toBeNull();
    const userId = randomUUID();
    await users.insert({ userId, email, role: 'user', passwordHash: 'x', createdAt: new Date().toISOString(), emailVerified: false, verificationSentAt: null });
    expect(await users.findForToken(email)).toEqual({ userId, email, emailVerified: false, name: null });
  });

  test('remembers only the id, the address, whether it is verified and the display name, never the password hash', async () => {
    const users = new UserRepository(services.storage.tables.users);
    const user = await newUser(users);
    expect(Object.keys((await users.findForToken(user.email))!).sort()).toEqual(['email', 'emailVerified', 'name', 'userId']);
  });
});
