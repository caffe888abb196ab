/**
 * @module crypto/noble.verifier
 * The portable signature lane (browsers, embedders): @noble/curves point arithmetic under the shared
 * policy of `ed25519-policy`. noble's own `ed25519.verify` checks the cofactored equation, which
 * node:crypto cannot; so this lane checks the cofactorless equation `[S]B = R + [k]A` itself with
 * noble's audited primitives, and the two lanes agree on every input (see the policy's JSDoc).
 */
import { ed25519 } from '@noble/curves/ed25519.js';
import { bytesToNumberLE } from '@noble/curves/utils.js';
import { sha512 } from '@noble/hashes/sha2.js';
import { type SignatureVerifier } from '../ports/signature-verifier.port.js';
import { concatBytes } from '../codecs/utf8.codec.js';
import { passesEd25519Policy } from './ed25519-policy.js';
import { isBytes } from '@noble/hashes/utils.js';

const Point = ed25519.Point;

export function createNobleVerifier(): SignatureVerifier {
  return {
    verify(signature: Uint8Array, message: Uint8Array, publicKey: Uint8Array): boolean {
      if (!isBytes(message) || !passesEd25519Policy(signature, publicKey)) return false;
      try {
        const rBytes = signature.subarray(0, 32);
        // Strict RFC 8032 decoding (zip215 = false); throws for y with no point on the curve.
        const A = Point.fromBytes(publicKey, false);
        const R = Point.fromBytes(rBytes, false);
        const s = bytesToNumberLE(signature.subarray(32, 64)); // < L: checked by the policy
        const k = Point.Fn.create(bytesToNumberLE(sha512(concatBytes(rBytes, publicKey, message))));
        // Verification handles public data only, so variable-time multiplication is fine.
        return Point.BASE.multiplyUnsafe(s).equals(R.add(A.multiplyUnsafe(k)));
      } catch {
        return false;
      }
    },
  };
}
