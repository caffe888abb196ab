import vectorFile from '../../test-vectors/fees.json' with { type: 'json' };
import { FixedClock } from '../memory/fixed.clock.js';
import { createNobleSigner } from '../crypto/noble.signer.js';
import { createNobleVerifier } from '../crypto/noble.verifier.js';
import { PassportError } from '../errors/passport.error.js';
import { verifyFamilySignature } from '../family/family-signature.js';
import { type Signer } from '../ports/signature-verifier.port.js';
import { assertFeeMatches, computeMintFee, impliedTier, parseClientFee, type MintTier } from './mint-fee.js';
import { signClient, validateSignClientRequest } from './sign-client.js';

interface FeeVector {
  name: string;
  nowMs: number;
  values: Record<string, string>;
  tier?: MintTier;
  expected?: { tier: MintTier; fee: number; daysUntilExpiry: number | null };
  error?: { code: string; field: string };
}
const vectors = vectorFile as { tolerance: number; cases: FeeVector[] };

function caught(fn: () => unknown): PassportError {
  try {
    fn();
  } catch (error) {
    if (error instanceof PassportError) return error;
    throw error;
  }
  throw new Error('expected a PassportError');
}

describe('computeMintFee (test-vectors/fees.json, computed independently)', () => {
  it.each(vectors.cases.map((c) => [c.name, c]))('%s', (_name, c) => {
    const run = () => computeMintFee(c.values, { tier: c.tier, nowMs: c.nowMs });
    if (c.error) {
      expect(caught(run)).toMatchObject({
        code: c.error.code,
        details: { field: c.error.field },
      });
      return;
    }
    const fee = run();
    expect(fee.tier).toBe(c.expected!.tier);
    expect(fee.daysUntilExpiry).toBe(c.expected!.daysUntilExpiry);
    expect(Math.abs(fee.fee - c.expected!.fee)).toBeLessThanOrEqual(vectors.tolerance);
  });
});

// A review: a collectible whose not_after date had passed was signed, a window never live.
it('a collectible with a not_after date in the past is refused; one without a date or in the future is not', () => {
  const nowMs = Date.UTC(2026, 10, 26);
  expect(
    caught(() => computeMintFee({ not_after: '2026-01-01' }, { tier: 'collectible', nowMs })),
  ).toMatchObject({
    code: 'SIGNCLIENT_INVALID_REQUEST',
    details: { field: 'not_after', reason: 'must be in the future' },
  });
  expect(computeMintFee({ not_after: '0' }, { nowMs }).fee).toBe(496);
  expect(computeMintFee({ not_after: '2027-01-01' }, { tier: 'collectible', nowMs }).fee).toBe(496);
});

// A mutation probe: `end.ms < nowMs` and an empty not_after read as collectible both passed.
it('a collectible ending at this very instant is refused; only not_after "0" implies a collectible', () => {
  const nowMs = Date.UTC(2026, 10, 26);
  expect(
    caught(() => computeMintFee({ not_after: '2026-11-26' }, { tier: 'collectible', nowMs })),
  ).toMatchObject({ details: { field: 'not_after', reason: 'must be in the future' } });
  expect(impliedTier({ not_after: '0' })).toBe('collectible');
  expect(impliedTier({ not_after: '' })).toBe('personal');
  expect(impliedTier({})).toBe('personal');
});

describe('fee comparison', () => {
  it('accepts a difference up to 1e-6 and refuses beyond, with string details', () => {
    expect(() => assertFeeMatches(8.064 + 1e-7, 8.064)).not.toThrow();
    const error = caught(() => assertFeeMatches(8.07, 8.064));
    expect(error.code).toBe('SIGNCLIENT_FEE_MISMATCH');
    expect(error.details).toEqual({ message: expect.any(String), clientFee: '8.07', serverFee: '8.064' });
  });

  it.each([
    [undefined, 'missing'],
    ['', 'missing'],
    [-1, 'must'],
    [Number.NaN, 'must'],
    ['1e3', 'must'],
    ['0x10', 'must'],
    [[1], 'must'],
    [Infinity, 'must'],
  ])('refuses the client fee %j', (raw, reason) => {
    expect(caught(() => parseClientFee(raw))).toMatchObject({
      code: 'SIGNCLIENT_INVALID_REQUEST',
      details: { field: 'mintingfee' },
    });
    expect(String(caught(() => parseClientFee(raw)).details?.reason)).toContain(reason);
  });

  it('reads numbers and decimal strings', () => {
    expect(parseClientFee(496)).toBe(496);
    expect(parseClientFee('0.018')).toBe(0.018);
  });
});

describe('signClient', () => {
  const root: Signer = createNobleSigner(new Uint8Array(32).fill(1));
  const clock = new FixedClock(Date.UTC(2026, 0, 1));
  const spid = 'bc=local;sc=passport.test;id=devroot';
  const values = {
    not_after: '2027-01-01T00:00:00Z',
    max_requests: '48',
    maxrq_window: '60',
    openapijson_url: 'https://a.example/o.json',
  };
  const fee = 0.28 * 0.48 * 60; // 365 days

  it.each([
    ['not an object', [1], 'body'],
    ['no tobesignedValues', { mintingfee: 1 }, 'tobesignedValues'],
    ['tobesignedValues an array', { tobesignedValues: [], mintingfee: 1 }, 'tobesignedValues'],
    [
      'a non-string value',
      { tobesignedValues: { max_requests: 48 }, mintingfee: 1 },
      'tobesignedValues.max_requests',
    ],
    [
      'a __proto__ key',
      JSON.parse('{"tobesignedValues":{"__proto__":"x"},"mintingfee":1}'),
      'tobesignedValues.__proto__',
    ],
    [
      'a bad token_id in the values',
      { tobesignedValues: { token_id: 'ABC' }, mintingfee: 1 },
      'tobesignedValues.token_id',
    ],
    ['a bad body token_id', { tobesignedValues: {}, token_id: 'short', mintingfee: 1 }, 'token_id'],
    [
      'two different token ids',
      { tobesignedValues: { token_id: 'bjbvcjzqbdsj' }, token_id: 'lhsrldbjsnlh', mintingfee: 1 },
      'token_id',
    ],
    [
      'another family',
      { tobesignedValues: { serviceprovider_id: 'bc=x;sc=y;id=z' }, token_id: 'bjbvcjzqbdsj', mintingfee: 1 },
      'tobesignedValues.serviceprovider_id',
    ],
    ['no token id (the signature covers it)', { tobesignedValues: {}, mintingfee: 1 }, 'token_id'],
    [
      'an unknown tier',
      { tobesignedValues: {}, token_id: 'bjbvcjzqbdsj', tier: 'gold', mintingfee: 1 },
      'tier',
    ],
    ['no mintingfee', { tobesignedValues: {}, token_id: 'bjbvcjzqbdsj' }, 'mintingfee'],
    // Signed as UTF-8, where a lone surrogate becomes U+FFFD: one signature would fit several texts.
    [
      'a value with a lone surrogate',
      { tobesignedValues: { userselected_dn: 'NNSWF=A\ud800' }, token_id: 'bjbvcjzqbdsj', mintingfee: 496 },
      'tobesignedValues.userselected_dn',
    ],
    [
      'a key with a lone surrogate',
      { tobesignedValues: { ['x\udc00']: 'v' }, token_id: 'bjbvcjzqbdsj', mintingfee: 496 },
      // Named printably (a probe: C1 and bidi controls and lone surrogates came back raw).
      'tobesignedValues.x?',
    ],
    // Found by a probe: javascript: and data: URLs were signed into passports (a federated login then
    // issued a token whose iss no server accepts).
    ...(
      [
        ['subjectuniqueidentifier_url', 'javascript:alert(1)'],
        ['subjectuniqueidentifier_url', 'example.com/api'],
        ['openapijson_url', 'data:text/html,<script>alert(1)</script>'],
        ['webhook_url', 'javascript:alert(1)'],
        ['webhook_url', 'ftp://hooks.example'],
        // Found by a probe of that fix: forms the URL parser forgives.
        ['webhook_url', '/hooks.example.com'],
        ['webhook_url', 'https:hooks.example.com'],
        ['subjectuniqueidentifier_url', 'https:api.example'],
        ['subjectuniqueidentifier_url', 'https:\\\\api.example'],
        ['subjectuniqueidentifier_url', 'https://user:pw@api.example'],
        ['openapijson_url', 'ht\ttps://a.example/o.json'],
      ] as const
    ).map(([key, url]): [string, unknown, string] => [
      `a ${key} of ${url}`,
      { tobesignedValues: { [key]: url }, token_id: 'bjbvcjzqbdsj', mintingfee: 496 },
      `tobesignedValues.${key}`,
    ]),
  ])('refuses %s', (_label, body, field) => {
    expect(caught(() => validateSignClientRequest(body, spid))).toMatchObject({
      code: 'SIGNCLIENT_INVALID_REQUEST',
      details: { field },
    });
  });

  it('takes http(s) URLs, and a webhook given as a bare host or host:port (https assumed)', () => {
    for (const webhook_url of [
      'hooks.example',
      'hooks.example:8443/in',
      'https://hooks.example/x',
      'http://h.example',
    ]) {
      const body = {
        tobesignedValues: {
          ...values,
          webhook_url,
          subjectuniqueidentifier_url: 'https://api.example',
          openapijson_url: 'http://a.example/o.json',
        },
        token_id: 'bjbvcjzqbdsj',
        mintingfee: 496,
      };
      expect(validateSignClientRequest(body, spid).tobesignedValues.webhook_url).toBe(webhook_url);
    }
  });

  it('refuses a wrong fee before signing', () => {
    let signed = 0;
    const counting: Signer = { publicKey: root.publicKey, sign: (m) => (signed++, root.sign(m)) };
    const error = caught(() =>
      signClient(
        { tobesignedValues: values, token_id: 'bjbvcjzqbdsj', mintingfee: fee + 0.01 },
        { familySigner: counting, clock },
      ),
    );
    expect(error.code).toBe('SIGNCLIENT_FEE_MISMATCH');
    expect(signed).toBe(0);
  });

  it("signs the metadata (family filled in) for its token id, the issuer's way, so that the family signature verifies", () => {
    const result = signClient(
      { tobesignedValues: { ...values, token_id: 'bjbvcjzqbdsj' }, mintingfee: String(fee) },
      { familySigner: root, clock, serviceProviderId: spid },
    );
    // The token id is signed, not minted into the metadata.
    expect(result.metadata).toEqual({ ...values, serviceprovider_id: spid });
    expect(result.token_id).toBe('bjbvcjzqbdsj');
    expect(result.fee_data).toEqual({
      tier: 'personal',
      fee: expect.closeTo(fee, 9),
      clientFee: fee,
      daysUntilExpiry: 365,
    });
    const verifier = createNobleVerifier();
    const minted = { ...result.metadata, serviceprovider_signature: result.serviceprovider_signature };
    expect(verifyFamilySignature(minted, 'bjbvcjzqbdsj', [root.publicKey], verifier)).toBe(true);
    expect(verifyFamilySignature(minted, 'lhsrldbjsnlh', [root.publicKey], verifier)).toBe(false);
    expect(
      verifyFamilySignature({ ...minted, max_requests: '4999' }, 'bjbvcjzqbdsj', [root.publicKey], verifier),
    ).toBe(false);
  });

  it('answers SIGNCLIENT_FAILED without upstream text when the signer fails', () => {
    const broken: Signer = {
      publicKey: root.publicKey,
      sign: () => {
        throw new Error('HSM at 10.0.0.3 refused');
      },
    };
    const error = caught(() =>
      signClient(
        {
          tobesignedValues: { not_after: '0', max_requests: '10' },
          token_id: 'bjbvcjzqbdsj',
          mintingfee: 496,
        },
        { familySigner: broken, clock },
      ),
    );
    expect(error).toMatchObject({ code: 'SIGNCLIENT_FAILED', details: null });
    expect(error.message).not.toContain('10.0.0.3');
  });

  describe('privilege is not for sale', () => {
    const collectible = { not_after: '0', max_requests: '10' };
    it.each([
      [
        'permissioned_routes naming admin routes',
        {
          ...collectible,
          permissioned_routes: '{"entities":{"methods":{"/api/sessions":"*","/api/metrics":"*"}}}',
        },
        'tobesignedValues.permissioned_routes',
      ],
      [
        'any permissioned_routes text',
        { ...collectible, permissioned_routes: 'x' },
        'tobesignedValues.permissioned_routes',
      ],
      [
        'an unlimited quota (max_requests 0)',
        { not_after: '0', max_requests: '0' },
        'tobesignedValues.max_requests',
      ],
      ['no quota at all', { not_after: '0' }, 'tobesignedValues.max_requests'],
      [
        'a quota that is not a number',
        { not_after: '0', max_requests: '1e9' },
        'tobesignedValues.max_requests',
      ],
      [
        'a flat-fee quota above the enterprise quota (unlimited in all but name)',
        { not_after: '0', max_requests: '999999999999999' },
        'tobesignedValues.max_requests',
      ],
      [
        'one request more than the enterprise quota',
        { not_after: '0', max_requests: '5000' },
        'tobesignedValues.max_requests',
      ],
      // Found by a probe: the window was never checked on the flat-fee tiers.
      [
        'the enterprise quota per second on a collectible (a flat fee does not price the rate)',
        { not_after: '0', max_requests: '4999', maxrq_window: '1' },
        'tobesignedValues.maxrq_window',
      ],
      [
        'a window under a minute on the enterprise tier',
        { not_after: '2030-01-01T00:00:00Z', max_requests: '4999', maxrq_window: '59' },
        'tobesignedValues.maxrq_window',
      ],
      [
        'a window that is not whole seconds',
        { not_after: '0', max_requests: '10', maxrq_window: '0.001' },
        'tobesignedValues.maxrq_window',
      ],
      [
        'a window of 0',
        { not_after: '0', max_requests: '10', maxrq_window: '0' },
        'tobesignedValues.maxrq_window',
      ],
    ])('an unprivileged caller may not sign %s', (_label, tobesignedValues, field) => {
      let signed = 0;
      const counting: Signer = { publicKey: root.publicKey, sign: (m) => (signed++, root.sign(m)) };
      for (const caller of [undefined, { privileged: false }]) {
        const error = caught(() =>
          signClient(
            { tobesignedValues, token_id: 'bjbvcjzqbdsj', mintingfee: 496 },
            { familySigner: counting, clock, caller },
          ),
        );
        expect(error).toMatchObject({
          code: 'PERMISSION_DENIED',
          details: { field, route: '/api/signclient' },
        });
      }
      expect(signed).toBe(0);
    });
    it.each([
      [
        'a collectible with a window of a minute',
        { not_after: '0', max_requests: '4999', maxrq_window: '60' },
        496,
      ],
      [
        'a collectible without a window (the limiter uses a minute)',
        { not_after: '0', max_requests: '100' },
        496,
      ],
    ])('an unprivileged caller may sign %s', (_label, tobesignedValues, mintingfee) => {
      const result = signClient(
        { tobesignedValues, token_id: 'bjbvcjzqbdsj', mintingfee },
        { familySigner: root, clock, caller: { privileged: false } },
      );
      expect(result.metadata).toEqual(tobesignedValues);
    });
    it('an unprivileged caller may sign up to the enterprise quota', () => {
      const tobesignedValues = { not_after: '0', max_requests: '4999' };
      const result = signClient(
        { tobesignedValues, token_id: 'bjbvcjzqbdsj', mintingfee: 496 },
        { familySigner: root, clock, caller: { privileged: false } },
      );
      expect(result.metadata).toEqual(tobesignedValues);
    });
    it('a caller privileged for /api/signclient may', () => {
      const tobesignedValues = {
        not_after: '0',
        max_requests: '0',
        permissioned_routes: '{"entities":{"methods":{"/api/sessions":"*"}}}',
      };
      const result = signClient(
        { tobesignedValues, token_id: 'bjbvcjzqbdsj', mintingfee: 496 },
        { familySigner: root, clock, caller: { privileged: true } },
      );
      expect(result.metadata).toEqual(tobesignedValues);
    });
  });
});
