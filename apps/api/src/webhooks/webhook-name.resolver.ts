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
 * DNS name or an address literal), nor are resolv.conf's `search` domains and options (a name is asked
 * as written; each name server gets a second before the next), and `localhost` and names under
 * `.localhost` are loopback without a query (RFC 6761), so they stay refused unless WEBHOOK_ALLOW_LOOPBACK.
 */
import { Resolver } from 'node:dns/promises';

/** The addresses `host` resolves to (IPv4 first), within `timeoutMs`; rejects when it has none. */
export type WebhookNameResolver = (host: string, timeoutMs: number) => Promise<string[]>;

export interface WebhookNameResolverOptions {
  /** Name servers (`address[:port]`); the system's (resolv.conf) when absent. */
  readonly servers?: readonly string[];
}

/** Each name server is asked this long before the next (c-ares doubles it on a further round). */
const PER_SERVER_TIMEOUT_MS = 1000;
/** Once one family has answered with addresses, how long the other is waited for (RFC 8305's spirit). */
const OTHER_FAMILY_GRACE_MS = 250;

export function createWebhookNameResolver(options: WebhookNameResolverOptions = {}): WebhookNameResolver {
  return async (host, timeoutMs) => {
    const name = host.toLowerCase().replace(/\.$/, '');
    if (name === 'localhost' || name.endsWith('.localhost')) return ['127.0.0.1', '::1'];
    // One resolver per lookup, so a cancel ends this lookup's queries only. A second name server gets its
    // turn after a second (a review: the first one silent, given the whole 5 s, left the second unasked);
    // the timer bounds the whole lookup whatever resolv.conf lists.
    const resolver = new Resolver({ timeout: PER_SERVER_TIMEOUT_MS, tries: 3 });
    if (options.servers !== undefined) resolver.setServers([...options.servers]);
    const timers: NodeJS.Timeout[] = [setTimeout(() => resolver.cancel(), timeoutMs)];
    const family = (query: Promise<string[]>) =>
      query.then((addresses) => {
        // A family that answered: the other is given a moment more, not the rest of the 5 s (a name
        // server that never answers AAAA left the request 1 ms; a review).
        if (addresses.length > 0) timers.push(setTimeout(() => resolver.cancel(), OTHER_FAMILY_GRACE_MS));
        return addresses;
      });
    try {
      const [v4, v6] = await Promise.allSettled([
        family(resolver.resolve4(name)),
        family(resolver.resolve6(name)),
      ]);
      const addresses = [
        ...(v4.status === 'fulfilled' ? v4.value : []),
        ...(v6.status === 'fulfilled' ? v6.value : []),
      ];
      if (addresses.length > 0) return addresses;
      const failure = v4.status === 'rejected' ? v4.reason : v6.status === 'rejected' ? v6.reason : null;
      throw failure instanceof Error ? failure : new Error(`${name} has no address`);
    } finally {
      for (const timer of timers) clearTimeout(timer);
    }
  };
}
