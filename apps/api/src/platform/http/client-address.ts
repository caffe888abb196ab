/**
 * The key per-address limits count under (the public rate limit, the MCP burst, tool calls and session
 * caps): an IPv4 address as it is; an IPv6 address by its /64 prefix. One IPv6 subscriber is routinely
 * given a whole /64 (2^64 addresses), so keying the full address would let one client be as many clients
 * as it liked (one /64 could hold the MCP session cap with ever new "addresses"). An
 * IPv4-mapped IPv6 address (`::ffff:192.0.2.1`, a dual-stack socket's form) is its IPv4 address.
 *
 * What a trusted proxy forwards in another form names the address it carries: `1.2.3.4:80` is
 * `1.2.3.4`, `[2001:db8::1]:443` is that address (some proxies add the port). A value that is no address
 * at all (`not-an-ip`, a 6000-character string: a proxy passing a client's own header on) is keyed as
 * one shared `INVALID_ADDRESS_KEY`: such values cannot make one client as many clients as it likes, nor
 * fill the stores with long keys.
 */
import { isIPv4, isIPv6 } from 'node:net';
import ipaddr from 'ipaddr.js';

export const INVALID_ADDRESS_KEY = 'invalid-address';

/** Keys of recent IPv6 addresses: parsing one costs ~2.4 µs, on every request. Cleared when full. */
const ipv6Keys = new Map<string, string>();
const IPV6_KEYS_MAX = 4096;

/** `ip` as a per-address limit key: IPv4 unchanged, IPv6 as `<first four groups>::/64`. */
export function clientAddressKey(ip: string): string {
  // IPv4, the common case, without parsing; and IPv4 as a dual-stack socket reports it (`HOST=::`).
  if (!ip.includes(':')) return isIPv4(ip) ? ip : forwardedFormKey(ip);
  if (ip.startsWith('::ffff:') && !ip.includes(':', 7))
    return isIPv4(ip.slice(7)) ? ip.slice(7) : INVALID_ADDRESS_KEY;
  // Long values (an address with a 5000-character zone id) are keyed but not remembered.
  if (ip.length > 64) {
    const key = ipv6Key(ip);
    return key === INVALID_ADDRESS_KEY ? forwardedFormKey(ip) : key;
  }
  let key = ipv6Keys.get(ip);
  if (key === undefined) {
    key = ipv6Key(ip);
    // Only addresses are remembered: values that are none would fill the map with long strings.
    if (key === INVALID_ADDRESS_KEY) return forwardedFormKey(ip);
    if (ipv6Keys.size >= IPV6_KEYS_MAX) ipv6Keys.clear();
    ipv6Keys.set(ip, key);
  }
  return key;
}

/**
 * The forms some proxies forward besides a bare address: `a.b.c.d:port`, `[v6]` and
 * `[v6]:port`, with spaces around. They name the address they carry (without its port), so clients
 * behind such a proxy keep their own keys; anything else is INVALID_ADDRESS_KEY.
 */
function forwardedFormKey(value: string): string {
  if (value.length > 64) return INVALID_ADDRESS_KEY;
  const text = value.trim();
  const v4WithPort = /^(\d{1,3}(?:\.\d{1,3}){3}):\d{1,5}$/.exec(text);
  if (v4WithPort && isIPv4(v4WithPort[1])) return v4WithPort[1];
  const bracketed = /^\[([0-9A-Fa-f:.]+(?:%[\w.-]+)?)\](?::\d{1,5})?$/.exec(text);
  if (bracketed && (isIPv6(bracketed[1].split('%')[0]) || isIPv4(bracketed[1])))
    return clientAddressKey(bracketed[1]);
  if (text !== value && (isIPv4(text) || isIPv6(text.split('%')[0]))) return clientAddressKey(text);
  return INVALID_ADDRESS_KEY;
}

function ipv6Key(ip: string): string {
  let address: ipaddr.IPv6;
  try {
    address = ipaddr.IPv6.parse(ip);
  } catch {
    return INVALID_ADDRESS_KEY;
  }
  if (address.isIPv4MappedAddress()) return address.toIPv4Address().toString();
  const prefix = address.parts.slice(0, 4).map((part) => part.toString(16));
  return `${prefix.join(':')}::/64`;
}
