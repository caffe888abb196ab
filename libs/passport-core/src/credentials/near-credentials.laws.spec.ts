/**
 * Property laws of NEAR credential files and key text (docs/protocol.md §1): round trip of
 * formatNearCredentials and formatNearPublicKey; isNearAccountId against NEAR's own account id
 * expression (nearcore's `is_valid_account_id`, 2..64 characters); totality of parseNearCredentials.
 */
import fc from 'fast-check';
import { encodeBase58 } from '../codecs/base58.codec.js';
import { implicitAccountId } from '../codecs/account-id.js';
import { formatNearPublicKey, parseNearPublicKey } from './near-key-text.js';
import {
  formatNearCredentials,
  InvalidNearCredentialsError,
  isNearAccountId,
  nearCredentialsFromSeed,
  parseNearCredentials,
} from './near-credentials.js';

const NEAR_ACCOUNT_ID = /^(([a-z\d]+[-_])*[a-z\d]+\.)*([a-z\d]+[-_])*[a-z\d]+$/;
const accountish = fc.string({ unit: fc.constantFrom(...'ab09.-_A '), minLength: 0, maxLength: 70 });

describe('NEAR credential laws', () => {
  it('oracle: isNearAccountId equals NEAR’s account id expression with its 2..64 length bound', () => {
    fc.assert(
      fc.property(fc.oneof(accountish, fc.string({ unit: 'binary', maxLength: 10 })), (id) => {
        expect(isNearAccountId(id)).toBe(id.length >= 2 && id.length <= 64 && NEAR_ACCOUNT_ID.test(id));
      }),
      { numRuns: 3000 },
    );
  });

  it('round trip: parseNearCredentials(formatNearCredentials(seed, account)) gives the seed, the key and the account', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 32, maxLength: 32 }),
        fc.option(accountish.filter(isNearAccountId).filter((a) => !/^[0-9a-f]{64}$/.test(a))),
        (seed, named) => {
          const expected = nearCredentialsFromSeed(seed, named ?? undefined);
          const parsed = parseNearCredentials(JSON.stringify(formatNearCredentials(expected)));
          expect(parsed).toEqual(expected);
          expect(parsed.accountId).toBe(named ?? implicitAccountId(expected.publicKey));
          expect(parseNearPublicKey(formatNearPublicKey(parsed.publicKey))).toEqual(parsed.publicKey);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('totality: on any JSON value or text it returns or throws InvalidNearCredentialsError, never another error', () => {
    const keyText = fc.oneof(
      fc.uint8Array({ maxLength: 70 }).map((b) => `ed25519:${encodeBase58(b)}`),
      fc.string({ maxLength: 12 }),
    );
    fc.assert(
      fc.property(
        fc.oneof(
          fc.record(
            {
              account_id: fc.oneof(accountish, fc.jsonValue()),
              public_key: keyText,
              private_key: keyText,
              secret_key: keyText,
            },
            { requiredKeys: [] },
          ),
          fc.jsonValue(),
          fc.string({ maxLength: 30 }),
        ),
        (value) => {
          try {
            parseNearCredentials(value);
          } catch (e) {
            expect(e).toBeInstanceOf(InvalidNearCredentialsError);
          }
        },
      ),
      { numRuns: 1000 },
    );
  });
});
