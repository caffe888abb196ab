/**
 * Both Ed25519 lanes under the one acceptance policy: every published and derived vector has the
 * pinned outcome on the noble lane and on the node:crypto lane (so they agree), signers reproduce
 * RFC 8032 signatures byte for byte, and random signatures and single-bit forgeries agree.
 */
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { ed25519, ED25519_TORSION_SUBGROUP } from '@noble/curves/ed25519.js';
import vectorFile from '../../test-vectors/ed25519-policy.json' with { type: 'json' };
import { ed25519PolicyRejection, SMALL_ORDER_ENCODINGS } from '../crypto/ed25519-policy.js';
import { createNobleSigner, publicKeyFromSeed } from '../crypto/noble.signer.js';
import { createNobleVerifier } from '../crypto/noble.verifier.js';
import { buildDidDocument } from '../did/did-document.js';
import { ed25519KeyObject, KeyObjectLruCache } from './key-object.cache.js';
import {
  createNodeThreadPoolVerifier,
  createNodeVerifier,
  type NodeVerifierOptions,
} from './node-crypto.verifier.js';
import { createNodeSigner } from './node.signer.js';
import { verify as rawNodeVerify } from 'node:crypto';
import { runInNewContext } from 'node:vm';

interface PolicyVector {
  id: string;
  publicKey: string;
  message: string;
  signature: string;
  expected: 'accept' | 'reject';
  rejection?: string;
  published?: { secretSeed?: string; valid_zip215?: boolean };
}
const vectors = vectorFile.vectors as PolicyVector[];
const bytes = (hex: string) => new Uint8Array(Buffer.from(hex, 'hex'));
const noble = createNobleVerifier();
const node = createNodeVerifier();
const pool = createNodeThreadPoolVerifier();

describe('the vector file', () => {
  it('holds the published sets in full', () => {
    const count = (prefix: string) => vectors.filter((v) => v.id.startsWith(prefix)).length;
    expect(count('rfc8032-test')).toBeGreaterThanOrEqual(3);
    expect(count('zip215-')).toBe(196);
    expect(count('speccheck-')).toBe(12);
  });
});

/** The group order L = 2^252 + 27742317777372353535851937790883648493. */
const L = 2n ** 252n + 27742317777372353535851937790883648493n;
/** `signature` with its S (the last 32 bytes, little-endian) set to `scalar`. */
function withS(signature: Uint8Array, scalar: bigint): Uint8Array {
  const out = Uint8Array.from(signature);
  for (let i = 0; i < 32; i++) out[32 + i] = Number((scalar >> BigInt(8 * i)) & 0xffn);
  return out;
}

describe('rejections before any curve arithmetic', () => {
  const base = vectors.find((v) => v.id === 'rfc8032-test1')!;
  it('S = L − 1 is canonical: the pre-check passes it to the equation, which fails', () => {
    const signature = withS(bytes(base.signature), L - 1n);
    expect(ed25519PolicyRejection(signature, bytes(base.publicKey))).toBeNull();
    expect(noble.verify(signature, bytes(base.message), bytes(base.publicKey))).toBe(false);
  });
  it.each([
    [
      'a 63-byte signature',
      bytes(base.signature).subarray(0, 63),
      bytes(base.publicKey),
      'bad_signature_length',
    ],
    ['a 31-byte key', bytes(base.signature), bytes(base.publicKey).subarray(0, 31), 'bad_public_key_length'],
    // S exactly L (a mutation probe: S == L passed the pre-check; the vectors hold S + L, never L itself).
    ['S equal to L', withS(bytes(base.signature), L), bytes(base.publicKey), 'non_canonical_s'],
  ])('%s', (_name, signature, publicKey, reason) => {
    expect(ed25519PolicyRejection(signature, publicKey)).toBe(reason);
    expect(noble.verify(signature, new Uint8Array(), publicKey)).toBe(false);
    expect(node.verify(signature, new Uint8Array(), publicKey)).toBe(false);
  });

  // A mutation probe: the y ≥ p scan skipping byte 1 passed (every vector's y is far from p).
  it.each(Array.from({ length: 30 }, (_, i) => i + 1))(
    'a key y = p − 1 with byte %i lowered is below p: canonical, so the pre-check passes it',
    (position) => {
      const key = new Uint8Array(32).fill(0xff);
      key[0] = 0xed;
      key[31] = 0x7f;
      expect(ed25519PolicyRejection(bytes(base.signature), key)).toBe('non_canonical_public_key'); // y = p
      key[position] = 0xfe;
      expect(ed25519PolicyRejection(bytes(base.signature), key)).toBeNull();
    },
  );

  it('refuses non-bytes without throwing', () => {
    const garbage = [null, undefined, 'abc', 42, {}, [1, 2, 3]] as unknown as Uint8Array[];
    for (const g of garbage) {
      for (const lane of [noble, node]) {
        expect(lane.verify(g, new Uint8Array(), new Uint8Array(32))).toBe(false);
        expect(lane.verify(new Uint8Array(64), g, new Uint8Array(32))).toBe(false);
        expect(lane.verify(new Uint8Array(64), new Uint8Array(), g)).toBe(false);
      }
    }
  });

  it('refuses non-bytes without throwing on the thread-pool lane too', async () => {
    const garbage = [null, undefined, 'abc', 42, {}, [1, 2, 3]] as unknown as Uint8Array[];
    for (const g of garbage) {
      await expect(pool.verify(g, new Uint8Array(), new Uint8Array(32))).resolves.toBe(false);
      await expect(pool.verify(new Uint8Array(64), g, new Uint8Array(32))).resolves.toBe(false);
      await expect(pool.verify(new Uint8Array(64), new Uint8Array(), g)).resolves.toBe(false);
    }
  });

  it('knows exactly the 8 small-order points', () => {
    expect(SMALL_ORDER_ENCODINGS.map((b) => Buffer.from(b).toString('hex'))).toEqual([
      ...ED25519_TORSION_SUBGROUP,
    ]);
    for (const encoding of SMALL_ORDER_ENCODINGS)
      expect(ed25519.Point.fromBytes(encoding).isSmallOrder()).toBe(true);
  });
});

describe.each([
  ['noble lane', noble],
  ['node:crypto lane', node],
])('%s', (_name, lane) => {
  it.each(vectors.map((v) => [v.id, v] as const))('%s', (_id, v) => {
    const signature = bytes(v.signature);
    const publicKey = bytes(v.publicKey);
    expect(lane.verify(signature, bytes(v.message), publicKey)).toBe(v.expected === 'accept');
    const preCheck = ed25519PolicyRejection(signature, publicKey);
    expect(preCheck).toBe(v.expected === 'accept' || v.rejection === 'equation' ? null : v.rejection);
  });
});

describe('node:crypto thread-pool lane', () => {
  it.each(vectors.map((v) => [v.id, v] as const))('%s', async (_id, v) => {
    const signature = bytes(v.signature);
    const publicKey = bytes(v.publicKey);
    await expect(pool.verify(signature, bytes(v.message), publicKey)).resolves.toBe(v.expected === 'accept');
  });

  it('answers concurrent calls each with its own result', async () => {
    const signers = ['p', 'q', 'r', 's'].map((l) =>
      createNodeSigner(new Uint8Array(createHash('sha256').update(l).digest())),
    );
    const message = new TextEncoder().encode('concurrent');
    const calls = signers.flatMap((s, i) => [
      [s.sign(message), s.publicKey, true] as const,
      [s.sign(message), signers[(i + 1) % signers.length].publicKey, false] as const,
    ]);
    const results = await Promise.all(calls.map(([sig, pk]) => pool.verify(sig, message, pk)));
    expect(results).toEqual(calls.map(([, , expected]) => expected));
  });
});

describe('why one policy is needed (raw libraries disagree)', () => {
  it('noble default accepts every ZIP-215 case; the policy lanes accept none', () => {
    const zip = vectors.filter((v) => v.id.startsWith('zip215-'));
    const rawAccepted = zip.filter((v) =>
      ed25519.verify(bytes(v.signature), bytes(v.message), bytes(v.publicKey), { zip215: true }),
    );
    expect(rawAccepted).toHaveLength(196);
    expect(zip.every((v) => v.expected === 'reject')).toBe(true);
  });

  it('a signer-made mixed-order R passes noble (cofactored) but not OpenSSL (cofactorless)', () => {
    const v = vectors.find((x) => x.id === 'derived-mixed-order-r')!;
    const [sig, msg, pk] = [bytes(v.signature), bytes(v.message), bytes(v.publicKey)];
    expect(ed25519.verify(sig, msg, pk, { zip215: false })).toBe(true);
    expect(rawNodeVerify(null, msg, ed25519KeyObject(pk), sig)).toBe(false);
    expect(noble.verify(sig, msg, pk)).toBe(false);
    expect(node.verify(sig, msg, pk)).toBe(false);
  });
});

describe('signers', () => {
  const rfc = vectors.filter((v) => v.published?.secretSeed);

  it.each(rfc.map((v) => [v.id, v] as const))('reproduce %s byte for byte', (_id, v) => {
    const seed = bytes(v.published!.secretSeed!);
    for (const signer of [createNobleSigner(seed), createNodeSigner(seed)]) {
      expect(Buffer.from(signer.publicKey).toString('hex')).toBe(v.publicKey);
      expect(Buffer.from(signer.sign(bytes(v.message))).toString('hex')).toBe(v.signature);
    }
    expect(Buffer.from(publicKeyFromSeed(seed)).toString('hex')).toBe(v.publicKey);
  });

  it('refuse seeds that are not 32 bytes', () => {
    for (const make of [createNobleSigner, createNodeSigner, publicKeyFromSeed]) {
      expect(() => make(new Uint8Array(31))).toThrow(RangeError);
      expect(() => make(new Uint8Array(64))).toThrow(RangeError);
    }
  });

  // A walkthrough: an integrator passed a NEAR key file's 64-byte private_key and read only "an Ed25519
  // seed is 32 bytes". Still refused (its second half is not checked against anything here), with the fix.
  it('name the seed to pass when given 64 bytes (a NEAR private key) or anything else', () => {
    for (const make of [createNobleSigner, createNodeSigner, publicKeyFromSeed]) {
      expect(() => make(new Uint8Array(64))).toThrow(
        'an Ed25519 seed is 32 bytes, not 64: a NEAR private key (64 bytes) is the seed then the public key; pass parseNearCredentials(text).secretSeed',
      );
      expect(() => make(new Uint8Array(31))).toThrow(
        'an Ed25519 seed is a Uint8Array of 32 bytes (got 31 bytes); of a key file: parseNearCredentials(text).secretSeed',
      );
      expect(() => make('seed' as unknown as Uint8Array)).toThrow('(got string)');
    }
  });

  it('property: both lanes accept fresh signatures and agree on every single-bit change', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 32, maxLength: 32 }),
        fc.uint8Array({ maxLength: 200 }),
        fc.constantFrom('signature', 'message', 'publicKey'),
        fc.nat(),
        (seed, message, part, bitSeed) => {
          const signer = createNodeSigner(seed);
          const signature = signer.sign(message);
          expect(createNobleSigner(seed).sign(message)).toEqual(signature);
          expect(noble.verify(signature, message, signer.publicKey)).toBe(true);
          expect(node.verify(signature, message, signer.publicKey)).toBe(true);

          const target = { signature, message, publicKey: signer.publicKey }[part as 'signature'];
          if (target.length === 0) return;
          const changed = Uint8Array.from(target);
          const bit = bitSeed % (changed.length * 8);
          changed[bit >> 3] ^= 1 << (bit & 7);
          const args = {
            signature: part === 'signature' ? changed : signature,
            message: part === 'message' ? changed : message,
            publicKey: part === 'publicKey' ? changed : signer.publicKey,
          };
          const viaNoble = noble.verify(args.signature, args.message, args.publicKey);
          expect(node.verify(args.signature, args.message, args.publicKey)).toBe(viaNoble);
          expect(viaNoble).toBe(false);
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('KeyObjectLruCache', () => {
  const key = (label: string) =>
    createNodeSigner(new Uint8Array(createHash('sha256').update(label).digest())).publicKey;

  it('never holds more than its capacity and evicts the least recently used key', () => {
    const cache = new KeyObjectLruCache(2);
    const [a, b, c] = [key('a'), key('b'), key('c')];
    cache.get(a);
    cache.get(b);
    cache.get(a); // a is now the most recent
    cache.get(c); // evicts b
    expect(cache.size).toBe(2);
    expect(cache.has(a)).toBe(true);
    expect(cache.has(b)).toBe(false);
    expect(cache.has(c)).toBe(true);
  });

  it('keeps verifying correctly while keys churn through a tiny cache', () => {
    const verifier = createNodeVerifier({ keyCacheSize: 1 });
    const signers = ['x', 'y', 'z'].map((l) =>
      createNodeSigner(new Uint8Array(createHash('sha256').update(l).digest())),
    );
    const message = new TextEncoder().encode('churn');
    for (let round = 0; round < 3; round++) {
      for (const s of signers) {
        expect(verifier.verify(s.sign(message), message, s.publicKey)).toBe(true);
        expect(
          verifier.verify(s.sign(message), message, signers[(signers.indexOf(s) + 1) % 3].publicKey),
        ).toBe(false);
      }
    }
  });

  it('answers by bytes, not by buffer: a reused buffer holding another key gets that key', () => {
    const cache = new KeyObjectLruCache(8);
    const [a, b] = [key('alias-a'), key('alias-b')];
    const buffer = Uint8Array.from(a);
    const exported = (k: ReturnType<typeof cache.get>) =>
      k.export({ format: 'der', type: 'spki' }).toString('hex');
    expect(exported(cache.get(buffer))).toBe(exported(ed25519KeyObject(a)));
    buffer.set(b);
    expect(exported(cache.get(buffer))).toBe(exported(ed25519KeyObject(b)));
    expect(cache.get(buffer)).toBe(cache.get(Uint8Array.from(b)));
  });

  it('can be shared by both forms of the lane: a key is built once for both', async () => {
    const cache = new KeyObjectLruCache(8);
    const inline = createNodeVerifier({ keyCache: cache });
    const threadPool = createNodeThreadPoolVerifier({ keyCache: cache });
    const signer = createNodeSigner(new Uint8Array(createHash('sha256').update('shared').digest()));
    const message = new TextEncoder().encode('shared cache');
    expect(inline.verify(signer.sign(message), message, signer.publicKey)).toBe(true);
    expect(cache.size).toBe(1);
    await expect(threadPool.verify(signer.sign(message), message, signer.publicKey)).resolves.toBe(true);
    expect(cache.size).toBe(1);
  });

  it('rejects a capacity that is not a positive integer', () => {
    expect(() => new KeyObjectLruCache(0)).toThrow(RangeError);
    expect(() => createNodeVerifier({ keyCacheSize: 1.5 })).toThrow(RangeError);
    expect(() => createNodeThreadPoolVerifier({ keyCacheSize: 0 })).toThrow(RangeError);
  });

  it.each([{}, new Map(), 'cache', 42])(
    'refuses a keyCache that is no cache (%p): its error on every call read as a bad key (every signature invalid)',
    (keyCache) => {
      const options = { keyCache } as unknown as NodeVerifierOptions;
      expect(() => createNodeVerifier(options)).toThrow(TypeError);
      expect(() => createNodeThreadPoolVerifier(options)).toThrow(TypeError);
    },
  );

  it('takes null options and a null keyCache (from JavaScript) as none', () => {
    const signer = createNodeSigner(new Uint8Array(32).fill(5));
    const message = new Uint8Array([1]);
    const signature = signer.sign(message);
    expect(createNodeVerifier(null as never).verify(signature, message, signer.publicKey)).toBe(true);
    const noCache = { keyCache: null } as unknown as NodeVerifierOptions;
    expect(createNodeVerifier(noCache).verify(signature, message, signer.publicKey)).toBe(true);
  });
});

describe('bytes from another JavaScript realm (an iframe, a vm context, a jsdom test)', () => {
  // A Uint8Array made by another realm's constructor fails `instanceof Uint8Array` here; the lanes
  // used to answer such a valid signature `false` without saying why.
  const ForeignUint8Array = runInNewContext('Uint8Array') as Uint8ArrayConstructor;
  const foreign = (b: Uint8Array) => ForeignUint8Array.from(b);
  const signer = createNobleSigner(new Uint8Array(32).fill(9));
  const message = new TextEncoder().encode('HOLA from another realm');
  const signature = signer.sign(message);

  it('is not an instance of this realm’s Uint8Array (the premise)', () => {
    expect(foreign(message) instanceof Uint8Array).toBe(false);
  });

  it('verifies on every lane and passes the policy', async () => {
    const args = [foreign(signature), foreign(message), foreign(signer.publicKey)] as const;
    expect(ed25519PolicyRejection(args[0], args[2])).toBeNull();
    expect(noble.verify(...args)).toBe(true);
    expect(node.verify(...args)).toBe(true);
    await expect(pool.verify(...args)).resolves.toBe(true);
    const tampered = foreign(signature);
    tampered[0] ^= 1;
    expect(noble.verify(tampered, args[1], args[2])).toBe(false);
  });

  it('builds a DID document from a foreign owner key', () => {
    const record = { tokenId: 'bjbvcjzqbdsj', metadata: {} };
    const options = { publicBaseUrl: 'https://api.example' };
    expect(buildDidDocument(record, foreign(signer.publicKey), options)).toEqual(
      buildDidDocument(record, signer.publicKey, options),
    );
  });

  it('signs from a foreign seed on both lanes', () => {
    const seed = foreign(new Uint8Array(32).fill(9));
    expect(createNobleSigner(seed).sign(message)).toEqual(signature);
    expect(createNodeSigner(seed).sign(message)).toEqual(signature);
  });
});

// Found by a probe: the node lane signed a string (its UTF-8) where the noble lane threw, and a signer's
// publicKey was its own array, which a caller could edit.
describe('both signing lanes take the same inputs and keep their key', () => {
  const seed = new Uint8Array(32).fill(7);
  it.each([
    ['noble', createNobleSigner],
    ['node', createNodeSigner],
  ])(
    'the %s lane refuses a message that is not bytes, and hands out copies of its public key',
    (_lane, make) => {
      const signer = make(seed);
      for (const message of ['hello', 42, null, undefined, [1, 2, 3], { length: 3 }])
        expect(() => signer.sign(message as unknown as Uint8Array)).toThrow(TypeError);
      const given = signer.publicKey;
      given.fill(0);
      expect(signer.publicKey).toEqual(publicKeyFromSeed(seed));
      expect(
        ed25519.verify(signer.sign(new Uint8Array([1, 2])), new Uint8Array([1, 2]), signer.publicKey),
      ).toBe(true);
    },
  );
});
