import { FixedClock } from '../memory/fixed.clock.js';
import { createNobleSigner } from '../crypto/noble.signer.js';
import { createNobleVerifier } from '../crypto/noble.verifier.js';
import { type SignatureVerifier } from '../ports/signature-verifier.port.js';
import { familyMetadataDigest, signFamilyMetadata, verifyFamilySignature } from './family-signature.js';
import { FamilyVerdictCache } from './family-verdict.cache.js';

const root = createNobleSigner(new Uint8Array(32).fill(7));
const otherRoot = createNobleSigner(new Uint8Array(32).fill(9));
const TOKEN = 'bjbvcjzqbdsj';

function countingVerifier(): SignatureVerifier & { calls: number } {
  const inner = createNobleVerifier();
  const counter = {
    calls: 0,
    verify(signature: Uint8Array, message: Uint8Array, key: Uint8Array) {
      counter.calls++;
      return inner.verify(signature, message, key);
    },
  };
  return counter;
}

function signed(extra: Record<string, string> = {}) {
  const metadata: Record<string, string> = {
    serviceprovider_id: 'bc=local;sc=passport.test;id=root',
    max_requests: '10',
    ...extra,
  };
  return { ...metadata, serviceprovider_signature: signFamilyMetadata(metadata, TOKEN, root) };
}

/** A broken verifier port: truthy answers that are not `true` (the library takes only `true`). */
const truthyAnswers: [string, unknown][] = [
  ['a string', 'yes'],
  ['a number', 1],
  ['an object', {}],
];

describe('FamilyVerdictCache', () => {
  it.each(truthyAnswers)(
    'a verifier port answering %s is no valid family signature, directly or through the cache (none cached)',
    (_what, answer) => {
      const broken = { verify: () => answer } as unknown as SignatureVerifier;
      const metadata = signed();
      expect(verifyFamilySignature(metadata, TOKEN, [otherRoot.publicKey], broken)).toBe(false);
      for (const ttlMs of [0, 5000]) {
        const cache = new FamilyVerdictCache(broken, { ttlMs, clock: new FixedClock(1_000_000) });
        expect(verifyFamilySignature(metadata, TOKEN, [otherRoot.publicKey], cache)).toBe(false);
        expect(cache.size).toBe(0);
      }
    },
  );

  it('verifies a family signature once while the verdict lives, and again once it expired', () => {
    const clock = new FixedClock(1_000_000);
    const inner = countingVerifier();
    const cache = new FamilyVerdictCache(inner, { ttlMs: 5000, clock });
    const metadata = signed();
    expect(verifyFamilySignature(metadata, TOKEN, [root.publicKey], cache)).toBe(true);
    expect(verifyFamilySignature(metadata, TOKEN, [root.publicKey], cache)).toBe(true);
    expect(inner.calls).toBe(1);
    clock.advance(4999);
    expect(verifyFamilySignature(metadata, TOKEN, [root.publicKey], cache)).toBe(true);
    expect(inner.calls).toBe(1);
    clock.advance(1);
    expect(verifyFamilySignature(metadata, TOKEN, [root.publicKey], cache)).toBe(true);
    expect(inner.calls).toBe(2);
  });

  it('checks changed metadata, another token id, another signature and another root key afresh (fail closed)', () => {
    const clock = new FixedClock(1_000_000);
    const inner = countingVerifier();
    const cache = new FamilyVerdictCache(inner, { ttlMs: 5000, clock });
    const metadata = signed();
    expect(verifyFamilySignature(metadata, TOKEN, [root.publicKey], cache)).toBe(true);
    // A signed field changed after signing: a new digest, verified, refused.
    expect(verifyFamilySignature({ ...metadata, max_requests: '1000' }, TOKEN, [root.publicKey], cache)).toBe(
      false,
    );
    // The same metadata presented for another token.
    expect(verifyFamilySignature(metadata, 'cdcdcdcdcdcd', [root.publicKey], cache)).toBe(false);
    // The family's root key is another one now.
    expect(verifyFamilySignature(metadata, TOKEN, [otherRoot.publicKey], cache)).toBe(false);
    // Another (forged) signature over the same metadata.
    const forged = { ...metadata, serviceprovider_signature: signFamilyMetadata(metadata, TOKEN, otherRoot) };
    expect(verifyFamilySignature(forged, TOKEN, [root.publicKey], cache)).toBe(false);
    expect(inner.calls).toBe(5);
  });

  it('a record changed in place is checked afresh: its digest is not reused once a signed value changed', () => {
    const clock = new FixedClock(1_000_000);
    const inner = countingVerifier();
    const cache = new FamilyVerdictCache(inner, { ttlMs: 5000, clock });
    const metadata: Record<string, string> = signed();
    expect(verifyFamilySignature(metadata, TOKEN, [root.publicKey], cache)).toBe(true);
    metadata.max_requests = '1000';
    expect(verifyFamilySignature(metadata, TOKEN, [root.publicKey], cache)).toBe(false);
    metadata.max_requests = '10';
    expect(verifyFamilySignature(metadata, TOKEN, [root.publicKey], cache)).toBe(true);
    // A signed field added in place (absent before).
    metadata.allowed_cidr = '10.0.0.0/8';
    expect(verifyFamilySignature(metadata, TOKEN, [root.publicKey], cache)).toBe(false);
    delete metadata.allowed_cidr;
    // The signature replaced in place by one of another root.
    metadata.serviceprovider_signature = signFamilyMetadata(metadata, TOKEN, otherRoot);
    expect(verifyFamilySignature(metadata, TOKEN, [root.publicKey], cache)).toBe(false);
    // The first verdict, restored metadata (a cache hit on its recomputed digest) aside: every change verified.
    expect(inner.calls).toBe(4);
  });

  it('a signed value that is an object is hashed on every check (a nested change is seen)', () => {
    const cache = new FamilyVerdictCache(countingVerifier(), {
      ttlMs: 5000,
      clock: new FixedClock(1_000_000),
    });
    const routes = { entities: { methods: { '/api/me': '60' } } };
    const unsigned = { serviceprovider_id: 'bc=local;sc=passport.test;id=root', permissioned_routes: routes };
    const metadata = { ...unsigned, serviceprovider_signature: signFamilyMetadata(unsigned, TOKEN, root) };
    expect(verifyFamilySignature(metadata as never, TOKEN, [root.publicKey], cache)).toBe(true);
    routes.entities.methods['/api/me'] = '6000';
    expect(verifyFamilySignature(metadata as never, TOKEN, [root.publicKey], cache)).toBe(false);
  });

  it('keys verdicts by the exact bytes of each input: moving bytes between them is another key', () => {
    const inner = countingVerifier();
    const cache = new FamilyVerdictCache(inner, { ttlMs: 5000, clock: new FixedClock(1_000_000) });
    const message = familyMetadataDigest({ max_requests: '10' }, TOKEN);
    const signature = root.sign(message);
    expect(cache.verify(signature, message, root.publicKey)).toBe(true);
    // The same bytes, split differently: the key's first byte moved to the signature's front, etc.
    const all = new Uint8Array([...root.publicKey, ...signature, ...message]);
    expect(cache.verify(all.subarray(31, 95), all.subarray(95), all.subarray(0, 31))).toBe(false);
    expect(cache.verify(all.subarray(33, 97), all.subarray(97), all.subarray(0, 33))).toBe(false);
    expect(inner.calls).toBe(3);
  });

  it('never remembers a refusal: a failing signature is checked every time', () => {
    const clock = new FixedClock(1_000_000);
    const inner = countingVerifier();
    const cache = new FamilyVerdictCache(inner, { ttlMs: 5000, clock });
    const digest = familyMetadataDigest(signed(), TOKEN);
    const bad = new Uint8Array(64);
    expect(cache.verify(bad, digest, root.publicKey)).toBe(false);
    expect(cache.verify(bad, digest, root.publicKey)).toBe(false);
    expect(inner.calls).toBe(2);
    expect(cache.size).toBe(0);
  });

  it('reuses nothing with a lifetime of 0 (an uncached chain reader)', () => {
    const clock = new FixedClock(1_000_000);
    const inner = countingVerifier();
    const cache = new FamilyVerdictCache(inner, { ttlMs: 0, clock });
    const metadata = signed();
    verifyFamilySignature(metadata, TOKEN, [root.publicKey], cache);
    verifyFamilySignature(metadata, TOKEN, [root.publicKey], cache);
    expect(inner.calls).toBe(2);
    expect(cache.size).toBe(0);
  });

  it('is bounded: the oldest verdict leaves first', () => {
    const clock = new FixedClock(1_000_000);
    const inner = countingVerifier();
    const cache = new FamilyVerdictCache(inner, { ttlMs: 5000, clock, maxEntries: 2 });
    const [a, b, c] = ['a', 'b', 'c'].map((n) => signed({ webhook_cidr: n }));
    for (const m of [a, b, c]) verifyFamilySignature(m, TOKEN, [root.publicKey], cache);
    expect(cache.size).toBe(2);
    verifyFamilySignature(c, TOKEN, [root.publicKey], cache);
    expect(inner.calls).toBe(3);
    verifyFamilySignature(a, TOKEN, [root.publicKey], cache);
    expect(inner.calls).toBe(4);
  });
});
