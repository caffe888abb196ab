/**
 * @module webhook/webhook-target
 * Where a webhook may go (docs/protocol.md §10), decided without the network: the URL rules, and the
 * address rules the app applies to every address the target's name resolves to.
 *
 * - `webhook_url` is a base URL; without a scheme it is `https://`. Refused: schemes other than
 *   http/https, userinfo, more than 2048 characters, a query or fragment (the hook path is appended,
 *   so neither could survive), an unparsable URL.
 * - The targets are `<base>/hooks/agent` and `<base>/hooks/wake`.
 * - An address is allowed when its class (told by the `AddressClassifier` port) is `public` (or
 *   `loopback` when the test setting allows it) and, when `webhook_cidr` is set, it lies in one of its
 *   ranges. An unreadable `webhook_cidr`
 *   allows nothing (fail closed). The app connects to the allowed address it checked, never
 *   re-resolving the name (no DNS rebinding window).
 */
import { type AddressClass, type AddressClassifier } from '../ports/address-classifier.port.js';
import { withoutTrailing } from '../codecs/trailing.js';

export const WEBHOOK_URL_MAX_LENGTH = 2048;
export const WEBHOOK_HOOK_PATHS = Object.freeze(['/hooks/agent', '/hooks/wake'] as const);

export type WebhookTargetRejection =
  | 'empty'
  | 'too_long'
  | 'unparsable'
  | 'scheme_not_http'
  | 'userinfo'
  | 'query_or_fragment'
  | 'port_not_allowed'
  | 'address_not_allowed';

export interface WebhookTarget {
  /** Normalised base URL (no trailing slash). */
  readonly baseUrl: string;
  /** The host as the URL parser normalised it (IPv6 in brackets). */
  readonly host: string;
  readonly port: number;
  readonly protocol: 'http:' | 'https:';
  /** `<base>/hooks/agent`, `<base>/hooks/wake`. */
  readonly urls: readonly string[];
  /** Set when the host is an IP literal: no DNS lookup is needed. */
  readonly literalAddress: string | null;
}

export type WebhookTargetResult =
  | { readonly ok: true; readonly target: WebhookTarget }
  | { readonly ok: false; readonly reason: WebhookTargetRejection; readonly addressClass?: AddressClass };

export interface WebhookAddressPolicy {
  /** Says what an address is (the app's ipaddr.js adapter). */
  readonly classifier: AddressClassifier;
  /** Test setting: let loopback addresses through. */
  readonly allowLoopback?: boolean;
  /** The passport's `webhook_cidr`, when set. */
  readonly webhookCidr?: string | null;
}

/** A trimmed `webhook_url` as a URL: `https://` is assumed when it names no scheme (`host:port` is not one). */
export function webhookUrlWithScheme(text: string): string {
  return /^[A-Za-z][A-Za-z0-9+.-]*:/.test(text) && !/^[^/:]+:\d+(\/|$)/.test(text) ? text : `https://${text}`;
}

function isPlainWebhookUrl(text: string, withScheme: string): boolean {
  if (/^[/\\]/.test(text) || /[\s\p{Cc}]/u.test(text)) return false;
  // Another scheme is refused for what it is (scheme_not_http) by the caller.
  return !/^https?:/i.test(withScheme) || /^https?:\/\/[^/\\]/i.test(withScheme);
}

/**
 * A `webhook_url` as the http(s) URL the sender posts under (with `https://` assumed for a bare host), or
 * null when the sender would refuse it as unreadable or not http(s); for showing and checking it (the
 * address rules, which need a resolver, are the sender's own).
 */
export function webhookUrlOf(value: string | null | undefined): string | null {
  // The sender's own rules, less the address rules (they need the resolver and the passport's
  // webhook_cidr): derived from resolveWebhookTarget rather than restated, so that nothing the sender
  // refuses (userinfo, a hook URL past 2048 characters, …) is shown or published (a review).
  const verdict = resolveWebhookTarget(value, NO_ADDRESS_RULES);
  return verdict.ok ? webhookUrlWithScheme((value as string).trim()) : null;
}

/** A policy that classifies no address: every literal passes, as a name would before its lookup. */
const NO_ADDRESS_RULES: WebhookAddressPolicy = {
  classifier: { classify: () => null, inCidrList: () => true },
};

/** Validates `webhook_url` and builds the hook URLs; IP-literal hosts are checked against the policy here. */
export function resolveWebhookTarget(webhookUrl: unknown, policy: WebhookAddressPolicy): WebhookTargetResult {
  if (typeof webhookUrl !== 'string' || webhookUrl.trim() === '') return { ok: false, reason: 'empty' };
  const text = webhookUrl.trim();
  if (text.length > WEBHOOK_URL_MAX_LENGTH) return { ok: false, reason: 'too_long' };
  const withScheme = webhookUrlWithScheme(text);
  // Only what reads one way: no leading slash or backslash (the URL parser would find a host behind it),
  // a scheme written with `//` and a host right after, and no whitespace or control inside (the parser
  // drops tabs and newlines: "ht\ttps://" was https). The profile, the DID document and signclient read
  // `webhook_url` with this same rule, so none of them shows no webhook where this one posts.
  if (!isPlainWebhookUrl(text, withScheme)) return { ok: false, reason: 'unparsable' };
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    return { ok: false, reason: 'unparsable' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return { ok: false, reason: 'scheme_not_http' };
  if (url.username !== '' || url.password !== '' || /^[a-z]+:\/\/[^/?#]*@/i.test(withScheme))
    return { ok: false, reason: 'userinfo' };
  if (url.search !== '' || url.hash !== '' || /[?#]/.test(withScheme))
    return { ok: false, reason: 'query_or_fragment' };
  if (url.hostname === '') return { ok: false, reason: 'unparsable' };
  // Port 0 is no port anyone listens on (the URL parser takes http://8.8.8.8:0/).
  if (url.port === '0') return { ok: false, reason: 'port_not_allowed' };

  const baseUrl = `${url.origin}${withoutTrailing(url.pathname, '/')}`;
  const urls = WEBHOOK_HOOK_PATHS.map((path) => `${baseUrl}${path}`);
  if (urls.some((u) => u.length > WEBHOOK_URL_MAX_LENGTH)) return { ok: false, reason: 'too_long' };

  // The WHATWG parser has already turned 0x7f.1, 2130706433 and friends into dotted quads.
  const literal = policy.classifier.classify(url.hostname) !== null;
  if (literal) {
    const verdict = checkWebhookAddress(url.hostname, policy);
    if (!verdict.allowed)
      return { ok: false, reason: 'address_not_allowed', addressClass: verdict.addressClass ?? undefined };
  }
  const port = url.port !== '' ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
  return {
    ok: true,
    target: {
      baseUrl,
      host: url.hostname,
      port,
      protocol: url.protocol,
      urls,
      literalAddress: literal ? url.hostname.replace(/^\[|\]$/g, '') : null,
    },
  };
}

/** Whether one (resolved) address may receive a webhook under the policy. */
export function checkWebhookAddress(
  address: string,
  policy: WebhookAddressPolicy,
): {
  readonly allowed: boolean;
  readonly addressClass: AddressClass | null;
  readonly outsideCidr?: boolean;
  /** `webhook_cidr` could not be read (a malformed entry): nothing is allowed, fail closed. */
  readonly cidrUnreadable?: boolean;
} {
  const addressClass = policy.classifier.classify(address);
  if (addressClass === null) return { allowed: false, addressClass: null };
  const classAllowed =
    addressClass === 'public' || (addressClass === 'loopback' && policy.allowLoopback === true);
  if (!classAllowed) return { allowed: false, addressClass };
  if (policy.webhookCidr !== undefined && policy.webhookCidr !== null && policy.webhookCidr.trim() !== '') {
    const inside = policy.classifier.inCidrList(address, policy.webhookCidr);
    if (inside === null) return { allowed: false, addressClass, cidrUnreadable: true };
    if (!inside) return { allowed: false, addressClass, outsideCidr: true };
  }
  return { allowed: true, addressClass };
}

/** The first allowed address among those a name resolved to; null when none is allowed. */
export function pickWebhookAddress(
  addresses: readonly string[],
  policy: WebhookAddressPolicy,
): string | null {
  return addresses.find((a) => checkWebhookAddress(a, policy).allowed) ?? null;
}

/**
 * The first allowed address of each family among those a name resolved to, in the order given (at most
 * two: one IPv4, one IPv6); empty when none is allowed. A sender connects to the first and, when that
 * connect fails, to the other: a dual-stack receiver is still reached from a host with one family only.
 */
export function pickWebhookAddresses(addresses: readonly string[], policy: WebhookAddressPolicy): string[] {
  const picked: string[] = [];
  for (const family of [false, true]) {
    const first = addresses.find((a) => a.includes(':') === family && checkWebhookAddress(a, policy).allowed);
    if (first !== undefined) picked.push(first);
  }
  return picked.sort((a, b) => addresses.indexOf(a) - addresses.indexOf(b));
}
