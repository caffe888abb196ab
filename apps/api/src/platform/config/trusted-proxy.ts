/**
 * One TRUSTED_PROXIES entry, checked by the parser Fastify's `trustProxy` compiles it with
 * (@fastify/proxy-addr): a probe's `1:2` and `:::::` passed a looser check here and stopped the start
 * later with "invalid IP address: 1:2", naming no variable.
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
