/**
 * The server's own passport: the key that signs JWTs, HOLA reply lines and webhooks, and the
 * family (`serviceprovider_id`) that login checks compare against. Loaded at start from
 * SERVER_CREDENTIALS_FILE and the chain (the development family is created on first start).
 */
import { type PassportRecord, type Signer } from '@passport/core';

export interface ServerIdentity {
  /** 12-letter token id of the server passport. */
  readonly tokenId: string;
  /** Owner account of the server passport (the JWT `aud`). */
  readonly ownerId: string;
  /** 32-byte Ed25519 seed of the server key (for jose's EdDSA signing key). Never logged. */
  readonly secretSeed: Uint8Array;
  readonly signer: Signer;
  /** `bc=<chain>;sc=<contract>;id=<root>[;id=<root2>]` of the server passport. */
  readonly serviceProviderId: string;
  readonly passport: PassportRecord;
}
