/**
 * The `AddressClassifier` of webhook targets on ipaddr.js: its `range()` names the IANA special-purpose
 * ranges (private, CGNAT, link-local, unique local, IPv4-mapped and -translated, NAT64 well-known and
 * local-use, 6to4, Teredo, documentation, benchmarking…), kept up to date by its maintainers.
 *
 * Hand-written here, because the library names these ranges but does not do it:
 * - the IPv4 address inside an embedding IPv6 form. Every candidate position is classified and the
 *   worst class wins: `::ffff:0:7f00:1` (IPv4-translated), `64:ff9b:1::a9fe:a9fe` (local-use NAT64,
 *   whose IPv4 sits at one of four RFC 6052 positions depending on the operator's prefix length),
 *   `2002:7f00:1::` (6to4) and Teredo (server and de-obfuscated client) are refused like 127.0.0.1;
 * - the deprecated IPv4-compatible block `::/96`, which ipaddr.js calls plain unicast: reserved;
 * - the `metadata` label of the cloud metadata hosts (already refused by their enclosing class);
 * - `this-host`: a public address on one of this host's own interfaces (a probe reached a service bound
 *   to all addresses through the host's public address, which a firewall would have kept from outside).
 */
import { networkInterfaces } from 'node:os';
import ipaddr from 'ipaddr.js';
import { type AddressClass, type AddressClassifier } from '@passport/core/ports';

type IpAddress = ipaddr.IPv4 | ipaddr.IPv6;

const METADATA_HOSTS: ReadonlySet<string> = new Set([
  '169.254.169.254', // AWS, GCP, Azure, OpenStack, DigitalOcean …
  '169.254.170.2', // AWS ECS task metadata
  '100.100.100.200', // Alibaba Cloud
  '192.0.0.192', // Oracle Cloud
  'fd00:ec2::254', // AWS IPv6 instance metadata
]);

const IPV4_CLASSES: Record<string, AddressClass> = {
  unicast: 'public',
  // AS112 and AMT relays are globally reachable services (IANA special-purpose registry).
  as112: 'public',
  amt: 'public',
  unspecified: 'unspecified',
  broadcast: 'reserved',
  multicast: 'multicast',
  linkLocal: 'link-local',
  loopback: 'loopback',
  carrierGradeNat: 'cgnat',
  private: 'private',
  reserved: 'reserved',
};

const IPV6_CLASSES: Record<string, AddressClass> = {
  unicast: 'public',
  as112v6: 'public',
  amt: 'public',
  unspecified: 'unspecified',
  linkLocal: 'link-local',
  multicast: 'multicast',
  loopback: 'loopback',
  uniqueLocal: 'private',
  deprecatedSiteLocal: 'private',
  discard: 'reserved',
  benchmarking: 'reserved',
  deprecatedOrchid: 'reserved',
  orchid2: 'reserved',
  droneRemoteIdProtocolEntityTags: 'reserved',
  segmentRouting: 'reserved',
  reserved: 'reserved',
};

/** Ranges whose addresses carry an IPv4 address; they take the class of what they carry. */
const EMBEDDING_RANGES: ReadonlySet<string> = new Set(['ipv4Mapped', 'rfc6145', 'rfc6052', '6to4', 'teredo']);

/** An IP literal in strict form (IPv6 may be bracketed or carry a zone); null otherwise. */
export function parseAddress(text: string): IpAddress | null {
  let s = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
  const zone = s.indexOf('%');
  if (zone >= 0) s = s.slice(0, zone);
  // Strict forms only: ipaddr.parse also reads `0x7f.1` and `2130706433` as IPv4, which a URL parser
  // has normalised before this is called, and which a resolver never returns.
  if (ipaddr.IPv4.isValidFourPartDecimal(s)) return ipaddr.IPv4.parse(s);
  if (s.includes(':') && ipaddr.IPv6.isValid(s)) return ipaddr.IPv6.parse(s);
  return null;
}

/**
 * The class of `ip`; `ownAddresses` (canonical strings) are the host's own, whose public ones are
 * `this-host`.
 */
export function classifyAddress(ip: IpAddress, ownAddresses: ReadonlySet<string> = new Set()): AddressClass {
  const addressClass = classifyRange(ip, ownAddresses);
  return addressClass === 'public' && ownAddresses.has(ip.toString()) ? 'this-host' : addressClass;
}

function classifyRange(ip: IpAddress, ownAddresses: ReadonlySet<string>): AddressClass {
  if (METADATA_HOSTS.has(ip.toString())) return 'metadata';
  if (ip.kind() === 'ipv4') return IPV4_CLASSES[ip.range()] ?? 'reserved';
  const v6 = ip as ipaddr.IPv6;
  const range = v6.range();
  if (EMBEDDING_RANGES.has(range)) {
    // Several candidates (local-use NAT64, Teredo): the first refused one decides.
    const carried = embeddedIpv4(v6, range).map((v4) => classifyAddress(v4, ownAddresses));
    return carried.find((c) => c !== 'public') ?? 'public';
  }
  // ::/96 (IPv4-compatible, deprecated): ipaddr.js has no name for it.
  if (range === 'unicast' && v6.parts.slice(0, 6).every((p) => p === 0)) return 'reserved';
  return IPV6_CLASSES[range] ?? 'reserved';
}

/** This host's interface addresses, canonical; read at each use, since interfaces come and go. */
export function hostInterfaceAddresses(): ReadonlySet<string> {
  const own = new Set<string>();
  for (const entries of Object.values(networkInterfaces()))
    for (const entry of entries ?? []) {
      const ip = parseAddress(entry.address);
      if (ip) own.add(ip.toString());
    }
  return own;
}

/** The IPv4 addresses an embedding IPv6 address may carry (RFC 4291, 6052, 6145, 3056, 4380). */
function embeddedIpv4(ip: ipaddr.IPv6, range: string): ipaddr.IPv4[] {
  const bytes = ip.toByteArray();
  const at = (...indexes: number[]) => new ipaddr.IPv4(indexes.map((i) => bytes[i]));
  switch (range) {
    case '6to4':
      return [at(2, 3, 4, 5)];
    case 'teredo': {
      // The server's address, and the client's, which Teredo stores with every bit inverted.
      const client = new ipaddr.IPv4([12, 13, 14, 15].map((i) => bytes[i] ^ 0xff));
      return [at(4, 5, 6, 7), client];
    }
    case 'rfc6052':
      // 64:ff9b::/96 carries it in the last 32 bits; inside the local-use 64:ff9b:1::/48 the operator's
      // prefix may be /48, /56, /64 or /96 (bits 64–71 are skipped), so each position is a candidate
      // (the /96 reading first: it names the class reported when several are refused).
      if (ip.parts[2] !== 0x1) return [at(12, 13, 14, 15)];
      return [at(12, 13, 14, 15), at(6, 7, 9, 10), at(7, 9, 10, 11), at(9, 10, 11, 12)];
    default:
      // IPv4-mapped ::ffff:0:0/96 and IPv4-translated ::ffff:0:0:0/96: the last 32 bits.
      return [at(12, 13, 14, 15)];
  }
}

function inCidrList(address: string, cidrList: string): boolean | null {
  const ip = parseAddress(address);
  if (!ip) return null;
  const entries = cidrList.split(/[\s,]+/).filter((e) => e !== '');
  if (entries.length === 0) return null;
  const ranges: [IpAddress, number][] = [];
  for (const entry of entries) {
    const slash = entry.indexOf('/');
    const network = parseAddress(slash >= 0 ? entry.slice(0, slash) : entry);
    if (!network) return null;
    const bits = network.kind() === 'ipv4' ? 32 : 128;
    const prefixText = slash >= 0 ? entry.slice(slash + 1) : String(bits);
    if (!/^\d{1,3}$/.test(prefixText) || Number(prefixText) > bits) return null;
    const prefix = Number(prefixText);
    // Host bits must be zero: `10.0.0.1/8` is a typo more often than an intent.
    const base =
      network.kind() === 'ipv4'
        ? ipaddr.IPv4.networkAddressFromCIDR(`${network.toString()}/${prefix}`)
        : ipaddr.IPv6.networkAddressFromCIDR(`${network.toString()}/${prefix}`);
    if (base.toString() !== network.toString()) return null;
    ranges.push([network, prefix]);
  }
  const candidate =
    ip.kind() === 'ipv6' && (ip as ipaddr.IPv6).isIPv4MappedAddress()
      ? (ip as ipaddr.IPv6).toIPv4Address()
      : ip;
  return ranges.some(
    ([network, prefix]) => candidate.kind() === network.kind() && candidate.match(network, prefix),
  );
}

/** The classifier with `ownAddresses` (canonical) as this host's: a public one of them is `this-host`. */
export function ipAddressClassifierFor(ownAddresses: ReadonlySet<string>): AddressClassifier {
  return {
    classify(address: string): AddressClass | null {
      const ip = parseAddress(address);
      return ip ? classifyAddress(ip, ownAddresses) : null;
    },
    inCidrList,
  };
}

/** The classifier knowing no address of this host's (the dispatcher builds one per event that does). */
export const ipAddressClassifier: AddressClassifier = ipAddressClassifierFor(new Set());
