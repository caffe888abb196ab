import fc from 'fast-check';
import { clientAddressKey } from './client-address.js';

describe('clientAddressKey', () => {
  it.each([
    ['192.0.2.1', '192.0.2.1'],
    ['::ffff:192.0.2.1', '192.0.2.1'],
    ['0:0:0:0:0:ffff:c000:0201', '192.0.2.1'],
    ['2001:db8::1', '2001:db8:0:0::/64'],
    ['2001:0DB8:0000:0000:ffff:ffff:ffff:ffff', '2001:db8:0:0::/64'],
    ['2001:db8:1:2:3:4:5:6', '2001:db8:1:2::/64'],
    ['fe80::1%eth0', 'fe80:0:0:0::/64'],
    ['::1', '0:0:0:0::/64'],
    ['not an address', 'invalid-address'],
    // Found by a probe: proxies that add the port put every client behind them into one key.
    ['198.51.100.9:80', '198.51.100.9'],
    ['[2001:db8::7]:443', '2001:db8:0:0::/64'],
    ['[2001:db8::1]', '2001:db8:0:0::/64'],
    [' 203.0.113.9 ', '203.0.113.9'],
    ['[::ffff:192.0.2.1]:80', '192.0.2.1'],
    ['198.51.100.9:80:80', 'invalid-address'],
    ['[198.51.100.9]', '198.51.100.9'],
    ['[198.51.100.9]:80', '198.51.100.9'],
    [`2001:db8::1%${'a'.repeat(5000)}`, '2001:db8:0:0::/64'],
    ['[not-v6]:80', 'invalid-address'],
    ['::ffff:999.1.1.1', 'invalid-address'],
    ['256.1.1.1', 'invalid-address'],
    ['x'.repeat(6000), 'invalid-address'],
  ])('%s → %s', (ip, key) => {
    expect(clientAddressKey(ip)).toBe(key);
  });

  it('property: IPv6 addresses share a key exactly when their first 64 bits are equal, however written', () => {
    const group = fc.integer({ min: 0, max: 0xffff });
    const address = fc.array(group, { minLength: 8, maxLength: 8 });
    // Written in full with leading zeros, or compressed the way Node and ipaddr.js print it.
    const spell = (parts: number[], full: boolean) =>
      full
        ? parts.map((p) => p.toString(16).padStart(4, '0').toUpperCase()).join(':')
        : new URL(`http://[${parts.map((p) => p.toString(16)).join(':')}]`).hostname.slice(1, -1);
    fc.assert(
      fc.property(address, address, fc.boolean(), fc.boolean(), (a, b, fullA, fullB) => {
        // Keep clear of ::ffff:0:0/96 (IPv4-mapped), which is keyed as IPv4.
        fc.pre(!(a.slice(0, 5).every((p) => p === 0) && a[5] === 0xffff));
        fc.pre(!(b.slice(0, 5).every((p) => p === 0) && b[5] === 0xffff));
        const samePrefix = a.slice(0, 4).join() === b.slice(0, 4).join();
        expect(clientAddressKey(spell(a, fullA)) === clientAddressKey(spell(b, fullB))).toBe(samePrefix);
        const sibling = [...a.slice(0, 4), ...b.slice(4)];
        expect(clientAddressKey(spell(sibling, fullB))).toBe(clientAddressKey(spell(a, fullA)));
      }),
    );
  });
});
