/**
 * @module login/jwt-size
 * How long a session's tokens are, judged from the claims before any is signed. A token travels in a
 * request header, and servers bound request headers (16 KiB here), so a login refuses a passport whose
 * metadata would make tokens longer than `MAX_LOGIN_TOKEN_BYTES` (the claims copy `permissioned_routes`,
 * the CIDR and country lists and `webhook_url` whole), and `passport mint` refuses to mint one.
 */
import { utf8 } from '../codecs/utf8.codec.js';
import { type PassportRecord } from '../passport/passport.types.js';
import { type Signer } from '../ports/signature-verifier.port.js';
import { buildJwtClaims, SESSION_STATUS_RENEWED, type PassportJwtClaims } from './jwt-claims.js';

/** The longest token a login issues: half the request-header limit, leaving room for every other header. */
export const MAX_LOGIN_TOKEN_BYTES = 8 * 1024;

/** base64url of `{"alg":"EdDSA","typ":"JWT"}` (27 bytes), the protected header of every token. */
const HEADER_SEGMENT_CHARS = 36;
/** base64url of a 64-byte Ed25519 signature. */
const SIGNATURE_SEGMENT_CHARS = 86;

/** Characters of unpadded base64url for `bytes` bytes. */
const base64UrlChars = (bytes: number): number => Math.ceil((bytes * 4) / 3);

/**
 * The length in bytes of the longest token of the session these claims open: a renewal's, whose
 * `session_status` is the longest (a login's token is shorter; a renewal carries the same claims
 * otherwise). Exact for tokens serialised as `JSON.stringify(claims)` under an EdDSA/JWT header.
 */
export function sessionTokenBytes(claims: PassportJwtClaims): number {
  const payload = utf8(JSON.stringify({ ...claims, session_status: SESSION_STATUS_RENEWED }));
  return HEADER_SEGMENT_CHARS + 1 + base64UrlChars(payload.length) + 1 + SIGNATURE_SEGMENT_CHARS;
}

export interface LoginTokenBytesParams {
  /** The passport as the chain would hold it. */
  readonly passport: Pick<PassportRecord, 'tokenId' | 'metadata'>;
  /** The server that would issue the token (its family, passport, owner account and public URL). */
  readonly server: {
    readonly serviceProviderId: string;
    readonly tokenId: string;
    readonly ownerId: string;
    readonly publicBaseUrl: string;
  };
  readonly nowMs?: number;
}

/** A signer of the right length for sizing claims; what it signs is never used. */
const SIZING_SIGNER: Signer = { publicKey: new Uint8Array(32), sign: () => new Uint8Array(64) };
const SIZING_RANDOM = (n: number): Uint8Array => new Uint8Array(n);

/**
 * `sessionTokenBytes` of the claims a local login with this passport would get from this server,
 * without a server key: for a tool that writes passports (mint) to refuse metadata no login accepts.
 */
export function loginTokenBytes(params: LoginTokenBytesParams): number {
  const { claims } = buildJwtClaims({
    server: { ...params.server, signer: SIZING_SIGNER },
    passport: { ...params.passport, ownerId: '', contractId: '', revoked: false },
    federation: { federated: false, homeUrl: null },
    nowMs: params.nowMs ?? Date.now(),
    random: SIZING_RANDOM,
  });
  return sessionTokenBytes(claims);
}
