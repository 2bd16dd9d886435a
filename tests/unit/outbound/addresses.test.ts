/**
 * Which addresses webhooks may reach (docs/api.md#webhooks, the SSRF rules): every refused range, each
 * named in the refusal, with and without WEBHOOK_ALLOW_PRIVATE_NETWORKS; and the target URL rules.
 */
import { describe, expect, test } from '@jest/globals';
import { checkAddress } from '../../../src/lib/outbound/addresses.js';
import { parseTargetUrl, TargetRefusedError } from '../../../src/lib/outbound/target.js';

/** [address, the words the refusal must contain, refused even when private networks are allowed]. */
const refused: [string, string, boolean][] = [
  ['127.0.0.1', 'loopback', false],
  ['127.255.255.254', 'loopback', false],
  ['10.0.0.1', 'private (RFC 1918)', false],
  ['172.16.0.1', 'private (RFC 1918)', false],
  ['172.31.255.255', 'private (RFC 1918)', false],
  ['192.168.1.1', 'private (RFC 1918)', false],
  ['169.254.1.1', 'link-local', false],
  ['169.254.169.254', 'instance metadata', true],
  ['168.63.129.16', 'Azure platform', true],
  ['100.64.0.1', 'CGNAT', false],
  ['100.127.255.254', 'CGNAT', false],
  ['100.100.100.200', 'instance metadata', true],
  ['0.0.0.0', 'unspecified', true],
  ['0.1.2.3', 'unspecified', true],
  ['224.0.0.1', 'multicast', true],
  ['239.255.255.250', 'multicast', true],
  ['255.255.255.255', 'broadcast', true],
  ['192.0.2.10', 'reserved', false],
  ['198.18.0.1', 'reserved', false],
  ['240.0.0.1', 'reserved', false],
  ['::1', 'loopback', false],
  ['::', 'unspecified', true],
  ['fc00::1', 'unique-local', false],
  ['fd12:3456:789a::1', 'unique-local', false],
  ['fd00:ec2::254', 'instance metadata', true],
  ['fe80::1', 'link-local', false],
  ['fe80::1%eth0', 'link-local', false],
  ['fec0::1', 'site-local', false],
  ['ff02::1', 'multicast', true],
  ['::ffff:127.0.0.1', 'loopback', false],
  ['::ffff:10.1.2.3', 'private (RFC 1918)', false],
  ['::ffff:169.254.169.254', 'instance metadata', true],
  ['::ffff:0:192.168.0.1', 'private (RFC 1918)', false],
  ['64:ff9b::a00:1', 'private (RFC 1918)', false],
  ['64:ff9b::7f00:1', 'loopback', false],
  ['64:ff9b::a9fe:a9fe', 'instance metadata', true],
  ['64:ff9b:1::a00:1', 'NAT64', true],
  ['2002:7f00:1::1', 'loopback', false],
  ['2002:c0a8:101::1', 'private (RFC 1918)', false],
  ['2001:db8::1', 'reserved', false],
  ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'Teredo', true],
  ['::7f00:1', 'IPv4-compatible', false],
  ['100::1', 'discard', true],
  ['4000::1', 'reserved', false],
];

const allowed = ['93.184.215.14', '8.8.8.8', '1.1.1.1', '2606:2800:21f:cb07:6820:80da:af6b:8b2c', '2a00:1450:4001:80b::200e', '::ffff:93.184.215.14', '64:ff9b::5db8:d70e', '2002:5db8:d70e::1'];

describe('checkAddress', () => {
  test.each(refused)('refuses %s (%s)', (address, words) => {
    const verdict = checkAddress(address, { allowPrivate: false });
    expect(verdict.refusal).toEqual(expect.stringContaining(words));
  });

  test.each(allowed)('allows the public address %s', (address) => {
    expect(checkAddress(address, { allowPrivate: false }).refusal).toBeNull();
  });

  test.each(refused)('with private networks allowed, %s (%s) is refused only if it is never allowed', (address, _words, always) => {
    const verdict = checkAddress(address, { allowPrivate: true });
    expect([address, verdict.refusal !== null]).toEqual([address, always]);
  });

  test('names the embedded IPv4 address of a mapped or translated IPv6 address', () => {
    expect(checkAddress('::ffff:7f00:1', { allowPrivate: false })).toEqual({ address: '127.0.0.1', refusal: 'a loopback address' });
    expect(checkAddress('64:ff9b::c0a8:1', { allowPrivate: false }).address).toBe('192.168.0.1');
  });

  test('refuses what is not an IP address', () => {
    expect(checkAddress('example.com', { allowPrivate: true }).refusal).toBe('not an IP address');
  });
});

describe('parseTargetUrl', () => {
  const refusal = (text: string, allowPrivate = false) => {
    try {
      parseTargetUrl(text, { allowPrivate });
      return null;
    } catch (error) {
      return error instanceof TargetRefusedError ? [error.reason, error.message] : error;
    }
  };

  test('accepts https: URLs, and http: only where private networks are allowed', () => {
    expect(refusal('https://hooks.example.com/a?b=c')).toBeNull();
    expect(refusal('http://hooks.example.com/')).toEqual(['scheme', 'must be an https: URL']);
    expect(refusal('http://hooks.example.com/', true)).toBeNull();
  });

  test('refuses other schemes, relative URLs and credentials', () => {
    expect(refusal('ftp://hooks.example.com/')).toEqual(['scheme', 'must be an https: URL']);
    expect(refusal('file:///etc/passwd', true)).toEqual(['scheme', 'must be an https: or http: URL']);
    expect(refusal('/relative/path')).toEqual(['not-url', 'is not an absolute URL']);
    expect(refusal('https://user:pass@hooks.example.com/')).toEqual(['credentials', 'must not contain a user name or password']);
  });

  test('normalizes numeric host forms, so the check sees the real address', () => {
    expect(parseTargetUrl('http://2130706433/', { allowPrivate: true }).hostname).toBe('127.0.0.1');
    expect(parseTargetUrl('http://0x7f.1/', { allowPrivate: true }).hostname).toBe('127.0.0.1');
    expect(parseTargetUrl('https://[::ffff:127.0.0.1]/', { allowPrivate: false }).hostname).toBe('[::ffff:7f00:1]');
  });
});
