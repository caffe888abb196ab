/**
 * @module credentials/near-credentials
 * Key files in NEAR's credential JSON (docs/protocol.md §1):
 * `{account_id, public_key: "ed25519:<base58 32 bytes>", private_key: "ed25519:<base58 64 bytes = seed||public>"}`.
 * Parsing proves the file is coherent (the seed derives the public key, both halves agree, an
 * implicit account id is that key), so a wrong key file fails at start, not at the first signature.
 * `secret_key` is read as an alias of `private_key` (older NEAR tools wrote that name).
 */
import { ed25519 } from '@noble/curves/ed25519.js';
import { decodeBase58, encodeBase58 } from '../codecs/base58.codec.js';
import { bytesEqual } from '../codecs/utf8.codec.js';
import { implicitAccountId, isImplicitAccountId } from '../codecs/account-id.js';

export interface NearCredentials {
  readonly accountId: string;
  /** 32-byte Ed25519 public key. */
  readonly publicKey: Uint8Array;
  /** 32-byte Ed25519 seed (the secret half of NEAR's 64-byte private key). */
  readonly secretSeed: Uint8Array;
}

/** The JSON file shape. */
export interface NearCredentialsJson {
  account_id: string;
  public_key: string;
  private_key: string;
}

/** A key file that cannot be used; the message names the field and the problem (never the secret). */
export class InvalidNearCredentialsError extends Error {
  override readonly name = 'InvalidNearCredentialsError';
}

// NEAR account id rules: 2..64 characters, lowercase parts joined by `.`, `-` or `_` inside parts.
const NAMED_ACCOUNT_PATTERN = /^(?:[a-z\d]+[-_])*[a-z\d]+(?:\.(?:[a-z\d]+[-_])*[a-z\d]+)*$/;

/** True for a syntactically valid NEAR account id (implicit or named). */
export function isNearAccountId(value: unknown): value is string {
  return (
    typeof value === 'string' && value.length >= 2 && value.length <= 64 && NAMED_ACCOUNT_PATTERN.test(value)
  );
}

const fail = (message: string): never => {
  throw new InvalidNearCredentialsError(`Invalid NEAR credentials: ${message}`);
};

function decodeEd25519Key(field: string, value: unknown, length: number): Uint8Array {
  if (typeof value !== 'string') return fail(`${field} must be a string "ed25519:<base58>".`);
  if (!value.startsWith('ed25519:')) return fail(`${field} must start with "ed25519:".`);
  const bytes = decodeBase58(value.slice('ed25519:'.length));
  if (!bytes) return fail(`${field} is not base58.`);
  if (bytes.length !== length) return fail(`${field} must encode ${length} bytes, not ${bytes.length}.`);
  return bytes;
}

/** Parses a credential object (or its JSON text); throws InvalidNearCredentialsError on any defect. */
export function parseNearCredentials(json: unknown): NearCredentials {
  let value = json;
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value) as unknown;
    } catch {
      return fail('the text is not JSON.');
    }
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    return fail('expected a JSON object.');
  const file = value as Record<string, unknown>;
  const accountId = file.account_id;
  if (!isNearAccountId(accountId)) return fail('account_id must be a NEAR account id.');
  const publicKey = decodeEd25519Key('public_key', file.public_key, 32);
  const privateField = file.private_key !== undefined ? 'private_key' : 'secret_key';
  const privateKey = decodeEd25519Key(privateField, file[privateField], 64);
  const secretSeed = privateKey.slice(0, 32);
  if (!bytesEqual(privateKey.slice(32), publicKey))
    return fail(`the public half of ${privateField} differs from public_key.`);
  if (!bytesEqual(ed25519.getPublicKey(secretSeed), publicKey))
    return fail(`the seed of ${privateField} does not derive public_key.`);
  if (isImplicitAccountId(accountId) && accountId !== implicitAccountId(publicKey)) {
    return fail('account_id is an implicit account of another key.');
  }
  return { accountId, publicKey, secretSeed };
}

/** The credential file of a key; the public key is derived from the seed, so it cannot disagree. */
export function formatNearCredentials(
  credentials: Pick<NearCredentials, 'accountId' | 'secretSeed'>,
): NearCredentialsJson {
  if (credentials.secretSeed.length !== 32) throw new RangeError('An Ed25519 seed has 32 bytes.');
  const publicKey = ed25519.getPublicKey(credentials.secretSeed);
  const privateKey = new Uint8Array(64);
  privateKey.set(credentials.secretSeed, 0);
  privateKey.set(publicKey, 32);
  return {
    account_id: credentials.accountId,
    public_key: `ed25519:${encodeBase58(publicKey)}`,
    private_key: `ed25519:${encodeBase58(privateKey)}`,
  };
}

/** Credentials of a seed; the account defaults to the key's implicit account. */
export function nearCredentialsFromSeed(secretSeed: Uint8Array, accountId?: string): NearCredentials {
  if (secretSeed.length !== 32) throw new RangeError('An Ed25519 seed has 32 bytes.');
  const publicKey = ed25519.getPublicKey(secretSeed);
  return {
    accountId: accountId ?? implicitAccountId(publicKey),
    publicKey,
    secretSeed: Uint8Array.from(secretSeed),
  };
}
