/**
 * The client address (docs/api.md#rate-limits-and-quotas): the socket's, which the platform's front end and the local host
 * append to `X-Forwarded-For`; with `TRUST_PROXY` = N proxies, the N-th entry from the right of what
 * they pass on. And how `TRUST_PROXY` is read.
 */
import { describe, expect, test } from '@jest/globals';
import { loadConfig } from '../../../src/lib/config.js';
import { ConfigError } from '../../../src/lib/errors.js';
import { clientIpFromForwardedFor } from '../../../src/lib/http/requestInfo.js';

const minimal = { JWT_SECRET: 'x'.repeat(32), SEAL_P12_BASE64: 'AAAA' };

describe('TRUST_PROXY', () => {
  test.each([
    [undefined, 0],
    ['', 0],
    ['0', 0],
    ['1', 1],
    ['2', 2],
    ['true', 1],
    ['false', 0],
    [' 3 ', 3],
  ])('%j is %i proxies', (value, proxies) => {
    expect(loadConfig({ ...minimal, ...(value === undefined ? {} : { TRUST_PROXY: value }) }).limits.trustProxy).toBe(proxies);
  });

  test.each(['yes', '-1', '1.5', '100', 'TRUE'])('refuses %j naming the setting', (value) => {
    expect(() => loadConfig({ ...minimal, TRUST_PROXY: value })).toThrow(ConfigError);
    expect(() => loadConfig({ ...minimal, TRUST_PROXY: value })).toThrow(/^Invalid setting TRUST_PROXY: /);
  });

  test('the other limits: defaults and bounds', () => {
    expect(loadConfig(minimal).limits).toEqual({ ownerRequestsPerMinute: 600, authRequestsPerMinute: 20, trustProxy: 0, maxConcurrentPasswordHashes: 4, emailDailyQuota: 1000, smsDailyQuota: 100 });
    expect(loadConfig({ ...minimal, SMS_DAILY_QUOTA: '2' }).limits.smsDailyQuota).toBe(2);
    for (const [setting, value] of [['RATE_LIMIT_PER_MINUTE', '0'], ['AUTH_RATE_LIMIT_PER_MINUTE', 'many'], ['MAX_CONCURRENT_PASSWORD_HASHES', '0'], ['MAX_CONCURRENT_PASSWORD_HASHES', '65'], ['EMAIL_DAILY_QUOTA', '-5'], ['SMS_DAILY_QUOTA', '0'], ['SMS_DAILY_QUOTA', 'many']] as const) {
      expect(() => loadConfig({ ...minimal, [setting]: value })).toThrow(new RegExp(`^Invalid setting ${setting}: `));
    }
  });
});

describe('the client address of an X-Forwarded-For whose last entry is the socket', () => {
  test('without trusted proxies: the socket, whatever the client wrote before it', () => {
    expect(clientIpFromForwardedFor('127.0.0.1', 0)).toBe('127.0.0.1');
    expect(clientIpFromForwardedFor('6.6.6.6, 203.0.113.9', 0)).toBe('203.0.113.9');
    expect(clientIpFromForwardedFor('203.0.113.9:51234', 0)).toBe('203.0.113.9');
    expect(clientIpFromForwardedFor('[2001:db8::7]:443', 0)).toBe('2001:db8::7');
    expect(clientIpFromForwardedFor(null, 0)).toBeNull();
  });

  test('with N proxies: the N-th entry from the right of what they passed on', () => {
    // client 198.51.100.7 → proxy (appends it) → front end (appends the proxy, 10.0.0.4)
    expect(clientIpFromForwardedFor('198.51.100.7, 10.0.0.4', 1)).toBe('198.51.100.7');
    // the client wrote 6.6.6.6 itself: further left, never chosen
    expect(clientIpFromForwardedFor('6.6.6.6, 198.51.100.7, 10.0.0.4', 1)).toBe('198.51.100.7');
    expect(clientIpFromForwardedFor('6.6.6.6, 198.51.100.7:4431, 10.0.0.9, 10.0.0.4', 2)).toBe('198.51.100.7');
  });

  test('fewer entries than proxies: the leftmost', () => {
    expect(clientIpFromForwardedFor('10.0.0.4', 1)).toBe('10.0.0.4');
    expect(clientIpFromForwardedFor('198.51.100.7, 10.0.0.4', 5)).toBe('198.51.100.7');
  });

  test('an empty entry names nobody; a long one is cut at 64 characters', () => {
    expect(clientIpFromForwardedFor(', 10.0.0.4', 1)).toBeNull();
    expect(clientIpFromForwardedFor(`${'a'.repeat(100)}, 10.0.0.4`, 1)).toBe('a'.repeat(64));
  });
});
