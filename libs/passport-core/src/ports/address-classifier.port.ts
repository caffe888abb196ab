/**
 * @module ports/address-classifier.port
 * Classifies the IP addresses a webhook may be sent to. The core decides what is allowed (only
 * `public`, or `loopback` under the test setting, within the passport's `webhook_cidr`); the adapter
 * says what an address is. The app implements it with ipaddr.js, a maintained classifier of the IANA
 * special-purpose ranges, which the core cannot depend on (it declares only its three browser-safe
 * dependencies).
 *
 * An adapter must give IPv6 forms that embed an IPv4 address (IPv4-mapped, IPv4-translated, NAT64
 * well-known and local-use, 6to4, Teredo) a class that is not `public` whenever the embedded IPv4
 * address is not public, so that `[::ffff:0:7f00:1]` cannot reach 127.0.0.1.
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
  | 'reserved'
  /**
   * An otherwise public address held by the serving host itself (one of its interfaces): a webhook there
   * would reach the host's own services, including those bound to all addresses but firewalled from
   * outside. Reported by adapters that know the host's addresses; never allowed.
   */
  | 'this-host';

export interface AddressClassifier {
  /** The class of an IP address literal (IPv6 may be bracketed or carry a zone); null when it is not one. */
  classify(address: string): AddressClass | null;
  /**
   * Whether `address` lies in one of the ranges of `cidrList` (comma- or space-separated CIDRs; a bare
   * address is a single-address range; IPv4-mapped IPv6 addresses match IPv4 ranges). Null when the
   * list cannot be read, which allows nothing.
   */
  inCidrList(address: string, cidrList: string): boolean | null;
}
