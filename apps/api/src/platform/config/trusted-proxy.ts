/**
 * TRUSTED_PROXIES read by one parser (@fastify/proxy-addr, Fastify's own): each entry is checked with it
 * at config load (`1:2` and `:::::` pass a looser check and would stop the start later with
 * "invalid IP address: 1:2", naming no variable), and the list is compiled once, for Fastify's
 * `trustProxy` and for the requests Fastify answers before routing (`clientAddressOf`).
 */
import proxyAddr from '@fastify/proxy-addr';
import ipaddr from 'ipaddr.js';
import { ConfigError } from './config.error.js';

/** Whether proxy-addr takes `entry` (an address or CIDR range) as a trusted proxy. */
export function isProxyAddrEntry(entry: string): boolean {
  try {
    proxyAddr.compile([entry]);
    return true;
  } catch {
    return false;
  }
}

export type TrustedProxies = ReturnType<typeof proxyAddr.compile>;

/** The trust function of a checked TRUSTED_PROXIES list (an empty list trusts nobody). */
export function compileTrustedProxies(entries: readonly string[]): TrustedProxies {
  return proxyAddr.compile([...entries]);
}

/** The client address as Fastify's `request.ip` gives it: the right-most untrusted hop. */
export function clientAddressOf(raw: Parameters<typeof proxyAddr>[0], trusted: TrustedProxies): string {
  return proxyAddr(raw, trusted);
}

const IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;
const IPV6 = /^[0-9a-fA-F:.]+$/;

/**
 * The widest range a TRUSTED_PROXIES entry may name: /8 for IPv4 (10.0.0.0/8), /32 for IPv6, and /104
 * for IPv4-mapped IPv6 (the /8 of IPv4). A wider one trusts much of the Internet to say who the client
 * is: two /1 ranges, or `::ffff:0:0/96` (proxy-addr compares an IPv4 peer with a mapped range in its
 * mapped form, so that range holds every IPv4 client), trust every IPv4 address as a /0 would.
 */
const WIDEST_PROXY_PREFIX = { v4: 8, v6: 32, mapped: 104, uniqueLocal: 7, linkLocal: 10 } as const;

/**
 * The widest prefix allowed for a range at `address` (see WIDEST_PROXY_PREFIX), in any notation. The
 * private IPv6 blocks (fc00::/7, fe80::/10) may be named whole: nobody on the Internet sends from them.
 */
function widestProxyPrefix(address: string): number {
  const parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv4') return WIDEST_PROXY_PREFIX.v4;
  const v6 = parsed as ipaddr.IPv6;
  if (v6.isIPv4MappedAddress()) return WIDEST_PROXY_PREFIX.mapped;
  const range = v6.range();
  if (range === 'uniqueLocal' || range === 'linkLocal') return WIDEST_PROXY_PREFIX[range];
  return WIDEST_PROXY_PREFIX.v6;
}

/** Validates one CIDR (or bare address) entry of TRUSTED_PROXIES (`name`: the variable, for the error). */
export function trustedProxyEntry(name: string, entry: string): string {
  const [address, prefix, extra] = entry.split('/');
  const isV4 = IPV4.test(address);
  const isV6 = !isV4 && address.includes(':') && IPV6.test(address);
  const maxPrefix = isV4 ? 32 : 128;
  const prefixOk = prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) <= maxPrefix);
  const invalid = () =>
    new ConfigError(name, `must be a comma-separated list of IP addresses or CIDR ranges (got "${entry}")`);
  if ((!isV4 && !isV6) || !prefixOk || extra !== undefined) throw invalid();
  // Before proxy-addr's own check, which refuses a /0 as invalid: the width is the reason to name.
  let widest = 0;
  if (prefix !== undefined) {
    try {
      widest = widestProxyPrefix(address);
    } catch {
      throw invalid();
    }
  }
  if (prefix !== undefined && Number(prefix) < widest) {
    throw new ConfigError(
      name,
      `"${entry}" trusts too wide a range to name the client (at most /${widest} for this kind of address)`,
    );
  }
  if (!isProxyAddrEntry(entry)) throw invalid();
  return entry;
}
