/**
 * @module webhook/ip-address
 * IPv4/IPv6 literal parsing, classification and CIDR membership for outbound webhook targets
 * (resolutions §10: loopback, private, link-local, CGNAT, multicast and metadata addresses are
 * refused). Pure: DNS resolution is the app's job; it classifies every address a name resolves to.
 *
 * Classification follows the IANA special-purpose registries. IPv6 forms that embed an IPv4 address
 * (mapped `::ffff:0:0/96`, NAT64 `64:ff9b::/96`, 6to4 `2002::/16`) take the class of the embedded
 * address, so `::ffff:127.0.0.1` is loopback. Anything that is neither public nor one of the named
 * classes (documentation, benchmarking, reserved, broadcast, discard) is `reserved`: refused too.
 */

export type AddressClass =
  | 'public'
  | 'unspecified'
  | 'loopback'
  | 'private'
  | 'link-local'
  | 'cgnat'
  | 'multicast'
  | 'metadata'
  | 'reserved';

export interface IpAddress {
  readonly version: 4 | 6;
  /** The address as an unsigned integer (32 or 128 bits). */
  readonly value: bigint;
}

export interface Cidr {
  readonly version: 4 | 6;
  readonly network: bigint;
  readonly prefix: number;
}

const IPV4_PART = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/;

/** Strict dotted-quad IPv4 (no leading zeros, no shorthand); null otherwise. */
export function parseIpv4(text: string): IpAddress | null {
  const parts = text.split('.');
  if (parts.length !== 4 || !parts.every((p) => IPV4_PART.test(p))) return null;
  return { version: 4, value: parts.reduce((acc, p) => (acc << 8n) | BigInt(Number(p)), 0n) };
}

/** IPv6 text (RFC 4291 §2.2, with `::` and a trailing dotted quad; brackets and a zone id are accepted). */
export function parseIpv6(text: string): IpAddress | null {
  let s = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
  const zone = s.indexOf('%');
  if (zone >= 0) s = s.slice(0, zone);
  if (s.length === 0 || s.length > 45) return null;
  const halves = s.split('::');
  if (halves.length > 2) return null;
  const groupsOf = (part: string): number[] | null => {
    if (part === '') return [];
    const fields = part.split(':');
    const out: number[] = [];
    for (let i = 0; i < fields.length; i++) {
      const field = fields[i];
      if (i === fields.length - 1 && field.includes('.')) {
        const v4 = parseIpv4(field);
        if (!v4) return null;
        out.push(Number(v4.value >> 16n), Number(v4.value & 0xffffn));
      } else if (/^[0-9a-fA-F]{1,4}$/.test(field)) {
        out.push(parseInt(field, 16));
      } else {
        return null;
      }
    }
    return out;
  };
  const head = groupsOf(halves[0]);
  const tail = halves.length === 2 ? groupsOf(halves[1]) : [];
  if (!head || !tail) return null;
  let groups: number[];
  if (halves.length === 2) {
    const missing = 8 - head.length - tail.length;
    if (missing < 1) return null;
    groups = [...head, ...new Array<number>(missing).fill(0), ...tail];
  } else {
    groups = head;
  }
  if (groups.length !== 8) return null;
  return { version: 6, value: groups.reduce((acc, g) => (acc << 16n) | BigInt(g), 0n) };
}

/** Either family; IPv6 may be bracketed (as in URLs). */
export function parseIpAddress(text: string): IpAddress | null {
  return parseIpv4(text) ?? parseIpv6(text);
}

export function formatIpAddress(ip: IpAddress): string {
  if (ip.version === 4)
    return [24n, 16n, 8n, 0n].map((shift) => String((ip.value >> shift) & 0xffn)).join('.');
  const groups: string[] = [];
  for (let shift = 112n; shift >= 0n; shift -= 16n) groups.push(((ip.value >> shift) & 0xffffn).toString(16));
  return groups.join(':');
}

/** `a.b.c.d/n` or `x::/n`; a bare address is a /32 or /128. Host bits must be zero. */
export function parseCidr(text: string): Cidr | null {
  const slash = text.indexOf('/');
  const ip = parseIpAddress(slash >= 0 ? text.slice(0, slash) : text);
  if (!ip) return null;
  const bits = ip.version === 4 ? 32 : 128;
  const prefixText = slash >= 0 ? text.slice(slash + 1) : String(bits);
  if (!/^\d{1,3}$/.test(prefixText)) return null;
  const prefix = Number(prefixText);
  if (prefix > bits) return null;
  if ((ip.value & hostMask(ip.version, prefix)) !== 0n) return null;
  return { version: ip.version, network: ip.value, prefix };
}

/** A comma- or whitespace-separated CIDR list; null when any entry is invalid or the list is empty. */
export function parseCidrList(text: string): Cidr[] | null {
  const entries = text.split(/[\s,]+/).filter((e) => e !== '');
  if (entries.length === 0) return null;
  const cidrs = entries.map(parseCidr);
  return cidrs.every((c): c is Cidr => c !== null) ? cidrs : null;
}

/** Membership; IPv4-mapped IPv6 addresses match IPv4 ranges. */
export function isInCidr(ip: IpAddress, cidr: Cidr): boolean {
  const address = unmapIpv4(ip);
  if (address.version !== cidr.version) return false;
  return (address.value & ~hostMask(cidr.version, cidr.prefix) & allBits(cidr.version)) === cidr.network;
}

/** `::ffff:a.b.c.d` → `a.b.c.d`; anything else unchanged. */
export function unmapIpv4(ip: IpAddress): IpAddress {
  if (ip.version === 6 && ip.value >> 32n === 0xffffn) return { version: 4, value: ip.value & 0xffffffffn };
  return ip;
}

interface Range {
  readonly cidr: Cidr;
  readonly cls: AddressClass;
}

const range = (text: string, cls: AddressClass): Range => ({ cidr: parseCidr(text)!, cls });

/** First match wins: specific entries (metadata hosts) precede the blocks that contain them. */
const IPV4_RANGES: readonly Range[] = [
  range('169.254.169.254/32', 'metadata'), // AWS, GCP, Azure, OpenStack, DigitalOcean …
  range('169.254.170.2/32', 'metadata'), // AWS ECS task metadata
  range('100.100.100.200/32', 'metadata'), // Alibaba Cloud
  range('192.0.0.192/32', 'metadata'), // Oracle Cloud
  range('0.0.0.0/8', 'unspecified'),
  range('10.0.0.0/8', 'private'),
  range('100.64.0.0/10', 'cgnat'),
  range('127.0.0.0/8', 'loopback'),
  range('169.254.0.0/16', 'link-local'),
  range('172.16.0.0/12', 'private'),
  range('192.0.0.0/24', 'reserved'),
  range('192.0.2.0/24', 'reserved'),
  range('192.88.99.0/24', 'reserved'),
  range('192.168.0.0/16', 'private'),
  range('198.18.0.0/15', 'reserved'),
  range('198.51.100.0/24', 'reserved'),
  range('203.0.113.0/24', 'reserved'),
  range('224.0.0.0/4', 'multicast'),
  range('240.0.0.0/4', 'reserved'), // includes 255.255.255.255
];

const IPV6_RANGES: readonly Range[] = [
  range('fd00:ec2::254/128', 'metadata'), // AWS IPv6 instance metadata
  range('::/128', 'unspecified'),
  range('::1/128', 'loopback'),
  range('::/96', 'reserved'), // deprecated IPv4-compatible
  range('100::/64', 'reserved'), // discard
  range('2001:db8::/32', 'reserved'), // documentation
  range('2001::/23', 'reserved'), // IETF protocol assignments (Teredo and others)
  range('fc00::/7', 'private'), // unique local
  range('fe80::/10', 'link-local'),
  range('fec0::/10', 'private'), // deprecated site-local
  range('ff00::/8', 'multicast'),
];

/** Class of a parsed address. */
export function classifyIp(ip: IpAddress): AddressClass {
  if (ip.version === 6) {
    const embedded = embeddedIpv4(ip);
    if (embedded) return classifyIp(embedded);
  }
  const ranges = ip.version === 4 ? IPV4_RANGES : IPV6_RANGES;
  return ranges.find((r) => isInCidr(ip, r.cidr))?.cls ?? 'public';
}

/** Class of an address literal; null when the text is not an IP address. */
export function classifyIpAddress(text: string): AddressClass | null {
  const ip = parseIpAddress(text);
  return ip ? classifyIp(ip) : null;
}

function embeddedIpv4(ip: IpAddress): IpAddress | null {
  const v = ip.value;
  if (v >> 32n === 0xffffn) return { version: 4, value: v & 0xffffffffn }; // ::ffff:0:0/96
  if (v >> 32n === 0x64ff9b0000000000000000n) return { version: 4, value: v & 0xffffffffn }; // 64:ff9b::/96
  if (v >> 112n === 0x2002n) return { version: 4, value: (v >> 80n) & 0xffffffffn }; // 2002::/16
  return null;
}

function allBits(version: 4 | 6): bigint {
  return version === 4 ? 0xffffffffn : (1n << 128n) - 1n;
}

function hostMask(version: 4 | 6, prefix: number): bigint {
  const bits = version === 4 ? 32 : 128;
  return (1n << BigInt(bits - prefix)) - 1n;
}
