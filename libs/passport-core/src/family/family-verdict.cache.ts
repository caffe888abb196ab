/**
 * @module family/family-verdict.cache
 * Remembers family-signature verdicts, so that a passport logging in again does not pay a second
 * Ed25519 verify for the same `serviceprovider_signature`. It sits in front of the family check's
 * signature verifier: a verdict is keyed by everything it depends on (the root key, the signature
 * and the metadata digest, which covers the token id and every signed field), so a changed metadata,
 * signature or root key is a new key and is verified afresh; the chain reads around it (root
 * passport, revocation, owner keys) still happen on every check. Entries live no longer than the
 * chain cache keeps the records they were read from (`ttlMs`), and the cache is bounded (the oldest
 * entry leaves first). Only true verdicts are kept: a failing signature is checked again every time
 * (fail closed, and forged signatures cannot fill the cache).
 */
import { type Clock } from '../ports/clock.port.js';
import { type SignatureVerifier } from '../ports/signature-verifier.port.js';

export interface FamilyVerdictCacheOptions {
  /** How long a verdict is reused: at most the chain cache's lifetime of a record. */
  readonly ttlMs: number;
  readonly clock: Clock;
  /** Verdicts kept (default 10 000). */
  readonly maxEntries?: number | undefined;
}

/** One character per byte (cheaper than base64url), after the three lengths, so no two inputs share a key. */
function verdictKey(signature: Uint8Array, message: Uint8Array, publicKey: Uint8Array): string {
  return `${publicKey.length},${signature.length},${message.length}:${latin1(publicKey)}${latin1(signature)}${latin1(message)}`;
}

function latin1(bytes: Uint8Array): string {
  // One call for the usual sizes (keys, signatures, digests); a loop where the argument count could overflow.
  if (bytes.length <= 4096) return String.fromCharCode.apply(null, bytes as unknown as number[]);
  let out = '';
  for (let i = 0; i < bytes.length; i++) out += String.fromCharCode(bytes[i]);
  return out;
}

export class FamilyVerdictCache implements SignatureVerifier {
  private readonly verdicts = new Map<string, number>();
  private readonly maxEntries: number;

  constructor(
    private readonly inner: SignatureVerifier,
    private readonly options: FamilyVerdictCacheOptions,
  ) {
    this.maxEntries = Math.max(1, Math.floor(options.maxEntries ?? 10_000));
  }

  verify(signature: Uint8Array, message: Uint8Array, publicKey: Uint8Array): boolean {
    // No reuse allowed (an uncached chain reader): no key to build, nothing to hold.
    if (this.options.ttlMs <= 0) return this.inner.verify(signature, message, publicKey) === true;
    const nowMs = this.options.clock.nowMs();
    const key = verdictKey(signature, message, publicKey);
    const expiresAtMs = this.verdicts.get(key);
    if (expiresAtMs !== undefined) {
      if (expiresAtMs > nowMs) return true;
      this.verdicts.delete(key);
    }
    if (this.inner.verify(signature, message, publicKey) !== true) return false;
    if (this.verdicts.size >= this.maxEntries)
      this.verdicts.delete(this.verdicts.keys().next().value as string);
    this.verdicts.set(key, nowMs + this.options.ttlMs);
    return true;
  }

  /** Verdicts held (expired ones not yet replaced included). */
  get size(): number {
    return this.verdicts.size;
  }
}
