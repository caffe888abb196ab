import { nearCredentialsFromSeed, verifyFamilySignature } from '@passport/core';
import { createNodeVerifier } from '@passport/core/node';
import { mintFamilyPassport } from './family-mint.js';

const ROOT_ID = 'bc=local;sc=passport.local;id=devroot';
const root = nearCredentialsFromSeed(new Uint8Array(32).fill(1));
const other = nearCredentialsFromSeed(new Uint8Array(32).fill(2));

describe('mintFamilyPassport', () => {
  const minted = mintFamilyPassport({
    rootTokenId: ROOT_ID,
    rootSecretSeed: root.secretSeed,
    tokenId: 'bhahbkbramax',
    ownerId: 'alice.near',
    serverUrl: 'https://api.example.com',
    fields: { userselected_dn: 'NNSWF=Alice', not_after: '2030-01-01T00:00:00Z', webhook_url: undefined },
  });

  it('signs the record the issuer way: the family root key verifies it for this token id only', () => {
    const verifier = createNodeVerifier();
    expect(verifyFamilySignature(minted.metadata, 'bhahbkbramax', [root.publicKey], verifier)).toBe(true);
    expect(verifyFamilySignature(minted.metadata, 'lhsrldbjsnlh', [root.publicKey], verifier)).toBe(false);
    expect(verifyFamilySignature(minted.metadata, 'bhahbkbramax', [other.publicKey], verifier)).toBe(false);
  });

  it('carries the family, the server URL and the given fields; absent fields and token_id are left out', () => {
    expect(Object.keys(minted.metadata).sort()).toEqual(
      [
        'not_after',
        'serviceprovider_id',
        'serviceprovider_signature',
        'subjectuniqueidentifier_url',
        'userselected_dn',
      ].sort(),
    );
    expect(minted.metadata).toMatchObject({
      serviceprovider_id: ROOT_ID,
      subjectuniqueidentifier_url: 'https://api.example.com',
      userselected_dn: 'NNSWF=Alice',
    });
  });

  it('gives the ledger entry holding exactly that metadata', () => {
    expect(minted.entry).toEqual({
      token_id: 'bhahbkbramax',
      owner_id: 'alice.near',
      metadata: minted.metadata,
    });
  });
});
