/**
 * Webhook address classification (the ipaddr.js adapter of the core's AddressClassifier port) and the
 * core's webhook target rules applied with it. Includes the hostile probe's IPv6 forms that embed a
 * refused IPv4 address.
 */
import fc from 'fast-check';
import { resolveWebhookTarget } from '@passport/core';
import { webhookUrlOf } from '@passport/core/webhook';
import {
  checkWebhookAddress,
  pickWebhookAddress,
  pickWebhookAddresses,
  type WebhookAddressPolicy,
} from '@passport/core/webhook';
import { type AddressClass } from '@passport/core/ports';
import {
  classifyAddress,
  hostInterfaceAddresses,
  ipAddressClassifier,
  parseAddress,
} from './ip-address.classifier.js';

const classify = (text: string) => ipAddressClassifier.classify(text);
const policy = (extra: Partial<WebhookAddressPolicy> = {}): WebhookAddressPolicy => ({
  classifier: ipAddressClassifier,
  ...extra,
});

describe("this host's own addresses", () => {
  // A probe: on a host holding its public address on an interface, a webhook to that address reached a
  // service bound to all addresses, which a firewall keeps from outside.
  const own = new Set(['93.184.216.34', '2001:4860:4860::8888', '127.0.0.1', '10.0.0.5']);
  const classifyOwn = (text: string) => classifyAddress(parseAddress(text)!, own);

  it.each<[string, AddressClass]>([
    ['93.184.216.34', 'this-host'],
    ['2001:4860:4860::8888', 'this-host'],
    ['2001:4860:4860:0:0:0:0:8888', 'this-host'],
    ['::ffff:93.184.216.34', 'this-host'],
    ['64:ff9b::5db8:d822', 'this-host'],
    ['2002:5db8:d822::1', 'this-host'],
    ['93.184.216.35', 'public'],
    ['127.0.0.1', 'loopback'],
    ['10.0.0.5', 'private'],
  ])('%s is %s', (address, expected) => {
    expect(classifyOwn(address)).toBe(expected);
  });

  it('is never allowed, loopback setting or not', () => {
    const ownClassifier = { ...ipAddressClassifier, classify: (a: string) => classifyOwn(a) };
    for (const allowLoopback of [false, true])
      expect(checkWebhookAddress('93.184.216.34', { classifier: ownClassifier, allowLoopback })).toEqual({
        allowed: false,
        addressClass: 'this-host',
      });
  });

  it("hostInterfaceAddresses lists this host's addresses (the loopback interface's at least)", () => {
    expect(hostInterfaceAddresses().has('127.0.0.1')).toBe(true);
  });
});

describe('address classifier', () => {
  it.each<[string, AddressClass]>([
    ['8.8.8.8', 'public'],
    ['0.0.0.0', 'unspecified'],
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['172.32.0.1', 'public'],
    ['192.168.1.1', 'private'],
    ['100.64.0.1', 'cgnat'],
    ['100.127.255.255', 'cgnat'],
    ['100.128.0.1', 'public'],
    ['169.254.1.1', 'link-local'],
    ['169.254.169.254', 'metadata'],
    ['100.100.100.200', 'metadata'],
    ['192.0.0.192', 'metadata'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['255.255.255.255', 'reserved'],
    ['192.0.2.7', 'reserved'],
    ['::', 'unspecified'],
    ['::1', 'loopback'],
    ['[::1]', 'loopback'],
    ['fe80::1%eth0', 'link-local'],
    ['fd12:3456::1', 'private'],
    ['fd00:ec2::254', 'metadata'],
    ['ff02::1', 'multicast'],
    ['2001:db8::1', 'reserved'],
    ['2606:4700:4700::1111', 'public'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:169.254.169.254', 'metadata'],
    ['64:ff9b::a00:1', 'private'],
    ['2002:c0a8:0101::1', 'private'],
    ['2002:0808:0808::1', 'public'],
    ['::7f00:1', 'reserved'], // deprecated IPv4-compatible
    // The hostile probe's forms: IPv4-translated and local-use NAT64 carrying refused addresses.
    ['::ffff:0:7f00:1', 'loopback'],
    ['::ffff:0:a9fe:a9fe', 'metadata'],
    ['64:ff9b:1::a9fe:a9fe', 'metadata'],
    ['[64:ff9b:1::a9fe:a9fe]', 'metadata'],
    ['64:ff9b::808:808', 'public'],
    // 127.1.1.1 at each position a local-use NAT64 prefix may put it (/96, /48, /56, /64), every other
    // reading public (a mutation probe: a classifier missing the last position passed every test).
    ['64:ff9b:1:808:8:808:7f01:101', 'loopback'],
    ['64:ff9b:1:7f01:1:108:808:808', 'loopback'],
    ['64:ff9b:1:87f:1:101:808:808', 'loopback'],
    ['64:ff9b:1:808:7f:101:108:808', 'loopback'],
    // Teredo: server 65.54.227.120 (public), client 127.0.0.1 stored inverted (80ff:fffe).
    ['2001:0:4136:e378:8000:63bf:80ff:fffe', 'loopback'],
  ])('%s is %s', (text, expected) => {
    expect(classify(text)).toBe(expected);
  });

  it.each([
    '',
    'localhost',
    '1.2.3',
    '1.2.3.4.5',
    '01.2.3.4',
    '256.1.1.1',
    '1.2.3.4 ',
    '0x7f.0.0.1',
    '2130706433',
    ':::',
    '1::2::3',
    '12345::',
    'g::1',
    '::1.2.3',
  ])('refuses %j as an address', (text) => {
    expect(classify(text)).toBeNull();
  });

  const ipv4 = fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255), fc.nat(255)).map((parts) => parts.join('.'));
  const hex = (text: string) => {
    const [a, b, c, d] = text.split('.').map(Number);
    return `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  };

  it('never throws on any text', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 60 }), (text) => {
        const cls = classify(text);
        return cls === null || typeof cls === 'string';
      }),
      { numRuns: 3000 },
    );
    fc.assert(
      fc.property(fc.stringMatching(/^[0-9a-f:.%[\]/]{0,45}$/), (text) => {
        classify(text);
        ipAddressClassifier.inCidrList('10.0.0.1', text);
        return true;
      }),
      { numRuns: 3000 },
    );
  });

  it('refuses every embedded-IPv4 form whose IPv4 address is refused, and only those', () => {
    fc.assert(
      fc.property(ipv4, (text) => {
        const v4 = classify(text)!;
        const forms = [
          `::ffff:${text}`, // IPv4-mapped
          `::ffff:${hex(text)}`,
          `::ffff:0:${hex(text)}`, // IPv4-translated
          `64:ff9b::${hex(text)}`, // NAT64 well-known
          `2002:${hex(text)}::1`, // 6to4
        ];
        return forms.every((form) => classify(form) === v4);
      }),
      { numRuns: 2000 },
    );
    fc.assert(
      fc.property(ipv4, (text) => {
        // Local-use NAT64: refused whenever the last-32-bits reading is refused.
        const cls = classify(`64:ff9b:1::${hex(text)}`)!;
        return classify(text) === 'public' || cls !== 'public';
      }),
      { numRuns: 2000 },
    );
  });

  it('classifies every address of the named blocks, checked against a plain arithmetic definition', () => {
    const toInt = (t: string) => t.split('.').reduce((a, p) => a * 256 + Number(p), 0);
    const within = (n: number, base: string, prefix: number) =>
      Math.floor(n / 2 ** (32 - prefix)) === Math.floor(toInt(base) / 2 ** (32 - prefix));
    fc.assert(
      fc.property(ipv4, (text) => {
        const n = toInt(text);
        const cls = classify(text)!;
        if (within(n, '10.0.0.0', 8) || within(n, '192.168.0.0', 16) || within(n, '172.16.0.0', 12))
          return cls === 'private';
        if (within(n, '127.0.0.0', 8)) return cls === 'loopback';
        if (within(n, '100.64.0.0', 10)) return cls === 'cgnat' || text === '100.100.100.200';
        if (within(n, '224.0.0.0', 4)) return cls === 'multicast';
        if (within(n, '169.254.0.0', 16)) return cls === 'link-local' || cls === 'metadata';
        return (
          cls !== 'private' &&
          cls !== 'loopback' &&
          cls !== 'cgnat' &&
          cls !== 'multicast' &&
          cls !== 'link-local'
        );
      }),
      { numRuns: 5000 },
    );
  });
});

describe('CIDR lists', () => {
  it('reads ranges and refuses host bits, bad prefixes and junk', () => {
    expect(ipAddressClassifier.inCidrList('10.9.9.9', '10.0.0.0/8')).toBe(true);
    expect(ipAddressClassifier.inCidrList('203.0.113.5', '203.0.113.5')).toBe(true);
    expect(ipAddressClassifier.inCidrList('2001:db8::7', '2001:db8::/32')).toBe(true);
    for (const bad of ['10.0.0.1/8', '10.0.0.0/33', '10.0.0.0/', '10.0.0.0/-1', 'x/8', '::/129', ' , '])
      expect(ipAddressClassifier.inCidrList('10.0.0.1', bad)).toBeNull();
    expect(ipAddressClassifier.inCidrList('10.0.0.1', '10.0.0.0/8, 2001:db8::/32')).toBe(true);
    expect(ipAddressClassifier.inCidrList('10.0.0.1', '10.0.0.0/8, nonsense')).toBeNull();
  });

  it('membership agrees with comparing the top prefix bits, and /0 holds everything of its family', () => {
    const dotted = (n: number) => [24, 16, 8, 0].map((s) => (n >>> s) & 255).join('.');
    fc.assert(
      fc.property(fc.nat(0xffffffff), fc.nat(0xffffffff), fc.integer({ min: 0, max: 32 }), (a, b, prefix) => {
        const mask = prefix === 0 ? 0 : (0xffffffff << (32 - prefix)) >>> 0;
        const network = (b & mask) >>> 0;
        const expected = (a & mask) >>> 0 === network;
        return ipAddressClassifier.inCidrList(dotted(a), `${dotted(network)}/${prefix}`) === expected;
      }),
    );
    expect(ipAddressClassifier.inCidrList('::1', '0.0.0.0/0')).toBe(false);
    expect(ipAddressClassifier.inCidrList('::ffff:10.1.1.1', '10.0.0.0/8')).toBe(true);
  });
});

describe('webhook target URL', () => {
  it.each([
    [42, 'empty'],
    ['   ', 'empty'],
    ['ftp://hooks.example.com', 'scheme_not_http'],
    ['javascript:alert(1)', 'scheme_not_http'],
    ['file:///etc/passwd', 'scheme_not_http'],
    ['https://user:pw@hooks.example.com', 'userinfo'],
    ['https://@hooks.example.com', 'userinfo'],
    ['https://hooks.example.com/base?token=1', 'query_or_fragment'],
    ['https://hooks.example.com/#x', 'query_or_fragment'],
    ['https://hooks.example.com:99999', 'unparsable'],
    ['http://8.8.8.8:0/', 'port_not_allowed'],
    ['https://hooks.example.com:0', 'port_not_allowed'],
    // Found by probes: forms the URL parser forgives, which the profile and the DID showed as no webhook
    // while the sender posted to hooks.example.com (or, for the tab, to a host named "https").
    ['/hooks.example.com', 'unparsable'],
    ['//hooks.example.com/gw', 'unparsable'],
    ['\\\\hooks.example.com', 'unparsable'],
    ['https:hooks.example.com', 'unparsable'],
    ['https:\\\\hooks.example.com', 'unparsable'],
    ['ht\ttps://hooks.example.com', 'unparsable'],
    [`https://hooks.example.com/${'a'.repeat(2040)}`, 'too_long'],
    ['https://127.0.0.1', 'address_not_allowed'],
    ['http://2130706433/', 'address_not_allowed'],
    ['http://0x7f.1/', 'address_not_allowed'],
    ['http://[::ffff:169.254.169.254]/', 'address_not_allowed'],
    ['http://10.0.0.8:8080', 'address_not_allowed'],
    ['http://[::ffff:0:7f00:1]/', 'address_not_allowed'],
    ['http://[::ffff:0:a9fe:a9fe]/', 'address_not_allowed'],
    ['http://[64:ff9b:1::a9fe:a9fe]/', 'address_not_allowed'],
  ])('refuses %j (%s)', (url, expected) => {
    const result = resolveWebhookTarget(url, policy());
    expect(result).toMatchObject({ ok: false, reason: expected });
  });

  it('the profile and the DID read webhook_url as the sender does: a URL exactly when the sender takes it', () => {
    for (const url of [
      'hooks.example.com',
      'hooks.example.com:8443/in',
      'https://hooks.example.com/x',
      '/hooks.example.com',
      '//hooks.example.com/gw',
      'https:hooks.example.com',
      'ht\ttps://hooks.example.com',
      'javascript:alert(1)',
    ]) {
      const sent = resolveWebhookTarget(url, policy());
      expect([url, webhookUrlOf(url) !== null]).toEqual([url, sent.ok]);
    }
  });

  it('defaults to https, strips trailing slashes and appends the hook paths', () => {
    expect(resolveWebhookTarget('hooks.example.com/gateway/', policy())).toEqual({
      ok: true,
      target: {
        baseUrl: 'https://hooks.example.com/gateway',
        host: 'hooks.example.com',
        port: 443,
        protocol: 'https:',
        urls: [
          'https://hooks.example.com/gateway/hooks/agent',
          'https://hooks.example.com/gateway/hooks/wake',
        ],
        literalAddress: null,
      },
    });
    expect(resolveWebhookTarget('localhost:8080', policy())).toMatchObject({
      ok: true,
      target: { baseUrl: 'https://localhost:8080', port: 8080 },
    });
    expect(resolveWebhookTarget('http://93.184.216.34', policy())).toMatchObject({
      ok: true,
      target: { literalAddress: '93.184.216.34', port: 80 },
    });
  });

  it('lets loopback through only with the test setting', () => {
    expect(resolveWebhookTarget('http://127.0.0.1:9000', policy({ allowLoopback: true }))).toMatchObject({
      ok: true,
      target: { literalAddress: '127.0.0.1' },
    });
    expect(resolveWebhookTarget('http://[::1]:9000', policy({ allowLoopback: true }))).toMatchObject({
      ok: true,
      target: { literalAddress: '::1' },
    });
    expect(resolveWebhookTarget('http://10.0.0.1', policy({ allowLoopback: true }))).toMatchObject({
      ok: false,
      addressClass: 'private',
    });
  });
});

describe('webhook address policy', () => {
  it('applies webhook_cidr on top of the class rules and fails closed on an unreadable list', () => {
    expect(checkWebhookAddress('93.184.216.34', policy({ webhookCidr: '93.184.216.0/24' })).allowed).toBe(
      true,
    );
    expect(checkWebhookAddress('93.184.217.34', policy({ webhookCidr: '93.184.216.0/24' }))).toMatchObject({
      allowed: false,
      outsideCidr: true,
    });
    expect(checkWebhookAddress('93.184.216.34', policy({ webhookCidr: 'garbage' })).allowed).toBe(false);
    expect(checkWebhookAddress('10.0.0.1', policy({ webhookCidr: '10.0.0.0/8' })).allowed).toBe(false);
    expect(checkWebhookAddress('93.184.216.34', policy({ webhookCidr: '' })).allowed).toBe(true);
    expect(checkWebhookAddress('not-an-ip', policy())).toEqual({ allowed: false, addressClass: null });
  });

  it('picks the first allowed resolved address; none when a name resolves only to internal addresses', () => {
    expect(pickWebhookAddress(['10.0.0.1', '93.184.216.34', '1.1.1.1'], policy())).toBe('93.184.216.34');
    expect(pickWebhookAddress(['127.0.0.1', '::1', '169.254.169.254', 'fd00::1'], policy())).toBeNull();
    expect(pickWebhookAddress([], policy())).toBeNull();
  });

  it('picks the first allowed address of each family, in the order resolved, for the fallback to the other family', () => {
    expect(
      pickWebhookAddresses(['10.0.0.1', '93.184.216.34', '2606:4700::1111', '1.1.1.1'], policy()),
    ).toEqual(['93.184.216.34', '2606:4700::1111']);
    expect(pickWebhookAddresses(['fd00::1', '2606:4700::1111', '93.184.216.34'], policy())).toEqual([
      '2606:4700::1111',
      '93.184.216.34',
    ]);
    // A private address of the other family is never a fallback.
    expect(pickWebhookAddresses(['93.184.216.34', 'fd00::1', '::ffff:10.0.0.1'], policy())).toEqual([
      '93.184.216.34',
    ]);
    expect(pickWebhookAddresses(['127.0.0.1', '::1', '169.254.169.254'], policy())).toEqual([]);
    expect(pickWebhookAddresses(['127.0.0.1', '::1'], policy({ allowLoopback: true }))).toEqual([
      '127.0.0.1',
      '::1',
    ]);
    expect(
      pickWebhookAddresses(['93.184.217.1', '2606:4700::1111'], policy({ webhookCidr: '2606:4700::/32' })),
    ).toEqual(['2606:4700::1111']);
  });

  it('every picked address is allowed, at most one per family, each the first allowed of its family', () => {
    const v4 = fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255), fc.nat(255)).map((p) => p.join('.'));
    const v6 = fc
      .array(fc.nat(0xffff), { minLength: 8, maxLength: 8 })
      .map((groups) => groups.map((g) => g.toString(16)).join(':'));
    const some = fc.oneof(
      v4,
      v6,
      fc.constantFrom('10.0.0.1', '127.0.0.1', '::1', 'fd00::1', '93.184.216.34', '2606:4700::1111', 'x'),
    );
    fc.assert(
      fc.property(fc.array(some, { maxLength: 12 }), fc.boolean(), (addresses, allowLoopback) => {
        const rules = policy({ allowLoopback });
        const picked = pickWebhookAddresses(addresses, rules);
        const allowed = addresses.filter((a) => checkWebhookAddress(a, rules).allowed);
        const firstOf = (v6Family: boolean) => allowed.find((a) => a.includes(':') === v6Family);
        const expected = [firstOf(false), firstOf(true)]
          .filter((a): a is string => a !== undefined)
          .sort((a, b) => addresses.indexOf(a) - addresses.indexOf(b));
        expect(picked).toEqual(expected);
        expect(picked[0] ?? null).toBe(pickWebhookAddress(addresses, rules));
      }),
    );
  });
});
