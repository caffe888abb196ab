/**
 * @module login/jwt-claims
 * The claims of the EdDSA JWT a login mints (docs/protocol.md §3). Every listed claim is present; unset
 * ones are `null`. Signing is the app's job (jose); this module only decides the content.
 *
 * - `iss`: this server's public URL; for a federated login the client's home URL.
 * - `sub`: `<server serviceprovider_id>;sub=<tokenId>` — the issuing family, then the holder.
 * - `aud`: the server passport's owner account.
 * - `iat` = `nbf` = server time (s); `exp` = `iat + 3600`, lowered to `iat + jwt_duration` (a
 *   positive integer of seconds in the passport's metadata) and to the passport's `not_after`.
 * - `jti`: `jti<ULID>` (production's form); `session_id`: `sess_<tokenId>_<ULID>`.
 * - `session_iat` = `iat` of the login; `session_exp` = `session_iat + sessionTtlSeconds` (default
 *   5200, as production), lowered to the passport's `not_after`. The session outlives one token:
 *   renewals (`jwt-renewal.ts`) keep `session_*` and never pass `session_exp`. `exp` ≤ `session_exp`.
 * - `session_status`: `"new"` at login (renewals and the logout token carry their own status).
 * - `passport_idsignature`: base64url Ed25519 signature by the server passport key over UTF-8
 *   `passport_id + new Date(iat * 1000).toISOString()`, so a client can re-check which server signed
 *   (the production clients verify it; `checkServerPassport` does too).
 * - `passport_id`: the **server** passport's token id (spec: "A server passport id is carried in a
 *   claim named passport_id"), so a client can check who signed, and `passport_owner` the server
 *   passport's owner account (production's `rodit_owner`); the other `passport_*` claims copy the
 *   holder's passport metadata as production does: `max_requests`, `maxrq_window`,
 *   `permissioned_routes`, `webhook_cidr`, `allowed_cidr`, `allowed_iso3166list`, `webhook_url`, as the
 *   strings the chain holds (null when unset or blank).
 * - `passport_subjectuniqueidentifier_url`: this server's URL for a federated login, else null.
 * - `config_iso639`, `config_iso3166`, `config_iso15924`, `config_timeoptions`: null, as production
 *   sends them.
 */
import { type PassportRecord } from '../passport/passport.types.js';
import { passportNotAfterMs } from '../passport/passport-conditions.js';
import { isTokenId } from '../token-id/token-id.js';
import { encodeBase64Url } from '../codecs/base64url.codec.js';
import { utf8 } from '../codecs/utf8.codec.js';
import { type Signer } from '../ports/signature-verifier.port.js';
import { type LoginFederation } from './login-credentials.verifier.js';
import { ulid, type RandomBytes } from './ulid.js';

export const JWT_DEFAULT_LIFETIME_SECONDS = 3600;
/** A session's default lifetime at login (production's default), before the passport's `not_after`. */
export const SESSION_DEFAULT_TTL_SECONDS = 5200;

/** `session_status` values: at login, after a renewal, and in the termination token of a logout. */
export const SESSION_STATUS_NEW = 'new';
export const SESSION_STATUS_RENEWED = 'renewed_light_verification';
export const SESSION_STATUS_CLOSED = 'closed';

export interface PassportJwtClaims {
  iss: string;
  sub: string;
  aud: string;
  iat: number;
  nbf: number;
  exp: number;
  jti: string;
  session_id: string;
  session_iat: number;
  session_exp: number;
  session_status: string;
  passport_id: string;
  passport_idsignature: string;
  passport_owner: string;
  passport_maxrequests: string | null;
  passport_maxrqwindow: string | null;
  passport_permissionedroutes: string | null;
  passport_webhookurl: string | null;
  passport_webhookcidr: string | null;
  passport_allowedcidr: string | null;
  passport_allowediso3166list: string | null;
  passport_subjectuniqueidentifier_url: string | null;
  config_iso639: null;
  config_iso3166: null;
  config_iso15924: null;
  config_timeoptions: null;
}

export interface BuildJwtClaimsParams {
  readonly server: {
    readonly serviceProviderId: string;
    readonly tokenId: string;
    readonly ownerId: string;
    readonly publicBaseUrl: string;
    /** The server passport's key: signs `passport_idsignature`. */
    readonly signer: Signer;
  };
  /** The holder's passport, as verified by the login. */
  readonly passport: PassportRecord;
  readonly federation: LoginFederation;
  readonly nowMs: number;
  /** Session lifetime from login (default 5200 s), lowered to the passport's `not_after`. */
  readonly sessionTtlSeconds?: number;
  /** Randomness for the ULIDs (default Web Crypto); fixed in tests. */
  readonly random?: RandomBytes;
}

export interface BuiltJwtClaims {
  readonly claims: PassportJwtClaims;
  readonly sessionId: string;
  readonly jti: string;
  /** The token's `exp` in ms. */
  readonly expiresAtMs: number;
  /** The session's end (`session_exp`) in ms. */
  readonly sessionExpiresAtMs: number;
}

/** The bytes `passport_idsignature` signs: UTF-8 `passportId + new Date(iatSeconds * 1000).toISOString()`. */
export function passportIdSignatureMessage(passportId: string, iatSeconds: number): Uint8Array {
  return utf8(passportId + new Date(iatSeconds * 1000).toISOString());
}

/** `passport_idsignature` for a token issued at `iatSeconds` by the server passport `passportId`. */
export function signPassportId(signer: Signer, passportId: string, iatSeconds: number): string {
  return encodeBase64Url(signer.sign(passportIdSignatureMessage(passportId, iatSeconds)));
}

const nonEmptyOrNull = (value: string | undefined): string | null =>
  typeof value === 'string' && value.trim() !== '' ? value : null;

/**
 * A claim or metadata value that is a positive decimal integer (`"60"`, or a number: tokens minted
 * before the claims carried strings) as a number; anything else null. The per-passport rate limit
 * reads `passport_maxrequests` and `passport_maxrqwindow` with it.
 */
export function positiveIntegerClaim(value: unknown): number | null {
  if (typeof value === 'number') return Number.isSafeInteger(value) && value > 0 ? value : null;
  if (typeof value !== 'string' || !/^\d+$/.test(value.trim())) return null;
  const n = Number(value.trim());
  return Number.isSafeInteger(n) && n > 0 ? n : null;
}

/** A JWT id as production writes it: `jti` followed by a ULID. */
export function newJwtId(nowMs: number, random?: RandomBytes): string {
  return `jti${ulid(Math.floor(nowMs), random)}`;
}

export function buildJwtClaims(params: BuildJwtClaimsParams): BuiltJwtClaims {
  const { server, passport, federation, nowMs, random } = params;
  const metadata = passport.metadata;
  const iat = Math.floor(nowMs / 1000);
  const ttl = params.sessionTtlSeconds ?? SESSION_DEFAULT_TTL_SECONDS;
  if (!Number.isSafeInteger(ttl) || ttl < 1)
    throw new RangeError('sessionTtlSeconds must be a positive integer');
  // The token id goes into `sub` and the session id as it is: `;sub=` in it would name another passport.
  if (!isTokenId(passport.tokenId))
    throw new RangeError('passport.tokenId must be a token id (12 letters a-z)');
  let sessionExp = iat + ttl;
  const notAfterMs = passportNotAfterMs(metadata);
  if (notAfterMs !== null && Number.isFinite(notAfterMs))
    sessionExp = Math.min(sessionExp, Math.floor(notAfterMs / 1000));
  let exp = Math.min(iat + JWT_DEFAULT_LIFETIME_SECONDS, sessionExp);
  const duration = positiveIntegerClaim(metadata.jwt_duration);
  if (duration !== null) exp = Math.min(exp, iat + duration);
  const jti = newJwtId(nowMs, random);
  const sessionId = `sess_${passport.tokenId}_${ulid(Math.floor(nowMs), random)}`;
  const claims: PassportJwtClaims = {
    iss: federation.federated ? federation.homeUrl : server.publicBaseUrl,
    sub: `${server.serviceProviderId};sub=${passport.tokenId}`,
    aud: server.ownerId,
    iat,
    nbf: iat,
    exp,
    jti,
    session_id: sessionId,
    session_iat: iat,
    session_exp: sessionExp,
    session_status: SESSION_STATUS_NEW,
    passport_id: server.tokenId,
    passport_idsignature: signPassportId(server.signer, server.tokenId, iat),
    passport_owner: server.ownerId,
    passport_maxrequests: nonEmptyOrNull(metadata.max_requests),
    passport_maxrqwindow: nonEmptyOrNull(metadata.maxrq_window),
    passport_permissionedroutes: nonEmptyOrNull(metadata.permissioned_routes),
    passport_webhookurl: nonEmptyOrNull(metadata.webhook_url),
    passport_webhookcidr: nonEmptyOrNull(metadata.webhook_cidr),
    passport_allowedcidr: nonEmptyOrNull(metadata.allowed_cidr),
    passport_allowediso3166list: nonEmptyOrNull(metadata.allowed_iso3166list),
    passport_subjectuniqueidentifier_url: federation.federated ? server.publicBaseUrl : null,
    config_iso639: null,
    config_iso3166: null,
    config_iso15924: null,
    config_timeoptions: null,
  };
  return { claims, sessionId, jti, expiresAtMs: exp * 1000, sessionExpiresAtMs: sessionExp * 1000 };
}

/**
 * The holder's token id from `sub` (`…;sub=<tokenId>`), for `/api/me/identity`; null when `sub`
 * is missing or its last segment is not a 12-letter token id (→ `IDENTITY_SUB_MISSING`).
 */
export function tokenIdFromSubject(sub: unknown): string | null {
  if (typeof sub !== 'string') return null;
  const marker = sub.lastIndexOf(';sub=');
  const tail = marker < 0 ? (sub.startsWith('sub=') ? sub.slice(4) : null) : sub.slice(marker + 5);
  return tail !== null && isTokenId(tail) ? tail : null;
}
