/**
 * Which IP addresses a webhook may be delivered to (docs/api.md#webhooks): the guard against server-side
 * request forgery. A webhook URL is chosen by a user, so without this check the service would POST
 * wherever the user points it: its own loopback, the virtual network around it, or the cloud's
 * instance metadata endpoint, which hands out credentials.
 *
 * Only global unicast addresses pass. Refused: loopback, RFC 1918 private, link-local, CGNAT shared
 * space (RFC 6598, 100.64/10), multicast, broadcast, unspecified, reserved and documentation ranges,
 * the IPv6 equivalents (`::1`, unique-local `fc00::/7`, link-local `fe80::/10`, site-local, ...),
 * and any IPv6 form that embeds an IPv4 address (IPv4-mapped `::ffff:a.b.c.d`, IPv4-translated,
 * NAT64 `64:ff9b::/96`, 6to4 `2002::/16`) when the embedded address is refused. Ranges come from
 * `ipaddr.js` (its IANA special-purpose registry tables).
 *
 * With `allowPrivate` (`OUTBOUND_ALLOW_PRIVATE_NETWORKS=true`, development only) loopback, private,
 * link-local, CGNAT, unique-local and reserved addresses pass too; the cloud metadata and platform
 * addresses (169.254.169.254, fd00:ec2::254, Azure's 168.63.129.16), multicast, broadcast and the
 * unspecified address never do.
 */
import ipaddr from 'ipaddr.js';

/** Addresses refused whatever the settings: instance metadata and cloud platform endpoints. */
const PLATFORM_ADDRESSES: Record<string, string> = {
  '169.254.169.254': 'the cloud instance metadata address',
  '168.63.129.16': 'the Azure platform (WireServer) address',
  '100.100.100.200': 'the cloud instance metadata address',
  'fd00:ec2:0:0:0:0:0:254': 'the cloud instance metadata address',
};

/** What each refused range is called in a refusal message. */
const RANGE_NAMES: Record<string, string> = {
  unspecified: 'the unspecified address',
  broadcast: 'the broadcast address',
  multicast: 'a multicast address',
  linkLocal: 'a link-local address',
  loopback: 'a loopback address',
  carrierGradeNat: 'a shared (CGNAT, 100.64.0.0/10) address',
  private: 'a private (RFC 1918) address',
  reserved: 'a reserved or documentation address',
  as112: 'a reserved (AS112) address',
  amt: 'a reserved (AMT) address',
  benchmarking: 'a benchmarking address',
  uniqueLocal: 'a unique-local (private) IPv6 address',
  deprecatedSiteLocal: 'a site-local (private) IPv6 address',
  discard: 'a discard-only IPv6 address',
  teredo: 'a Teredo tunnel address',
  as112v6: 'a reserved (AS112) address',
  orchid2: 'a non-routable (ORCHID) address',
  deprecatedOrchid: 'a non-routable (ORCHID) address',
  droneRemoteIdProtocolEntityTags: 'a non-routable (DET) address',
  segmentRouting: 'a segment-routing address',
  rfc6052: 'a local-use NAT64 address',
  ipv4Compatible: 'an IPv4-compatible IPv6 address (deprecated)',
};

/** Ranges that `allowPrivate` lets through (development against local receivers). */
const PRIVATE_RANGES = new Set([
  'loopback',
  'private',
  'linkLocal',
  'carrierGradeNat',
  'uniqueLocal',
  'deprecatedSiteLocal',
  'reserved',
  'benchmarking',
  'ipv4Compatible',
]);

export interface AddressVerdict {
  /** The address as checked, normalized (IPv6 in RFC 5952 form, embedded IPv4 unwrapped). */
  address: string;
  /** `null` when the address may be used, else why not (`a loopback address`). */
  refusal: string | null;
}

/**
 * Classifies one IP address.
 * @param address IPv4 dotted quad or IPv6 text (a zone id `%eth0` is allowed and ignored)
 * @param options.allowPrivate let loopback and private ranges through (see the module comment)
 * @returns the verdict; an unparseable address is refused ("not an IP address")
 */
export function checkAddress(address: string, options: { allowPrivate: boolean }): AddressVerdict {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.parse(address.replace(/^\[|\]$/g, ''));
  } catch {
    return { address, refusal: 'not an IP address' };
  }
  const unwrapped = unwrapEmbeddedIpv4(parsed);
  const text = unwrapped.kind() === 'ipv6' ? (unwrapped as ipaddr.IPv6).toRFC5952String() : unwrapped.toString();
  const normalized = unwrapped.kind() === 'ipv6' ? (unwrapped as ipaddr.IPv6).toNormalizedString() : text;
  const platform = PLATFORM_ADDRESSES[normalized];
  if (platform !== undefined) return { address: text, refusal: platform };
  const range = rangeOf(unwrapped);
  if (range === 'unicast') return { address: text, refusal: null };
  if (options.allowPrivate && PRIVATE_RANGES.has(range)) return { address: text, refusal: null };
  return { address: text, refusal: RANGE_NAMES[range] ?? `a special-purpose address (${range})` };
}

/**
 * The IPv4 address an IPv6 address stands for, where it embeds one in a way that routes to it:
 * IPv4-mapped (`::ffff:0:0/96`), IPv4-translated (`::ffff:0:0:0/96`), NAT64 well-known prefix
 * (`64:ff9b::/96`, RFC 6052) and 6to4 (`2002::/16`, RFC 3056). Others are returned unchanged.
 */
function unwrapEmbeddedIpv4(address: ipaddr.IPv4 | ipaddr.IPv6): ipaddr.IPv4 | ipaddr.IPv6 {
  if (address.kind() === 'ipv4') return address;
  const v6 = address as ipaddr.IPv6;
  const p = v6.parts;
  const fromWords = (high: number, low: number) => new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
  if (v6.isIPv4MappedAddress()) return v6.toIPv4Address();
  if (v6.match(ipaddr.IPv6.parse('::ffff:0:0:0'), 96)) return fromWords(p[6]!, p[7]!);
  if (v6.match(ipaddr.IPv6.parse('64:ff9b::'), 96)) return fromWords(p[6]!, p[7]!);
  if (v6.match(ipaddr.IPv6.parse('2002::'), 16)) return fromWords(p[1]!, p[2]!);
  return v6;
}

function rangeOf(address: ipaddr.IPv4 | ipaddr.IPv6): string {
  if (address.kind() === 'ipv4') return (address as ipaddr.IPv4).range();
  const v6 = address as ipaddr.IPv6;
  // `::a.b.c.d` (IPv4-compatible, RFC 4291 §2.5.5.1, deprecated): no longer routed; ipaddr.js calls it unicast.
  if (v6.match(ipaddr.IPv6.parse('::'), 96)) {
    const range = v6.range();
    return range === 'unicast' ? 'ipv4Compatible' : range;
  }
  const range = v6.range();
  // Global unicast is 2000::/3 (RFC 4291 §2.4); anything outside it that ipaddr.js calls unicast is unassigned.
  if (range === 'unicast' && !v6.match(ipaddr.IPv6.parse('2000::'), 3)) return 'reserved';
  return range;
}
