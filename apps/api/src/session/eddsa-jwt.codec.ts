/**
 * EdDSA (Ed25519) JWTs signed with the server passport's key, so that any party can check a token
 * against the chain (docs/protocol.md §3). jose does the JOSE work; this class pins the rules:
 * algorithm EdDSA only, `typ: JWT`, our `aud`, our `iss` (or, for federated logins, a home URL with
 * the federated claim naming us), and `exp`/`nbf` against the injected clock.
 *
 * Tokens are signed with node:crypto and a key object built once: Ed25519 signatures are
 * deterministic, so the tokens are byte for byte those jose would sign (a test keeps it so), and a
 * one-shot sign (on libuv's thread pool) costs less than jose's WebCrypto round trip on every login.
 *
 * Verified tokens are remembered in a bounded cache, so a client that reuses its token pays the
 * signature check once; a hit needs the exact token text. The cache is keyed by the signature segment
 * (86 characters) and the whole text compared on a hit: hashing the whole token (~500 characters, a
 * new string on every request) for the lookup was most of the cached check's cost. Expiry is still
 * checked on every use, and the session (logout, revocation) is checked by the guard on every
 * request, never cached here.
 */
import { createPrivateKey, sign as signEd25519, type KeyObject } from 'node:crypto';
import { decodeJwt, jwtVerify, importJWK, errors as joseErrors, type JWTPayload, type CryptoKey } from 'jose';
import { encodeBase64Url, type Clock } from '@passport/core';

export type JwtClaims = JWTPayload & Record<string, unknown>;

/** Why a bearer token was refused; `reason` is the spec's `details.reason`, `cause` names the rule. */
export type JwtVerifyFailure =
  | { readonly reason: 'invalid_jwt_format'; readonly cause: 'not_a_jwt' }
  | {
      readonly reason: 'error_checking_session';
      readonly cause:
        | 'bad_signature'
        | 'wrong_algorithm'
        | 'wrong_type'
        | 'wrong_audience'
        | 'wrong_issuer'
        | 'expired'
        | 'not_yet_valid'
        | 'invalid_claims';
    };

export type JwtVerifyResult =
  { readonly ok: true; readonly claims: JwtClaims } | ({ readonly ok: false } & JwtVerifyFailure);

export interface EddsaJwtCodecOptions {
  /** 32-byte Ed25519 seed of the server passport key. */
  readonly secretSeed: Uint8Array;
  readonly publicKey: Uint8Array;
  /** This server's public URL: the `iss` of local logins and the federated claim of foreign ones. */
  readonly issuer: string;
  /** The server owner account: every token's `aud`. */
  readonly audience: string;
  readonly clock: Clock;
  /** Verified tokens remembered (default 10000). */
  readonly verifiedCacheSize?: number;
}

const SEGMENT = /^[A-Za-z0-9_-]+$/;
/** The protected header of every token, as jose serialises `{ alg: 'EdDSA', typ: 'JWT' }`. */
const PROTECTED_HEADER = Buffer.from(JSON.stringify({ alg: 'EdDSA', typ: 'JWT' })).toString('base64url');
const FEDERATED_CLAIM = 'passport_subjectuniqueidentifier_url';
/**
 * Seconds a token's `nbf` may lie ahead of this clock. `nbf` is the issuing instance's second at login,
 * so another instance of a fleet whose clock lags by a fraction of a second across a second boundary
 * would refuse a token just minted. `exp` gets no leeway.
 */
export const NBF_LEEWAY_SECONDS = 5;

export class EddsaJwtCodec {
  private readonly keys: Promise<{ publicKey: CryptoKey }>;
  private readonly signingKey: KeyObject;
  /** Signature segment → the verified token's whole text and claims. */
  private readonly verified = new Map<string, { readonly token: string; readonly claims: JwtClaims }>();
  private readonly cacheSize: number;

  constructor(private readonly options: EddsaJwtCodecOptions) {
    this.cacheSize = options.verifiedCacheSize ?? 10_000;
    const x = encodeBase64Url(options.publicKey);
    this.signingKey = createPrivateKey({
      key: { kty: 'OKP', crv: 'Ed25519', x, d: encodeBase64Url(options.secretSeed) },
      format: 'jwk',
    });
    this.keys = importJWK({ kty: 'OKP', crv: 'Ed25519', x }, 'EdDSA').then((publicKey) => ({
      publicKey: publicKey as CryptoKey,
    }));
  }

  /**
   * Signs a claim set built by the core's `buildJwtClaims` (which sets iat/nbf/exp itself): the JWS
   * compact form jose's `SignJWT` produces, including its refusal of non-finite times.
   */
  async sign(claims: JwtClaims): Promise<string> {
    for (const claim of ['iat', 'nbf', 'exp'] as const) {
      const value = claims[claim];
      if (typeof value === 'number' && !Number.isFinite(value))
        throw new TypeError(`"${claim}" claim must be a finite number`);
    }
    const signingInput = `${PROTECTED_HEADER}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}`;
    // With a callback node:crypto signs on libuv's thread pool: the event loop serves other requests
    // during the curve arithmetic. Same key, same deterministic signature.
    const signature = await new Promise<Buffer>((resolve, reject) => {
      signEd25519(null, Buffer.from(signingInput), this.signingKey, (error, value) =>
        error ? reject(error) : resolve(value),
      );
    });
    return `${signingInput}.${signature.toString('base64url')}`;
  }

  /**
   * @param options.ignoreTimeWindow accept a token outside its time window whose signature and other
   *   claims are valid: past its `exp`, or not valid yet by this clock (a clock set back since the token
   *   was issued: a probe's logout was refused, and the session lived on). Logout only: an agent can
   *   always close its session.
   */
  async verify(
    token: string,
    options: { readonly ignoreTimeWindow?: boolean } = {},
  ): Promise<JwtVerifyResult> {
    const known = this.verifyCached(token, options);
    if (known !== undefined) return known;
    const nowSeconds = Math.floor(this.options.clock.nowMs() / 1000);
    if (!looksLikeJwt(token)) return { ok: false, reason: 'invalid_jwt_format', cause: 'not_a_jwt' };

    let result = await this.verifyAt(token, nowSeconds);
    if (!result.ok && outsideTimeWindow(result.cause) && options.ignoreTimeWindow === true) {
      // Verify as of a second the token was valid (the last, or its first): every other rule still applies.
      const { exp, nbf } = decodeJwt(token);
      const at = result.cause === 'expired' ? exp && exp - 1 : nbf;
      if (typeof at === 'number') result = await this.verifyAt(token, at, false);
    }
    return result;
  }

  /**
   * The verdict on a token that verified before (its signature is not checked again; its times are),
   * or undefined when the token is not in the cache and needs `verify`. Synchronous, so the bearer
   * tier's usual request (a token it has seen) waits for no promise here.
   */
  verifyCached(
    token: string,
    options: { readonly ignoreTimeWindow?: boolean } = {},
  ): JwtVerifyResult | undefined {
    const entry = this.verified.get(signatureSegment(token));
    if (entry === undefined || entry.token !== token) return undefined;
    const cached = entry.claims;
    const refused = this.checkTimes(cached, Math.floor(this.options.clock.nowMs() / 1000));
    if (
      !refused ||
      (options.ignoreTimeWindow === true && refused.ok === false && outsideTimeWindow(refused.cause))
    ) {
      return { ok: true, claims: cached };
    }
    return refused;
  }

  private async verifyAt(token: string, atSeconds: number, remember = true): Promise<JwtVerifyResult> {
    const { publicKey } = await this.keys;
    let claims: JwtClaims;
    try {
      const result = await jwtVerify(token, publicKey, {
        algorithms: ['EdDSA'],
        typ: 'JWT',
        audience: this.options.audience,
        currentDate: new Date(atSeconds * 1000),
        // jose's tolerance applies to `exp` too: `exp` is checked again below without it.
        clockTolerance: NBF_LEEWAY_SECONDS,
        // `sub` is not required here: a token without one is judged where it is read, as one whose `sub`
        // is null (GET /api/me/identity: 400 IDENTITY_SUB_MISSING, the spec's answer to a JWT lacking it).
        requiredClaims: ['iss', 'aud', 'exp', 'iat', 'jti'],
      });
      claims = result.payload as JwtClaims;
      const refused = this.checkTimes(claims, atSeconds);
      if (refused) return refused;
    } catch (error) {
      return { ok: false, reason: 'error_checking_session', cause: causeOf(error) };
    }
    // jose decodes the signature leniently: the unused low bits of its last character are ignored, so
    // one token has several spellings that verify. Only the one our signer writes is accepted, as the
    // core's codecs accept only canonical base64url for login and HOLA signatures.
    if (!isCanonicalBase64Url(signatureSegment(token)))
      return { ok: false, reason: 'error_checking_session', cause: 'bad_signature' };
    if (!this.issuerAccepted(claims))
      return { ok: false, reason: 'error_checking_session', cause: 'wrong_issuer' };
    if (remember) this.remember(token, claims);
    return { ok: true, claims };
  }

  /** Local tokens carry our URL as `iss`; federated ones carry the home URL and name us in the federated claim. */
  private issuerAccepted(claims: JwtClaims): boolean {
    if (claims.iss === this.options.issuer) return claims[FEDERATED_CLAIM] == null;
    return (
      claims[FEDERATED_CLAIM] === this.options.issuer &&
      typeof claims.iss === 'string' &&
      /^https?:\/\//.test(claims.iss)
    );
  }

  private checkTimes(claims: JwtClaims, nowSeconds: number): JwtVerifyResult | undefined {
    if (typeof claims.exp === 'number' && nowSeconds >= claims.exp)
      return { ok: false, reason: 'error_checking_session', cause: 'expired' };
    if (typeof claims.nbf === 'number' && nowSeconds + NBF_LEEWAY_SECONDS < claims.nbf)
      return { ok: false, reason: 'error_checking_session', cause: 'not_yet_valid' };
    return undefined;
  }

  private remember(token: string, claims: JwtClaims): void {
    if (this.verified.size >= this.cacheSize) {
      const oldest = this.verified.keys().next().value;
      if (oldest !== undefined) this.verified.delete(oldest);
    }
    this.verified.set(signatureSegment(token), { token, claims });
  }
}

/** A refusal for the time alone (what a logout overlooks). */
function outsideTimeWindow(cause: string | undefined): boolean {
  return cause === 'expired' || cause === 'not_yet_valid';
}

/** Base64url as encoders write it: no padding, and no bits set beyond the encoded bytes. */
function isCanonicalBase64Url(text: string): boolean {
  return Buffer.from(text, 'base64url').toString('base64url') === text;
}

/** The text after the last dot (the whole text when there is none). */
function signatureSegment(token: string): string {
  return token.slice(token.lastIndexOf('.') + 1);
}

/**
 * Three dot-separated base64url segments whose first two decode to JSON objects. An empty third
 * segment (an unsecured `alg: none` token) is parseable and is then refused as `wrong_algorithm`.
 */
function looksLikeJwt(token: string): boolean {
  const parts = token.split('.');
  if (
    parts.length !== 3 ||
    !parts.every((p, i) => (i === 2 && p === '') || (p.length > 0 && SEGMENT.test(p)))
  )
    return false;
  try {
    return parts.slice(0, 2).every((p) => {
      const value: unknown = JSON.parse(Buffer.from(p, 'base64url').toString('utf8'));
      return typeof value === 'object' && value !== null && !Array.isArray(value);
    });
  } catch {
    return false;
  }
}

function causeOf(error: unknown): Extract<JwtVerifyFailure, { reason: 'error_checking_session' }>['cause'] {
  if (error instanceof joseErrors.JWTExpired) return 'expired';
  if (error instanceof joseErrors.JWSSignatureVerificationFailed) return 'bad_signature';
  if (error instanceof joseErrors.JOSEAlgNotAllowed || error instanceof joseErrors.JOSENotSupported)
    return 'wrong_algorithm';
  if (error instanceof joseErrors.JWTClaimValidationFailed) {
    if (error.claim === 'aud') return 'wrong_audience';
    if (error.claim === 'iss') return 'wrong_issuer';
    if (error.claim === 'nbf' || error.claim === 'iat') return 'not_yet_valid';
    if (error.claim === 'typ') return 'wrong_type';
    return 'invalid_claims';
  }
  if (error instanceof joseErrors.JWSInvalid || error instanceof joseErrors.JWTInvalid)
    return 'bad_signature';
  return 'bad_signature';
}
