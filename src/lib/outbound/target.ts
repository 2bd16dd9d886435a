/**
 * A webhook's target: its URL checked when the webhook is created, and its host resolved and checked
 * again at every delivery attempt (docs/api.md#webhooks), so a host name that resolved to a public address
 * at creation cannot later be pointed (DNS rebinding) at the service's own network.
 *
 * Rules: `https:` only, and every address the host resolves to must be public ({@link checkAddress});
 * `OUTBOUND_ALLOW_PRIVATE_NETWORKS=true` also allows `http:` and loopback or private addresses. A URL
 * with a user name or password is refused (the signature authenticates deliveries, and the URL is
 * shown back in listings).
 */
import { promises as dns } from 'node:dns';
import { isIP } from 'node:net';
import { checkAddress } from './addresses.js';
import { problem } from '../problems.js';

/** Longest webhook URL accepted, characters. */
export const MAX_WEBHOOK_URL_LENGTH = 2048;

/** One resolved address. */
export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/**
 * Resolves a host name to every address it has (A and AAAA).
 * @throws an Error with `code` `ENOTFOUND`, `ENODATA`, `EAI_AGAIN`, ... when it cannot
 */
export type HostResolver = (hostname: string) => Promise<ResolvedAddress[]>;

/** The operating system's resolver (`getaddrinfo`, as every Node.js connection uses). */
export const systemResolver: HostResolver = async (hostname) => {
  const answers = await dns.lookup(hostname, { all: true, verbatim: true });
  return answers.map(({ address, family }) => ({ address, family: family === 6 ? 6 : 4 }));
};

/**
 * A resolver that asks the given DNS servers directly (A and AAAA queries), bypassing the system's
 * configuration: for a service whose operator wants webhook hosts resolved by a particular server.
 * @param servers `ip` or `ip:port` entries, as `dns.setServers` takes them
 */
export function dnsServerResolver(servers: string[]): HostResolver {
  const resolver = new dns.Resolver({ timeout: 2000, tries: 2 });
  resolver.setServers(servers);
  return async (hostname) => {
    const [v4, v6] = await Promise.allSettled([resolver.resolve4(hostname), resolver.resolve6(hostname)]);
    const addresses: ResolvedAddress[] = [
      ...(v4.status === 'fulfilled' ? v4.value.map((address) => ({ address, family: 4 as const })) : []),
      ...(v6.status === 'fulfilled' ? v6.value.map((address) => ({ address, family: 6 as const })) : []),
    ];
    if (addresses.length > 0) return addresses;
    throw v4.status === 'rejected' ? v4.reason : v6.status === 'rejected' ? v6.reason : Object.assign(new Error(`${hostname} has no addresses`), { code: 'ENODATA' });
  };
}

/** How long a host name may take to resolve, milliseconds (the 10 s delivery deadline is the request's own). */
export const RESOLVE_TIMEOUT_MS = 5_000;

export interface TargetPolicy {
  /** `OUTBOUND_ALLOW_PRIVATE_NETWORKS`: allow `http:` and loopback or private addresses. */
  allowPrivate: boolean;
  /** Resolver of host names; the system's by default. */
  resolve?: HostResolver;
  /** Resolution deadline, milliseconds; {@link RESOLVE_TIMEOUT_MS} by default. */
  resolveTimeoutMs?: number;
}

/** Why a target was refused: a sentence for the deliveries log or a 400. */
export class TargetRefusedError extends Error {
  constructor(
    message: string,
    /** `not-url`, `scheme`, `credentials`, `address`, `unresolvable`. */
    readonly reason: 'not-url' | 'scheme' | 'credentials' | 'address' | 'unresolvable',
  ) {
    super(message);
    this.name = 'TargetRefusedError';
  }
}

/**
 * Parses a webhook URL and checks its form (scheme, no credentials).
 * @returns the URL, normalized by the WHATWG URL parser (so `http://2130706433/` reads `127.0.0.1`)
 * @throws TargetRefusedError `not-url`, `scheme` or `credentials`
 */
export function parseTargetUrl(text: string, policy: Pick<TargetPolicy, 'allowPrivate'>): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new TargetRefusedError('is not an absolute URL', 'not-url');
  }
  if (url.protocol !== 'https:' && !(policy.allowPrivate && url.protocol === 'http:')) {
    throw new TargetRefusedError(policy.allowPrivate ? 'must be an https: or http: URL' : 'must be an https: URL', 'scheme');
  }
  if (url.username !== '' || url.password !== '') throw new TargetRefusedError('must not contain a user name or password', 'credentials');
  if (url.hostname === '') throw new TargetRefusedError('has no host', 'not-url');
  return url;
}

/** The host of a URL as a resolver or `isIP` takes it: IPv6 literals without their brackets. */
export function hostOf(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, '');
}

/**
 * Resolves a host and checks every address it resolves to: one refused address refuses the host,
 * so a name with a public and a private record cannot be used to reach the private one.
 * @param host a host name or an IP literal (not resolved)
 * @returns the checked addresses, in the resolver's order (connect to one of these, not to the name)
 * @throws TargetRefusedError `address` (naming the address and its range) or `unresolvable`
 */
export async function resolveTarget(host: string, policy: TargetPolicy): Promise<ResolvedAddress[]> {
  let addresses: ResolvedAddress[];
  if (isIP(host) !== 0) {
    addresses = [{ address: host, family: isIP(host) === 6 ? 6 : 4 }];
  } else {
    const timeoutMs = policy.resolveTimeoutMs ?? RESOLVE_TIMEOUT_MS;
    let timer: NodeJS.Timeout | undefined;
    try {
      addresses = await Promise.race([
        (policy.resolve ?? systemResolver)(host),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(Object.assign(new Error('resolution timed out'), { code: 'ETIMEOUT' })), timeoutMs);
        }),
      ]);
    } catch (error) {
      const code = (error as { code?: unknown } | null)?.code;
      throw new TargetRefusedError(`the host ${host} could not be resolved${typeof code === 'string' ? ` (${code})` : ''}`, 'unresolvable');
    } finally {
      clearTimeout(timer);
    }
    if (addresses.length === 0) throw new TargetRefusedError(`the host ${host} could not be resolved (no addresses)`, 'unresolvable');
  }
  for (const { address } of addresses) {
    const verdict = checkAddress(address, { allowPrivate: policy.allowPrivate });
    if (verdict.refusal !== null) {
      const subject = isIP(host) !== 0 ? `${verdict.address} is` : `the host ${host} resolves to ${verdict.address},`;
      throw new TargetRefusedError(`${subject} ${verdict.refusal}, which webhooks may not reach`, 'address');
    }
  }
  return addresses;
}

/**
 * The check at creation: form, then the addresses the host resolves to now.
 * @param text the `url` of the request (already at most {@link MAX_WEBHOOK_URL_LENGTH} characters)
 * @returns the normalized URL text
 * @throws AppError 400 `invalid-webhook-url` naming what is wrong (`url` in `errors`)
 */
export async function checkWebhookUrl(text: string, policy: TargetPolicy): Promise<string> {
  try {
    const url = parseTargetUrl(text, policy);
    await resolveTarget(hostOf(url), policy);
    return url.href;
  } catch (error) {
    if (!(error instanceof TargetRefusedError)) throw error;
    throw problem('invalidWebhookUrl', { detail: `The webhook url ${error.message}.`, errors: [{ path: 'url', message: error.message }] });
  }
}
