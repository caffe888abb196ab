/**
 * @module crypto/ed25519-policy
 * The one Ed25519 acceptance policy of every signature lane (HOLA lines, logins, family signatures,
 * delegations, webhooks). Both lanes (`createNobleVerifier`, `createNodeVerifier`) run these
 * pre-checks and then the same verification equation, so they give the same answer on every input.
 *
 * **Policy: strict RFC 8032 with strong unforgeability and binding (the libsodium policy).**
 * A signature `R || S` by public key `A` over message `M` is accepted iff
 * 1. the signature is 64 bytes and the key 32 bytes;
 * 2. `S < L` (non-canonical `S ≥ L` is malleable: `S + L` verifies too);
 * 3. `A` and `R` are canonical encodings: `y < p` and not `x = 0` with the sign bit set (RFC 8032
 *    §5.1.3 decoding; ZIP-215's unreduced encodings are refused);
 * 4. neither `A` nor `R` is one of the 8 small-order points (a small-order key "signs" many messages,
 *    which breaks non-repudiation; after check 3 each has exactly one encoding, so comparing bytes
 *    with the 8 canonical encodings is complete);
 * 5. the **cofactorless** equation `[S]B = R + [k]A`, `k = SHA-512(R || A || M) mod L`, holds
 *    (RFC 8032 §5.1.7 allows it in place of the cofactored one).
 *
 * Why cofactorless: node:crypto (OpenSSL) can only check the cofactorless equation; @noble/curves'
 * `verify` only checks the cofactored one. They differ when `R` or `A` carries a small-order component
 * ("mixed-order" points: speccheck cases 4 and 5, and any signer-made `R + T`), and a full subgroup
 * check per signature would cost a scalar multiplication. So the noble lane computes the cofactorless
 * equation with noble's point arithmetic, and both lanes agree by construction. Pinned by
 * `test-vectors/ed25519-policy.json` (RFC 8032 §7.1, ZIP-215's 196 cases, the 12 cases of
 * "Taming the many EdDSAs" (eprint 2020/1244), and derived cases).
 *
 * The checks here are byte comparisons only (no point decoding), so they cost nothing next to a verify.
 */
import { isBytes } from '@noble/hashes/utils.js';

/** Why the policy refuses a signature before any curve arithmetic; null when the pre-checks pass. */
export type Ed25519PolicyRejection =
  | 'bad_signature_length'
  | 'bad_public_key_length'
  | 'non_canonical_s'
  | 'non_canonical_public_key'
  | 'non_canonical_r'
  | 'small_order_public_key'
  | 'small_order_r';

// prettier-ignore
/** L = 2^252 + 27742317777372353535851937790883648493, little-endian. */
const L_LE = Uint8Array.from([
  0xed, 0xd3, 0xf5, 0x5c, 0x1a, 0x63, 0x12, 0x58, 0xd6, 0x9c, 0xf7, 0xa2, 0xde, 0xf9, 0xde, 0x14,
  0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x10,
]);

const hexBytes = (hex: string): Uint8Array => Uint8Array.from(hex.match(/../g)!.map((b) => parseInt(b, 16)));

/** The 8 small-order points (the torsion subgroup), canonical encodings. */
export const SMALL_ORDER_ENCODINGS: readonly Uint8Array[] = [
  '0100000000000000000000000000000000000000000000000000000000000000', // identity (order 1)
  'c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a', // order 8
  '0000000000000000000000000000000000000000000000000000000000000080', // order 4
  '26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05', // order 8
  'ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f', // order 2
  '26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc85', // order 8
  '0000000000000000000000000000000000000000000000000000000000000000', // order 4
  'c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac03fa', // order 8
].map(hexBytes);

/** Encodings with x = 0 and the sign bit set (y = 1 and y = p - 1): refused by RFC 8032 decoding. */
const NEGATIVE_ZERO_X_ENCODINGS: readonly Uint8Array[] = [
  '0100000000000000000000000000000000000000000000000000000000000080',
  'ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff',
].map(hexBytes);

function equals32(a: Uint8Array, aOffset: number, b: Uint8Array): boolean {
  for (let i = 0; i < 32; i++) if (a[aOffset + i] !== b[i]) return false;
  return true;
}

/** True when `S` (32 bytes little-endian at `offset`) is below L. */
function isCanonicalScalar(bytes: Uint8Array, offset: number): boolean {
  for (let i = 31; i >= 0; i--) {
    const byte = bytes[offset + i];
    if (byte !== L_LE[i]) return byte < L_LE[i];
  }
  return false; // S == L
}

/** True when the 32 bytes at `offset` encode y < p = 2^255 - 19 and are not a negative-zero x. */
function isCanonicalPointEncoding(bytes: Uint8Array, offset: number): boolean {
  // y >= p iff y (sign bit cleared) is 0x7fff…ff with a low byte >= 0xed.
  if ((bytes[offset + 31] & 0x7f) === 0x7f && bytes[offset] >= 0xed) {
    let allOnes = true;
    for (let i = 1; i < 31; i++) {
      if (bytes[offset + i] !== 0xff) {
        allOnes = false;
        break;
      }
    }
    if (allOnes) return false;
  }
  for (const encoding of NEGATIVE_ZERO_X_ENCODINGS) if (equals32(bytes, offset, encoding)) return false;
  return true;
}

function isSmallOrderEncoding(bytes: Uint8Array, offset: number): boolean {
  for (const encoding of SMALL_ORDER_ENCODINGS) if (equals32(bytes, offset, encoding)) return true;
  return false;
}

/** The first policy rule a (signature, public key) pair breaks, or null when the pre-checks pass. */
export function ed25519PolicyRejection(
  signature: Uint8Array,
  publicKey: Uint8Array,
): Ed25519PolicyRejection | null {
  if (!isBytes(signature) || signature.length !== 64) return 'bad_signature_length';
  if (!isBytes(publicKey) || publicKey.length !== 32) return 'bad_public_key_length';
  if (!isCanonicalScalar(signature, 32)) return 'non_canonical_s';
  if (!isCanonicalPointEncoding(publicKey, 0)) return 'non_canonical_public_key';
  if (!isCanonicalPointEncoding(signature, 0)) return 'non_canonical_r';
  if (isSmallOrderEncoding(publicKey, 0)) return 'small_order_public_key';
  if (isSmallOrderEncoding(signature, 0)) return 'small_order_r';
  return null;
}

/** True when the pre-checks pass (the verification equation still has to hold). */
export function passesEd25519Policy(signature: Uint8Array, publicKey: Uint8Array): boolean {
  return ed25519PolicyRejection(signature, publicKey) === null;
}
