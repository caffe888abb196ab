/**
 * @module @passport/core/crypto
 * The portable Ed25519 lane (@noble/curves) and the acceptance policy both lanes apply.
 */

// Noble lane
export { createNobleSigner, publicKeyFromSeed } from './noble.signer.js';
export { createNobleVerifier } from './noble.verifier.js';

// Acceptance policy
export {
  passesEd25519Policy,
  ed25519PolicyRejection,
  type Ed25519PolicyRejection,
} from './ed25519-policy.js';
