/**
 * For the session specs (not built into the app: tsconfig.app.json leaves `testing/` folders out): an
 * EddsaJwtCodec on an Ed25519 key of its own, and an open session with the bearer header of its token.
 */
import { generateKeyPairSync } from 'node:crypto';
import { type SessionStore } from '@passport/core/ports';
import { EddsaJwtCodec, type EddsaJwtCodecOptions } from '../eddsa-jwt.codec.js';

export function freshJwtCodec(
  options: Omit<EddsaJwtCodecOptions, 'secretSeed' | 'publicKey'>,
): EddsaJwtCodec {
  const { privateKey } = generateKeyPairSync('ed25519');
  const jwk = privateKey.export({ format: 'jwk' });
  return new EddsaJwtCodec({
    ...options,
    secretSeed: Buffer.from(jwk.d!, 'base64url'),
    publicKey: Buffer.from(jwk.x!, 'base64url'),
  });
}

/**
 * Stores an open session of `tokenId` (owner `ownerId`, an hour from `nowMs`) and returns the
 * `Authorization` header of a token of it, signed by `codec` for `issuer` and `audience`.
 */
export async function openSessionBearer(
  codec: EddsaJwtCodec,
  sessions: SessionStore,
  session: {
    readonly sessionId: string;
    readonly tokenId: string;
    readonly ownerId: string;
    readonly issuer: string;
    readonly audience: string;
    readonly nowMs: number;
  },
): Promise<string> {
  const now = Math.floor(session.nowMs / 1000);
  await sessions.create({
    sessionId: session.sessionId,
    tokenId: session.tokenId,
    ownerId: session.ownerId,
    jti: 'j',
    createdAtMs: now * 1000,
    expiresAtMs: (now + 3600) * 1000,
    closedAtMs: null,
    closeReason: null,
    federatedFrom: null,
  });
  return `Bearer ${await codec.sign({
    iss: session.issuer,
    sub: `sub=${session.tokenId}`,
    aud: session.audience,
    exp: now + 3000,
    iat: now,
    nbf: now,
    jti: 'j',
    session_id: session.sessionId,
    session_exp: now + 3600,
  })}`;
}
