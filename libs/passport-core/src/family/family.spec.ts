import fc from 'fast-check';
import vectors from '../../test-vectors/family.json' with { type: 'json' };
import { MemoryChainReader } from '../adapters/memory/memory-chain.reader.js';
import { decodeHex, encodeHex } from '../codecs/hex.codec.js';
import { createNobleSigner } from '../crypto/noble.signer.js';
import { createNobleVerifier } from '../crypto/noble.verifier.js';
import { canonicalJson } from './canonical-json.js';
import { checkFamilyMembership } from './family-membership.js';
import {
  FAMILY_SIGNED_FIELDS,
  familyMetadataDigest,
  signFamilyMetadata,
  verifyFamilySignature,
} from './family-signature.js';
import {
  familyRootTokenId,
  formatServiceProviderId,
  parseServiceProviderId,
  sharedFamilyRoots,
} from './serviceprovider-id.js';

const verifier = createNobleVerifier();
const root = createNobleSigner(decodeHex(vectors.rootSeedHex)!);

describe('canonical JSON', () => {
  it('sorts keys at every depth, drops undefined members, keeps array order', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: 1, y: undefined, x: null }], c: 'é' } })).toBe(
      '{"a":{"c":"é","d":[3,{"x":null,"z":1}]},"b":1}',
    );
    expect(canonicalJson([undefined, 1])).toBe('[null,1]');
  });
  it('rejects a value with no JSON form', () => {
    expect(() => canonicalJson(undefined)).toThrow(TypeError);
  });
  it('key order never changes the text or the digest (property)', () => {
    const json = fc.jsonValue();
    fc.assert(
      fc.property(fc.dictionary(fc.string(), json), fc.integer(), (object, seed) => {
        const keys = Object.keys(object);
        const shuffled: Record<string, unknown> = {};
        // Reverse or rotate by seed: a different insertion order of the same members.
        const order = keys.map((_, i) => keys[(i + Math.abs(seed)) % keys.length]).reverse();
        // defineProperty: a plain assignment to "__proto__" would set the prototype instead.
        for (const key of order)
          Object.defineProperty(shuffled, key, { value: object[key], enumerable: true });
        return (
          canonicalJson(shuffled) === canonicalJson(object) &&
          encodeHex(familyMetadataDigest(shuffled)) === encodeHex(familyMetadataDigest(object))
        );
      }),
    );
  });
  it('parses back to the same value (property)', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(JSON.parse(canonicalJson(value))).toEqual(JSON.parse(JSON.stringify(value)));
      }),
    );
  });
});

describe('serviceprovider_id', () => {
  it('parses one or more roots and formats back', () => {
    const id = parseServiceProviderId('bc=near;sc=passport.near;id=root1;id=root2');
    expect(id).toEqual({ chain: 'near', contract: 'passport.near', rootIds: ['root1', 'root2'] });
    expect(formatServiceProviderId(id!)).toBe('bc=near;sc=passport.near;id=root1;id=root2');
    expect(familyRootTokenId(id!, 'root2')).toBe('bc=near;sc=passport.near;id=root2');
  });
  it.each([
    '',
    'bc=near;sc=passport.near',
    'sc=passport.near;bc=near;id=r',
    'bc=near;sc=passport.near;id=',
    'bc=near;sc=passport.near;id=r;id=r',
    'bc=near;sc=passport.near;id=r;x=1',
    'bc=near;sc=passport.near;id=a b',
    'bc=near;sc=passport.near;id=r;',
    'bc=near;sc=passport.near;idr',
  ])('rejects %j', (text) => {
    expect(parseServiceProviderId(text)).toBeNull();
  });
  it('rejects non-strings', () => {
    expect(parseServiceProviderId(undefined)).toBeNull();
    expect(parseServiceProviderId(42)).toBeNull();
  });
  it('shares roots only within one chain and contract', () => {
    const a = parseServiceProviderId('bc=near;sc=c;id=r1;id=r2')!;
    expect(sharedFamilyRoots(a, parseServiceProviderId('bc=near;sc=c;id=r2')!)).toEqual(['r2']);
    expect(sharedFamilyRoots(a, parseServiceProviderId('bc=near;sc=c;id=r3')!)).toEqual([]);
    expect(sharedFamilyRoots(a, parseServiceProviderId('bc=near;sc=other;id=r2')!)).toEqual([]);
  });
});

describe('family signature vectors (test-vectors/family.json)', () => {
  it('the signed field list is the one of resolutions §3', () => {
    expect([...FAMILY_SIGNED_FIELDS]).toEqual(vectors.signedFields);
    expect(encodeHex(root.publicKey)).toBe(vectors.rootPublicKeyHex);
  });
  it.each(vectors.cases.map((c) => [c.note, c] as const))('%s', (_note, c) => {
    const { serviceprovider_signature: _ignored, ...metadata } = c.metadata as Record<string, string>;
    expect(encodeHex(familyMetadataDigest(metadata))).toBe(c.digestHex);
    expect(signFamilyMetadata(metadata, root)).toBe(c.signature);
    expect(
      verifyFamilySignature(
        { ...metadata, serviceprovider_signature: c.signature },
        [root.publicKey],
        verifier,
      ),
    ).toBe(true);
    expect(canonicalJson(JSON.parse(c.canonicalJson))).toBe(c.canonicalJson);
  });
});

describe('family signature negatives', () => {
  const base = vectors.cases[0].metadata as Record<string, string>;
  const signed: Record<string, string> = { ...base, serviceprovider_signature: vectors.cases[0].signature };
  it.each(FAMILY_SIGNED_FIELDS.map((f) => [f]))('changing %s breaks it', (field) => {
    expect(
      verifyFamilySignature({ ...signed, [field]: `${signed[field] ?? ''}x` }, [root.publicKey], verifier),
    ).toBe(false);
  });
  it('unsigned fields may change', () => {
    expect(
      verifyFamilySignature(
        { ...signed, webhook_url: 'https://elsewhere', revoked: 'false' },
        [root.publicKey],
        verifier,
      ),
    ).toBe(true);
  });
  it('another key, padded/base64 text, a short signature or none fail', () => {
    const other = createNobleSigner(new Uint8Array(32).fill(9)).publicKey;
    expect(verifyFamilySignature(signed, [other], verifier)).toBe(false);
    expect(verifyFamilySignature(signed, [other, root.publicKey], verifier)).toBe(true);
    expect(
      verifyFamilySignature(
        { ...signed, serviceprovider_signature: `${signed.serviceprovider_signature}==` },
        [root.publicKey],
        verifier,
      ),
    ).toBe(false);
    expect(
      verifyFamilySignature(
        { ...signed, serviceprovider_signature: signed.serviceprovider_signature.slice(0, 80) },
        [root.publicKey],
        verifier,
      ),
    ).toBe(false);
    expect(
      verifyFamilySignature({ ...base, serviceprovider_signature: undefined }, [root.publicKey], verifier),
    ).toBe(false);
    expect(verifyFamilySignature(signed, [], verifier)).toBe(false);
  });
});

describe('family membership through the chain', () => {
  const family = parseServiceProviderId('bc=local;sc=passport.test;id=old;id=devroot')!;
  const rootRecord = (ownerId: string, revoked = false) => ({
    tokenId: familyRootTokenId(family, 'devroot'),
    ownerId,
    contractId: 'passport.test',
    metadata: {},
    revoked,
  });
  const member = {
    ...(vectors.cases[1].metadata as Record<string, string>),
    serviceprovider_signature: vectors.cases[1].signature,
  };

  it('a passport signed by the second root is a member of that root', async () => {
    const chain = new MemoryChainReader({
      contractId: 'passport.test',
      passports: [rootRecord(encodeHex(root.publicKey))],
    });
    await expect(checkFamilyMembership({ chain, verifier, family, metadata: member })).resolves.toEqual({
      member: true,
      rootId: 'devroot',
    });
  });
  it('a named root owner signs with any of its full-access keys', async () => {
    const chain = new MemoryChainReader({
      contractId: 'passport.test',
      passports: [rootRecord('family.test')],
      accounts: { 'family.test': [new Uint8Array(32).fill(1), root.publicKey] },
    });
    await expect(checkFamilyMembership({ chain, verifier, family, metadata: member })).resolves.toMatchObject(
      { member: true },
    );
  });
  it('no member when the root passport is missing, revoked, or owned by another key', async () => {
    const missing = new MemoryChainReader({ contractId: 'passport.test' });
    const revoked = new MemoryChainReader({
      contractId: 'passport.test',
      passports: [rootRecord(encodeHex(root.publicKey), true)],
    });
    const otherOwner = new MemoryChainReader({
      contractId: 'passport.test',
      passports: [rootRecord('ab'.repeat(32))],
    });
    for (const chain of [missing, revoked, otherOwner]) {
      await expect(checkFamilyMembership({ chain, verifier, family, metadata: member })).resolves.toEqual({
        member: false,
        rootId: null,
      });
    }
  });
});
