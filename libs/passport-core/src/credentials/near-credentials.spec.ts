import { ed25519 } from '@noble/curves/ed25519.js';
import { encodeBase58 } from '../codecs/base58.codec.js';
import { encodeHex } from '../codecs/hex.codec.js';
import { implicitAccountId, isImplicitAccountId, publicKeyOfImplicitAccount } from '../codecs/account-id.js';
import {
  InvalidNearCredentialsError,
  formatNearCredentials,
  isNearAccountId,
  nearCredentialsFromSeed,
  parseNearCredentials,
} from './near-credentials.js';
import { formatNearPublicKey, parseNearPublicKey } from './near-key-text.js';

const seed = Uint8Array.from({ length: 32 }, (_, i) => i);
const publicKey = ed25519.getPublicKey(seed);
const file = {
  account_id: encodeHex(publicKey),
  public_key: `ed25519:${encodeBase58(publicKey)}`,
  private_key: `ed25519:${encodeBase58(Uint8Array.from([...seed, ...publicKey]))}`,
};

describe('account ids', () => {
  it('an implicit id is the hex of the key, both ways', () => {
    expect(implicitAccountId(publicKey)).toBe(encodeHex(publicKey));
    expect(publicKeyOfImplicitAccount(encodeHex(publicKey))).toEqual(publicKey);
    expect(() => implicitAccountId(new Uint8Array(31))).toThrow(RangeError);
  });
  it.each(['', 'alice.near', 'A'.repeat(64), 'g'.repeat(64), 'a'.repeat(63), 'a'.repeat(65)])(
    '%j is not implicit',
    (id) => {
      expect(isImplicitAccountId(id)).toBe(false);
      expect(publicKeyOfImplicitAccount(id)).toBeNull();
    },
  );
  it('knows NEAR account id syntax', () => {
    for (const ok of ['alice.near', 'a-b_c.test', 'ab', encodeHex(publicKey)])
      expect(isNearAccountId(ok)).toBe(true);
    for (const bad of ['a', 'Alice.near', 'a..b', '.a', 'a.', 'a--b', 'x'.repeat(65), 5])
      expect(isNearAccountId(bad)).toBe(false);
  });
});

describe('NEAR credential files', () => {
  it('parses a file (object or text) and formats it back identically', () => {
    const parsed = parseNearCredentials(file);
    expect(parsed).toEqual({ accountId: file.account_id, publicKey, secretSeed: seed });
    expect(parseNearCredentials(JSON.stringify(file))).toEqual(parsed);
    expect(formatNearCredentials(parsed)).toEqual(file);
    expect(nearCredentialsFromSeed(seed)).toEqual(parsed);
    expect(parseNearCredentials({ ...file, account_id: 'server.test' }).accountId).toBe('server.test');
  });
  it('reads the older secret_key name', () => {
    const { private_key, ...rest } = file;
    expect(parseNearCredentials({ ...rest, secret_key: private_key }).secretSeed).toEqual(seed);
  });
  const otherSeed = new Uint8Array(32).fill(3);
  const otherPublic = ed25519.getPublicKey(otherSeed);
  it.each([
    ['not JSON', '{', /not JSON/],
    ['an array', [], /object/],
    ['no account', { ...file, account_id: undefined }, /account_id/],
    ['a bad account', { ...file, account_id: 'Bad Account' }, /account_id/],
    [
      'a secp256k1 key',
      { ...file, public_key: file.public_key.replace('ed25519', 'secp256k1') },
      /public_key must start/,
    ],
    ['bad base58', { ...file, public_key: 'ed25519:0OIl' }, /public_key is not base58/],
    [
      'a short public key',
      { ...file, public_key: `ed25519:${encodeBase58(publicKey.slice(1))}` },
      /32 bytes/,
    ],
    ['a bare 32-byte private key', { ...file, private_key: `ed25519:${encodeBase58(seed)}` }, /64 bytes/],
    [
      'halves that disagree',
      { ...file, private_key: `ed25519:${encodeBase58(Uint8Array.from([...seed, ...otherPublic]))}` },
      /public half/,
    ],
    [
      'a seed of another key',
      { ...file, private_key: `ed25519:${encodeBase58(Uint8Array.from([...otherSeed, ...publicKey]))}` },
      /does not derive/,
    ],
    [
      'an implicit id of another key',
      { ...file, account_id: encodeHex(otherPublic) },
      /implicit account of another key/,
    ],
  ])('rejects %s', (_name, input, message) => {
    expect(() => parseNearCredentials(input)).toThrow(InvalidNearCredentialsError);
    expect(() => parseNearCredentials(input)).toThrow(message);
  });
  it('never puts the secret into an error message', () => {
    try {
      parseNearCredentials({ ...file, account_id: encodeHex(otherPublic) });
    } catch (error) {
      expect(String((error as Error).message)).not.toContain(file.private_key.slice(8));
    }
    expect.assertions(1);
  });
});

describe('NEAR public key text', () => {
  it('round-trips and rejects other forms', () => {
    expect(parseNearPublicKey(formatNearPublicKey(publicKey))).toEqual(publicKey);
    expect(parseNearPublicKey(file.public_key)).toEqual(publicKey);
    expect(parseNearPublicKey(encodeBase58(publicKey))).toBeNull();
    expect(parseNearPublicKey(`ed25519:${encodeBase58(publicKey.slice(1))}`)).toBeNull();
    expect(parseNearPublicKey(null)).toBeNull();
  });
});
