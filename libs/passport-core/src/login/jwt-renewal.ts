/**
 * @module login/jwt-renewal
 * Token renewal within a session, and the termination token of a logout, the way the production
 * clients expect them: a token in the last 20 % of its lifetime is answered with a fresh one (the
 * response header `New-Token`), whose lifetime is the old one × 0.85, never past `session_exp` nor
 * the passport's `not_after`. The session keeps its `session_id`, `session_iat`, `session_exp`,
 * `iss`, `sub`, `aud`, `nbf`, `passport_*` and `config_*` claims; `iat`, `jti`, `exp` and
 * `passport_idsignature` are new. The replaced token stays valid until its own `exp` (requests in
 * flight are never refused); every token of the session is refused once the session is closed.
 *
 * Whether the session is still open and the passport live and unrevoked is the caller's check (the
 * JWT tier refuses such tokens before it asks about renewal). `isRenewalDue` is the only part on
 * every request's path: integer arithmetic on two claims, no crypto.
 */
import { type Signer } from '../ports/signature-verifier.port.js';
import { newJwtId, SESSION_STATUS_CLOSED, SESSION_STATUS_RENEWED, signPassportId } from './jwt-claims.js';
import { type RandomBytes } from './ulid.js';

/** A token is renewed once no more than this share of its lifetime is left (1/5 = 20 %). */
export const RENEWAL_WINDOW_DIVISOR = 5;
/** A renewed token lives this share of the replaced token's lifetime (floored to whole seconds). */
export const RENEWAL_LIFETIME_FACTOR = 0.85;
/** Lifetime of the termination token a logout answers with (production: 60 s). */
export const TERMINATION_TOKEN_SECONDS = 60;

/** The claims renewal reads; any claim set of ours has them (other claims are carried over as they are). */
export interface RenewableClaims {
  readonly iat?: unknown;
  readonly exp?: unknown;
  readonly session_exp?: unknown;
  readonly passport_id?: unknown;
  readonly [claim: string]: unknown;
}

const isWholeSeconds = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v);

/**
 * Claims that tokens minted before they existed lack: a renewal or termination token carries them as
 * `null` (unset claims are present as null), never copied from anywhere else.
 */
const CLAIMS_ADDED_LATER = [
  'passport_allowedcidr',
  'passport_allowediso3166list',
  'config_iso639',
  'config_iso3166',
  'config_iso15924',
  'config_timeoptions',
] as const;
const NULL_LATER_CLAIMS: Readonly<Record<string, null>> = Object.fromEntries(
  CLAIMS_ADDED_LATER.map((c) => [c, null]),
);

/**
 * True when the token has no more than 20 % of its lifetime (`exp − iat`) left at `nowMs` and has
 * not expired: `5 × (exp − now) ≤ exp − iat`, in whole seconds.
 */
export function isRenewalDue(claims: RenewableClaims, nowMs: number): boolean {
  const { iat, exp } = claims;
  if (!isWholeSeconds(iat) || !isWholeSeconds(exp) || exp <= iat) return false;
  const now = Math.floor(nowMs / 1000);
  return now < exp && RENEWAL_WINDOW_DIVISOR * (exp - now) <= exp - iat;
}

export interface RenewTokenParams {
  /** The verified claims of the token being replaced. */
  readonly claims: RenewableClaims;
  readonly nowMs: number;
  /** The holder passport's `not_after` in ms (null or Infinity: unbounded). */
  readonly passportNotAfterMs: number | null;
  /** The server passport's key, for the new `passport_idsignature`. */
  readonly signer: Signer;
  readonly random?: RandomBytes;
}

export interface RenewedToken {
  readonly claims: Record<string, unknown>;
  readonly jti: string;
  readonly expiresAtMs: number;
}

/**
 * The claims of the renewed token, or null when renewal would not extend the session's credential:
 * not due, or the new `exp` (now + ⌊old lifetime × 0.85⌋, capped by `session_exp` and `not_after`)
 * would not pass the old one (the session is near its end: the agent logs in again then).
 */
export function renewTokenClaims(params: RenewTokenParams): RenewedToken | null {
  const { claims, nowMs, passportNotAfterMs, signer, random } = params;
  if (!isRenewalDue(claims, nowMs)) return null;
  const iat = Math.floor(nowMs / 1000);
  const oldIat = claims.iat as number;
  const oldExp = claims.exp as number;
  const lifetime = Math.floor((oldExp - oldIat) * RENEWAL_LIFETIME_FACTOR);
  let exp = iat + lifetime;
  if (isWholeSeconds(claims.session_exp)) exp = Math.min(exp, claims.session_exp);
  if (passportNotAfterMs !== null && Number.isFinite(passportNotAfterMs)) {
    exp = Math.min(exp, Math.floor(passportNotAfterMs / 1000));
  }
  if (exp <= oldExp || exp <= iat || typeof claims.passport_id !== 'string') return null;
  const jti = newJwtId(nowMs, random);
  return {
    claims: {
      ...NULL_LATER_CLAIMS,
      ...claims,
      iat,
      exp,
      jti,
      session_status: SESSION_STATUS_RENEWED,
      passport_idsignature: signPassportId(signer, claims.passport_id, iat),
    },
    jti,
    expiresAtMs: exp * 1000,
  };
}

export interface TerminationTokenParams {
  readonly claims: RenewableClaims;
  readonly nowMs: number;
  readonly signer: Signer;
  readonly lifetimeSeconds?: number;
  readonly random?: RandomBytes;
}

/**
 * The short-lived token a logout answers with: the session's claims with `session_status: "closed"`,
 * a new `iat`, `jti` and `passport_idsignature`, and `exp` = now + 60 s. Its session is closed, so
 * the JWT tier refuses it like any other token of that session; it only tells the client how it ended.
 */
export function terminationTokenClaims(params: TerminationTokenParams): Record<string, unknown> {
  const { claims, nowMs, signer, random } = params;
  const iat = Math.floor(nowMs / 1000);
  const passportId = typeof claims.passport_id === 'string' ? claims.passport_id : '';
  return {
    ...NULL_LATER_CLAIMS,
    ...claims,
    iat,
    exp: iat + (params.lifetimeSeconds ?? TERMINATION_TOKEN_SECONDS),
    jti: newJwtId(nowMs, random),
    session_status: SESSION_STATUS_CLOSED,
    passport_idsignature: signPassportId(signer, passportId, iat),
  };
}
