/**
 * @module login/login-request.builder
 * The client's side of `POST /api/login` (docs/protocol.md §3): the body an agent sends after reading
 * the challenge (`GET /api/login/timestamp`). The owner key signs UTF-8 `identifier + timestamp_iso`,
 * and the signature goes out as unpadded base64url. `validateLoginRequest` is the server's reading of
 * the same body.
 *
 * The key signs only a login message: a token id or a NEAR account id followed by a canonical challenge
 * time. Otherwise a fake server could send `timestamp_iso` ":evil-agent:<unix>:<its key>", and the owner
 * key would sign `<tokenId>:evil-agent:<unix>:<key>`, a delegation the real service accepts.
 */
import { encodeBase64Url } from '../codecs/base64url.codec.js';
import { utf8 } from '../codecs/utf8.codec.js';
import { type Signer } from '../ports/signature-verifier.port.js';
import { isNearAccountId } from '../credentials/near-credentials.js';
import { PassportError } from '../errors/passport.error.js';
import { isChallengeTimestampIso } from './login-request.validator.js';
import { normalizeTokenId } from '../token-id/token-id.js';

/** Who logs in: a passport by its token id, or an account (as the first passport it owns). */
export type LoginIdentity = { readonly passportId: string } | { readonly accountId: string };

export type LoginRequestBody =
  | { passportid: string; timestamp_iso: string; passportid_base64url_signature: string }
  | { accountid: string; timestamp_iso: string; base64url_signature: string };

export interface BuildLoginRequestParams {
  readonly identity: LoginIdentity;
  /** The challenge's `timestamp_iso`, exactly as the server sent it (it is signed as text). */
  readonly timestampIso: string;
  /** The passport owner's key (`createNobleSigner`, or `createNodeSigner` on Node). */
  readonly signer: Pick<Signer, 'sign'>;
}

/**
 * The `POST /api/login` body for a challenge, signed by the owner key. Throws a PassportError with the
 * code the server would answer for a bad identifier, timestamp or both ids (LOGIN_IDENTIFIER_AMBIGUOUS),
 * and a TypeError for missing parameters.
 */
export function buildLoginRequest(params: BuildLoginRequestParams): LoginRequestBody {
  const { identity, timestampIso, signer } = params ?? ({} as Partial<BuildLoginRequestParams>);
  if (typeof identity !== 'object' || identity === null)
    throw new TypeError('buildLoginRequest: identity must be { passportId } or { accountId }');
  if (typeof signer?.sign !== 'function')
    throw new TypeError('buildLoginRequest: signer must have sign(message)');
  // Both ids signed the token id, silently; the server refuses such a body whole.
  const given = identity as { passportId?: unknown; accountId?: unknown };
  if (given.passportId !== undefined && given.accountId !== undefined)
    throw new PassportError('LOGIN_IDENTIFIER_AMBIGUOUS', { fields: ['accountid', 'passportid'] });
  const identifier = 'passportId' in identity ? identity.passportId : identity.accountId;
  const identifierOk =
    'passportId' in identity
      ? typeof identifier === 'string' && normalizeTokenId(identifier) !== null
      : isNearAccountId(typeof identifier === 'string' ? identifier.toLowerCase() : identifier);
  if (!identifierOk)
    throw new PassportError('MISSING_LOGIN_IDENTIFIER', {
      reason: 'passportId' in identity ? 'not_a_token_id' : 'not_an_account_id',
    });
  if (!isChallengeTimestampIso(timestampIso))
    throw new PassportError('INVALID_LOGIN_TIMESTAMP', { field: 'timestamp_iso', reason: 'not_a_challenge' });
  const signature = encodeBase64Url(signer.sign(utf8(identifier + timestampIso)));
  return 'passportId' in identity
    ? { passportid: identifier, timestamp_iso: timestampIso, passportid_base64url_signature: signature }
    : { accountid: identifier, timestamp_iso: timestampIso, base64url_signature: signature };
}
