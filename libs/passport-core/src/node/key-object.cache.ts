/**
 * @module node/key-object.cache
 * A bounded LRU cache of node:crypto Ed25519 public KeyObjects keyed by the raw 32-byte key. Building a
 * KeyObject from SPKI DER costs ~80 µs, about as much as the verify itself; the bound keeps a flood of
 * distinct keys from growing memory.
 */
import { createPublicKey, type KeyObject } from 'node:crypto';

/** DER SubjectPublicKeyInfo header of an Ed25519 key (RFC 8410); the 32 key bytes follow. */
const SPKI_ED25519_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

/** The KeyObject of a raw 32-byte Ed25519 public key (throws when the bytes are not a usable key). */
export function ed25519KeyObject(publicKey: Uint8Array): KeyObject {
  return createPublicKey({
    key: Buffer.concat([SPKI_ED25519_PREFIX, publicKey]),
    format: 'der',
    type: 'spki',
  });
}

export class KeyObjectLruCache {
  // A Map iterates in insertion order: re-inserting on a hit keeps the least recently used key first.
  private readonly entries = new Map<string, KeyObject>();
  private readonly lastKeyBytes = new Uint8Array(32);
  private lastKeyObject: KeyObject | undefined;

  constructor(readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1)
      throw new RangeError('the key cache capacity must be a positive integer');
  }

  get size(): number {
    return this.entries.size;
  }

  has(publicKey: Uint8Array): boolean {
    return this.entries.has(cacheId(publicKey));
  }

  /** The cached KeyObject of `publicKey`, building and caching it on a miss. */
  get(publicKey: Uint8Array): KeyObject {
    // A run of lines from one peer asks for one key again and again: compare its 32 bytes with the
    // last key's (a copy, so a caller reusing its buffer cannot alias) before building a map id.
    if (this.lastKeyObject && publicKey.length === 32 && sameBytes(publicKey, this.lastKeyBytes))
      return this.lastKeyObject;
    const keyObject = this.lookup(publicKey);
    if (publicKey.length === 32) {
      this.lastKeyBytes.set(publicKey);
      this.lastKeyObject = keyObject;
    }
    return keyObject;
  }

  private lookup(publicKey: Uint8Array): KeyObject {
    const id = cacheId(publicKey);
    const cached = this.entries.get(id);
    if (cached) {
      this.entries.delete(id);
      this.entries.set(id, cached);
      return cached;
    }
    const keyObject = ed25519KeyObject(publicKey);
    if (this.entries.size >= this.capacity) this.entries.delete(this.entries.keys().next().value as string);
    this.entries.set(id, keyObject);
    return keyObject;
  }
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  for (let i = 0; i < 32; i++) if (a[i] !== b[i]) return false;
  return true;
}

function cacheId(publicKey: Uint8Array): string {
  return Buffer.from(publicKey.buffer, publicKey.byteOffset, publicKey.length).toString('latin1');
}
