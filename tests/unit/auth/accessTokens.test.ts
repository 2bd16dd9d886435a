/**
 * `verifyAccessToken` remembers token strings it verified (src/lib/auth/jwt.ts): a remembered token
 * must be answered exactly as verifying it anew would be, at any time, including when it expires.
 */
import { afterEach, describe, expect, jest, test } from '@jest/globals';
import { decodeJwt } from 'jose';
import type { Config } from '../../../src/lib/config.js';
import { AppError } from '../../../src/lib/errors.js';
import { CLOCK_TOLERANCE_SECONDS, issueAccessToken, verifyAccessToken } from '../../../src/lib/auth/jwt.js';

const claims = { sub: '01a200d3-9ff7-7344-8a5a-76f38c77e046', email: 'ada@example.com', role: 'user' as const };

function settings(secret = 'a-secret-of-at-least-thirty-two-characters!'): Config['jwt'] {
  return { secret: new TextEncoder().encode(secret), issuer: 'envelope-signing-service', audience: 'envelope-api', ttlSeconds: 600 };
}

/** The refusal's detail, or `'accepted'`. */
async function outcome(token: string, jwt: Config['jwt']): Promise<string> {
  try {
    await verifyAccessToken(token, jwt);
    return 'accepted';
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).status).toBe(401);
    return (error as AppError).detail;
  }
}

afterEach(() => {
  jest.useRealTimers();
});

describe('verifyAccessToken, remembered tokens', () => {
  test('a remembered token expires at the same second as one verified anew', async () => {
    const jwt = settings();
    const { token } = await issueAccessToken(claims, jwt);
    const exp = decodeJwt(token).exp!;
    expect(await verifyAccessToken(token, jwt)).toEqual(claims);
    // Only Date is faked: jose's WebCrypto calls and jest's own timers run as usual.
    jest.useFakeTimers({ doNotFake: ['hrtime', 'nextTick', 'performance', 'queueMicrotask', 'setImmediate', 'clearImmediate', 'setInterval', 'clearInterval', 'setTimeout', 'clearTimeout'] });
    for (const offset of [-1, 0, CLOCK_TOLERANCE_SECONDS - 1, CLOCK_TOLERANCE_SECONDS, CLOCK_TOLERANCE_SECONDS + 1]) {
      jest.setSystemTime((exp + offset) * 1000 + 999);
      // A settings object of its own holds no remembered tokens: jose verifies this one anew.
      const fresh = await outcome(token, settings());
      expect(await outcome(token, jwt)).toBe(fresh);
      expect(fresh).toBe(offset < CLOCK_TOLERANCE_SECONDS ? 'accepted' : 'The access token has expired.');
    }
    // Once expired it stays refused, even after being forgotten.
    expect(await outcome(token, jwt)).toBe('The access token has expired.');
  });

  test('another string, even one differing only in its signature, is verified on its own', async () => {
    const jwt = settings();
    const { token } = await issueAccessToken(claims, jwt);
    await verifyAccessToken(token, jwt);
    // Change the signature's first character: its last one carries two padding bits, and a change
    // there alone can decode to the same signature (a flaky test before).
    const signatureStart = token.lastIndexOf('.') + 1;
    const first = token[signatureStart]!;
    const altered = `${token.slice(0, signatureStart)}${first === 'A' ? 'B' : 'A'}${token.slice(signatureStart + 1)}`;
    expect(await outcome(altered, jwt)).toBe('The access token is invalid.');
    expect(await outcome(token, jwt)).toBe('accepted');
  });

  test('a token remembered under one key is refused under another', async () => {
    const jwt = settings();
    const { token } = await issueAccessToken(claims, jwt);
    await verifyAccessToken(token, jwt);
    expect(await outcome(token, settings('another-secret-of-at-least-thirty-two-chars'))).toBe('The access token is invalid.');
  });
});
