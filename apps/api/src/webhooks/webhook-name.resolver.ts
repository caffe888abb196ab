/**
 * Resolves a webhook's host name to its addresses with DNS queries (c-ares, `Resolver.resolve4/6`),
 * never with getaddrinfo (`dns.lookup`).
 *
 * Why: getaddrinfo runs on libuv's thread pool, the pool the server's signature checks and JWT signing
 * run on, and it cannot be cancelled. A probe gave its passport a name whose name server never answers:
 * with the pool at one thread (`scripts/serve.sh` on 2 cores), three `/api/testhola` calls stalled
 * every verify and login on the server for 30 s. c-ares queries run on the event loop and are cancelled
 * at the deadline.
 *
 * What this changes for operators: the hosts file is not read for webhook names (a receiver needs a
 * DNS name or an address literal), and `localhost` and names under `.localhost` are loopback without a
 * query (RFC 6761), so they stay refused unless WEBHOOK_ALLOW_LOOPBACK.
 */
import { Resolver } from 'node:dns/promises';

/** The addresses `host` resolves to (IPv4 first), within `timeoutMs`; rejects when it has none. */
export type WebhookNameResolver = (host: string, timeoutMs: number) => Promise<string[]>;

export interface WebhookNameResolverOptions {
  /** Name servers (`address[:port]`); the system's (resolv.conf) when absent. */
  readonly servers?: readonly string[];
}

export function createWebhookNameResolver(options: WebhookNameResolverOptions = {}): WebhookNameResolver {
  return async (host, timeoutMs) => {
    const name = host.toLowerCase().replace(/\.$/, '');
    if (name === 'localhost' || name.endsWith('.localhost')) return ['127.0.0.1', '::1'];
    // One resolver per lookup, so a cancel ends this lookup's queries only. `timeout` is per query and
    // per server; the timer bounds the whole lookup whatever resolv.conf lists.
    const resolver = new Resolver({ timeout: Math.max(1, Math.ceil(timeoutMs)), tries: 1 });
    if (options.servers !== undefined) resolver.setServers([...options.servers]);
    const timer = setTimeout(() => resolver.cancel(), timeoutMs);
    try {
      const [v4, v6] = await Promise.allSettled([resolver.resolve4(name), resolver.resolve6(name)]);
      const addresses = [
        ...(v4.status === 'fulfilled' ? v4.value : []),
        ...(v6.status === 'fulfilled' ? v6.value : []),
      ];
      if (addresses.length > 0) return addresses;
      const failure = v4.status === 'rejected' ? v4.reason : v6.status === 'rejected' ? v6.reason : null;
      throw failure instanceof Error ? failure : new Error(`${name} has no address`);
    } finally {
      clearTimeout(timer);
    }
  };
}
