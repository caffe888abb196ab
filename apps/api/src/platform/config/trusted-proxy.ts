/**
 * TRUSTED_PROXIES read by one parser (@fastify/proxy-addr, Fastify's own): each entry is checked with it
 * at config load (`1:2` and `:::::` pass a looser check and would stop the start later with
 * "invalid IP address: 1:2", naming no variable), and the list is compiled once, for Fastify's
 * `trustProxy` and for the requests Fastify answers before routing (`clientAddressOf`).
 */
import proxyAddr from '@fastify/proxy-addr';

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
