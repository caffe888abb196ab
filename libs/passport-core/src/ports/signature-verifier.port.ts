/**
 * @module ports/signature-verifier.port
 * Ed25519 verification. Two lanes implement it with one acceptance policy (see crypto/ed25519-policy):
 * node:crypto with cached key objects (`@passport/core/node`, the server lane) and @noble/curves
 * (the portable lane, for browsers).
 */
export interface SignatureVerifier {
  /**
   * True iff `signature` (64 bytes) is a valid Ed25519 signature of `message` by `publicKey` (32 bytes).
   * Callers in this library take only `true` as valid: any other answer of an implementation (`'yes'`,
   * `1`) is an invalid signature.
   */
  verify(signature: Uint8Array, message: Uint8Array, publicKey: Uint8Array): boolean;
}

/**
 * Ed25519 verification that may run off the calling thread (the node lane's libuv thread pool), so an
 * event loop keeps serving requests while the curve arithmetic runs on another core. Same policy and
 * answers as `SignatureVerifier`; only the HOLA use case takes it, where throughput matters most.
 */
export interface AsyncSignatureVerifier {
  verify(signature: Uint8Array, message: Uint8Array, publicKey: Uint8Array): Promise<boolean>;
}

/** Ed25519 signing with a key held by the caller (the private key never leaves it). */
export interface Signer {
  /** 32-byte Ed25519 public key. */
  readonly publicKey: Uint8Array;
  sign(message: Uint8Array): Uint8Array;
}
