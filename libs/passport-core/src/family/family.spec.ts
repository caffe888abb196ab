import fc from 'fast-check';
import vectors from '../../test-vectors/family.json' with { type: 'json' };
import issuerVectors from '../../test-vectors/family-issuer.json' with { type: 'json' };
import { MemoryChainReader } from '../memory/memory-chain.reader.js';
import { decodeHex, encodeHex } from '../codecs/hex.codec.js';
import { createNobleSigner } from '../crypto/noble.signer.js';
import { createNobleVerifier } from '../crypto/noble.verifier.js';
import { canonicalJson } from './canonical-json.js';
import { checkFamilyMembership } from './family-membership.js';
import {
  FAMILY_SIGNED_FIELDS,
  familyMetadataDigest,
  familySignedPayload,
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
          encodeHex(familyMetadataDigest(shuffled, 'bjbvcjzqbdsj')) ===
            encodeHex(familyMetadataDigest(object, 'bjbvcjzqbdsj'))
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

describe('issuer family signature vectors (test-vectors/family-issuer.json, made with node:crypto alone)', () => {
  it('the signed field list and the root key agree with the independent script', () => {
    expect([...FAMILY_SIGNED_FIELDS]).toEqual(vectors.signedFields);
    expect(issuerVectors.rootPublicKeyHex).toBe(encodeHex(root.publicKey));
  });
  it.each(issuerVectors.cases.map((c) => [c.note, c] as const))('%s', (_note, c) => {
    const metadata = c.metadata as Record<string, string>;
    expect(metadata.token_id).toBeUndefined();
    expect(canonicalJson(familySignedPayload(metadata, c.tokenId))).toBe(c.canonicalJson);
    expect(encodeHex(familyMetadataDigest(metadata, c.tokenId))).toBe(c.digestHex);
    expect(signFamilyMetadata(metadata, c.tokenId, root)).toBe(c.signature);
    const signed = { ...metadata, serviceprovider_signature: c.signature };
    expect(verifyFamilySignature(signed, c.tokenId, [root.publicKey], verifier)).toBe(true);
    // The signature belongs to its token: the same metadata on another record does not verify.
    expect(verifyFamilySignature(signed, 'bjbvcjzqbdsj', [root.publicKey], verifier)).toBe(false);
  });
});

describe('passports signed by earlier versions (test-vectors/family.json: metadata.token_id, absent fields dropped)', () => {
  it.each(vectors.cases.map((c) => [c.note, c] as const))(
    '%s still verifies on its own record',
    (_note, c) => {
      const metadata = c.metadata as Record<string, string>;
      expect(canonicalJson(JSON.parse(c.canonicalJson))).toBe(c.canonicalJson);
      const signed = { ...metadata, serviceprovider_signature: c.signature };
      expect(verifyFamilySignature(signed, metadata.token_id, [root.publicKey], verifier)).toBe(true);
    },
  );
  it('but never on another record, nor once the metadata token_id is gone or differs', () => {
    for (const c of vectors.cases) {
      const metadata = c.metadata as Record<string, string>;
      const signed = { ...metadata, serviceprovider_signature: c.signature };
      expect(
        verifyFamilySignature(
          { ...signed, token_id: 'bjbvcjzqbdsj' },
          'bjbvcjzqbdsj',
          [root.publicKey],
          verifier,
        ),
      ).toBe(false);
      expect(verifyFamilySignature(signed, 'bjbvcjzqbdsj', [root.publicKey], verifier)).toBe(false);
    }
    // A legacy case without quota fields differs from the issuer's digest, so it needs its token_id.
    const minimal = vectors.cases[1];
    const { token_id: tokenId, ...rest } = minimal.metadata as Record<string, string>;
    expect(
      verifyFamilySignature(
        { ...rest, serviceprovider_signature: minimal.signature },
        tokenId,
        [root.publicKey],
        verifier,
      ),
    ).toBe(false);
  });
});

describe('family signature negatives', () => {
  const c0 = issuerVectors.cases[0];
  const base = c0.metadata as Record<string, string>;
  const signed: Record<string, string> = { ...base, serviceprovider_signature: c0.signature };
  const verify = (metadata: Record<string, string | undefined>, keys: Uint8Array[], tokenId = c0.tokenId) =>
    verifyFamilySignature(metadata, tokenId, keys, verifier);
  it.each(FAMILY_SIGNED_FIELDS.filter((f) => f !== 'token_id').map((f) => [f]))(
    'changing %s breaks it',
    (field) => {
      expect(verify({ ...signed, [field]: `${signed[field] ?? ''}x` }, [root.publicKey])).toBe(false);
    },
  );
  it('another token id breaks it, and a token_id in the metadata does not stand in for the record', () => {
    expect(verify(signed, [root.publicKey], 'bjbvcjzqbdsj')).toBe(false);
    expect(verify({ ...signed, token_id: 'bjbvcjzqbdsj' }, [root.publicKey], 'bjbvcjzqbdsj')).toBe(false);
    expect(verify({ ...signed, token_id: 'bjbvcjzqbdsj' }, [root.publicKey])).toBe(true);
  });
  it('removing the quota changes what the issuer signed ("undefined")', () => {
    expect(verify({ ...signed, max_requests: undefined }, [root.publicKey])).toBe(false);
    expect(verify({ ...signed, maxrq_window: undefined }, [root.publicKey])).toBe(false);
  });
  it('unsigned fields may change', () => {
    expect(
      verify({ ...signed, webhook_url: 'https://elsewhere', revoked: 'false', userselected_dn: 'X=1' }, [
        root.publicKey,
      ]),
    ).toBe(true);
  });
  it('another key, padded/base64 text, a short signature or none fail', () => {
    const other = createNobleSigner(new Uint8Array(32).fill(9)).publicKey;
    expect(verify(signed, [other])).toBe(false);
    expect(verify(signed, [other, root.publicKey])).toBe(true);
    expect(
      verify({ ...signed, serviceprovider_signature: `${signed.serviceprovider_signature}==` }, [
        root.publicKey,
      ]),
    ).toBe(false);
    expect(
      verify({ ...signed, serviceprovider_signature: signed.serviceprovider_signature.slice(0, 80) }, [
        root.publicKey,
      ]),
    ).toBe(false);
    expect(verify({ ...base, serviceprovider_signature: undefined }, [root.publicKey])).toBe(false);
    expect(verify(signed, [])).toBe(false);
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
    ...(issuerVectors.cases[1].metadata as Record<string, string>),
    serviceprovider_signature: issuerVectors.cases[1].signature,
  };
  const tokenId = issuerVectors.cases[1].tokenId;

  it('a passport signed by the second root is a member of that root', async () => {
    const chain = new MemoryChainReader({
      contractId: 'passport.test',
      passports: [rootRecord(encodeHex(root.publicKey))],
    });
    await expect(
      checkFamilyMembership({ chain, verifier, family, metadata: member, tokenId }),
    ).resolves.toEqual({
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
    await expect(
      checkFamilyMembership({ chain, verifier, family, metadata: member, tokenId }),
    ).resolves.toMatchObject({ member: true });
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
      await expect(
        checkFamilyMembership({ chain, verifier, family, metadata: member, tokenId }),
      ).resolves.toEqual({
        member: false,
        rootId: null,
      });
    }
  });
});
