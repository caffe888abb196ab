/**
 * @module login/login-credentials.verifier
 * `POST /api/login` credential checks (HTTP 401), in the order of docs/protocol.md §3. Each failure is
 * `PassportError(code, { failureReason: code, … })`; the first failing check wins.
 *
 * 1. `LOGIN_CHALLENGE_TIMESTAMP_INVALID`: more than 30 s in the future, older than 300 s, or already
 *    used for a session (the single-use record is written at the end, see `recordChallenge`).
 * 2. `PASSPORT_NOT_FOUND`: passportid → that token; accountid → the first passport the account owns.
 * 3. `PASSPORT_MISSING_METADATA`  4. `LOGIN_BASE64URL_SIGNATURE_INVALID` (UTF-8 `identifier +
 *    timestamp_iso`, any of the owner's keys)  5. `SERVER_CONFIG_INCOMPLETE`  6. family:
 *    `PASSPORT_FAMILY_MISMATCH` / `LOGIN_MODE_POLICY_REJECTED_*`  7. `PASSPORT_NOT_LIVE` (chain time)
 *    8. `PASSPORT_REVOKED`  9. `SMART_CONTRACT_NOT_TRUSTED`; anything unexpected → `LOGIN_ERROR`.
 *
 * A chain outage (`ChainUnavailableError`) is not a credential failure: it propagates unchanged so
 * that the HTTP app answers 503 and the client keeps its (possibly good) credentials.
 */
import { isImplicitAccountId } from '../codecs/account-id.js';
import { REPLAY_DECISION_MARGIN_MS } from '../ports/replay-decision-margin.js';
import { printableText } from '../codecs/printable-text.js';
import { utf8 } from '../codecs/utf8.codec.js';
import { isNearAccountId } from '../credentials/near-credentials.js';
import { type ErrorCode } from '../errors/error-catalogue.js';
import { PassportError, isPassportError } from '../errors/passport.error.js';
import { checkFamilyMembership } from '../family/family-membership.js';
import {
  parseServiceProviderId,
  sharedFamilyRoots,
  type ServiceProviderId,
} from '../family/serviceprovider-id.js';
import { isHttpUrl, isNonEmptyString, normalizeApiUrl, sameApiUrl } from '../federation/api-url.js';
import { resolveOwnerKeys } from '../passport/owner-keys.js';
import {
  hasRequiredMetadata,
  isContractTrusted,
  isPassportLive,
  isPassportRevoked,
} from '../passport/passport-conditions.js';
import { type PassportRecord } from '../passport/passport.types.js';
import { isChainUnavailableError, type ChainReader } from '../ports/chain-reader.port.js';
import { type Clock } from '../ports/clock.port.js';
import { type LoginChallengeRecord } from '../ports/login-recorder.port.js';
import { type ReplayStore, retryAfterSecondsOfPause } from '../ports/replay-store.port.js';
import { type AsyncSignatureVerifier, type SignatureVerifier } from '../ports/signature-verifier.port.js';
import { isTokenId, normalizeTokenId } from '../token-id/token-id.js';
import {
  foreignRejection,
  isLoginMode,
  loginModeRejection,
  type LoginMode,
  type LoginRelation,
} from './login-mode.js';
import { type LoginRequest } from './login-request.validator.js';

/** How much of a passport's own API URL a refusal echoes (on-chain text: bounded, printable). */
const MAX_ECHOED_URL_LENGTH = 256;

/** Challenge freshness (docs/protocol.md §3). */
export const LOGIN_CHALLENGE_MAX_FUTURE_MS = 30_000;
export const LOGIN_CHALLENGE_MAX_AGE_MS = 300_000;
/**
 * How much of the replay store used login challenges may fill (its `storeShare`): 1 % above the cap the
 * HOLA lines stop at, so a store full of lines still takes logins (else three senders filling a small
 * store refuse every login). A challenge is one passport's signed second, recorded only for a login
 * that passed every check and kept until 360 s past its second (the 300 s window and the decision
 * margin), so one passport holds at most about 391 (its seconds from 360 s ago to 30 s ahead; enough to
 * fill a small store's reserve alone); the default cap's reserve (10 000) takes some 26 passports doing so.
 */
export const LOGIN_CHALLENGES_STORE_SHARE = 1.01;

export interface LoginServerConfig {
  /** This server's family: `bc=…;sc=…;id=<root>[;id=…]`. */
  readonly serviceProviderId: string;
  /** This server's own passport token id. */
  readonly tokenId: string;
  readonly loginMode: LoginMode;
  readonly trustedContracts: readonly string[];
  /** This server's public URL (`PUBLIC_BASE_URL`); the `iss` of its tokens. */
  readonly publicBaseUrl: string;
  /** `LOGIN_ACCEPT_FOREIGN`: admit same-family passports issued for another API (federated login). */
  readonly acceptForeign: boolean;
}

export interface LoginVerifierDeps {
  readonly chain: ChainReader;
  readonly verifier: SignatureVerifier;
  /**
   * Checks family signatures (default `verifier`): a `FamilyVerdictCache` in front of it spares a
   * passport that logs in again the second signature check.
   */
  readonly familyVerifier?: SignatureVerifier | undefined;
  /**
   * Checks the login signature itself (default `verifier`). A verifier running on another thread
   * (libuv's pool) keeps the event loop serving other requests during the curve arithmetic, the
   * largest single cost of a login.
   */
  readonly loginSignatureVerifier?: SignatureVerifier | AsyncSignatureVerifier | undefined;
  readonly challenges: ReplayStore;
  readonly clock: Clock;
  readonly server: LoginServerConfig;
}

export type LoginFederation =
  | { readonly federated: false; readonly homeUrl: null }
  | { readonly federated: true; readonly homeUrl: string };

export interface LoginVerification {
  /** The passport that logged in (for accountid logins: the first one the account owns). */
  readonly passport: PassportRecord;
  readonly tokenId: string;
  readonly ownerId: string;
  readonly relation: LoginRelation;
  /** The family root whose key vouches for the passport. */
  readonly familyRootId: string;
  readonly federation: LoginFederation;
  /** The single-use key recorded for this challenge (`loginChallengeKey`). */
  readonly challengeKey: string;
}

/** A login whose credentials passed, with the challenge record still to be written (`LoginRecorder`). */
export interface CheckedLogin extends LoginVerification {
  readonly challenge: LoginChallengeRecord;
}

export interface LoginVerifier {
  /** Checks the credentials and records the challenge as used. */
  verify(request: LoginRequest): Promise<LoginVerification>;
  /**
   * Checks the credentials without recording the challenge: the caller writes it together with the
   * session (`LoginRecorder.recordLogin`) and answers a used one with `challengeAlreadyUsed()`.
   */
  check(request: LoginRequest): Promise<CheckedLogin>;
}

/**
 * The single-use key of a login challenge: one per identifier form, in lower case, and second.
 * - a token id (`passportid`): `login|<token id>|<timestamp>`;
 * - an account id (`accountid`): `login|<account id>|<timestamp>`, except a name of 12 letters, which
 *   is also the spelling of a token id: `login|accountid|<account id>|<timestamp>`.
 *
 * Why the two forms must differ: a named account may be called by any 12 letters (the ledger, a
 * registrar's top-level name), so an account named after another holder's token id shared that
 * passport's keys, and each used up the other's challenges (a hostile holder's probe). Why only that
 * account gets a new shape: the keys of 1.11.0 and before carried no kind, and a store shared with an
 * older instance (a rolling upgrade) holds such keys; a token id or an account id that cannot be a token
 * id keeps its old key, so a challenge used on either version stays used on the other. An identifier
 * holds no `|` (a token id is letters, an account id letters, digits, `.`, `-`, `_`), so the four-part
 * shape is no three-part key.
 */
export function loginChallengeKey(
  kind: LoginRequest['identifierKind'],
  identifier: string,
  timestampSeconds: number,
): string {
  const id = identifier.toLowerCase();
  return kind === 'accountid' && isTokenId(id)
    ? `login|accountid|${id}|${timestampSeconds}`
    : `login|${id}|${timestampSeconds}`;
}

/** The refusal of a challenge that was used before (step 1's code: reuse is a property of the challenge). */
export function challengeAlreadyUsed(): PassportError {
  return new PassportError('LOGIN_CHALLENGE_TIMESTAMP_INVALID', {
    failureReason: 'LOGIN_CHALLENGE_TIMESTAMP_INVALID',
    reason: 'challenge_already_used',
  });
}

const fail = (code: ErrorCode, details: Record<string, unknown> = {}): never => {
  throw new PassportError(code, { failureReason: code, ...details });
};

export function createLoginVerifier(deps: LoginVerifierDeps): LoginVerifier {
  const { chain, verifier, challenges, clock, server } = deps;
  const familyVerifier = deps.familyVerifier ?? verifier;
  const loginSignatureVerifier = deps.loginSignatureVerifier ?? verifier;

  /** Whether any of the owner's keys signed `message` (the keys tried in order, the first match wins). */
  async function signedByOwner(
    signature: Uint8Array,
    message: Uint8Array,
    ownerKeys: readonly Uint8Array[],
  ): Promise<boolean> {
    for (const key of ownerKeys)
      if ((await loginSignatureVerifier.verify(signature, message, key)) === true) return true;
    return false;
  }

  async function findPassport(request: LoginRequest): Promise<PassportRecord | null> {
    if (request.identifierKind === 'passportid') {
      const tokenId = normalizeTokenId(request.identifier);
      return tokenId ? chain.getPassport(tokenId) : null;
    }
    // NEAR account ids are lowercase: another case names the same account, as production reads it (it
    // lowercases before the lookup; an uppercase implicit account would be PASSPORT_NOT_FOUND here).
    // The signature still covers the identifier as sent.
    const account = request.identifier.toLowerCase();
    if (!isImplicitAccountId(account) && !isNearAccountId(account)) return null;
    const [first] = await chain.listPassportsByOwner(account, { fromIndex: 0, limit: 1 });
    // What the chain lists is checked as a passport of this account: a record whose id is no token id
    // (a probe's node listed `zz;sub=<another passport>`, which went into the JWT's sub) or whose owner is
    // another account is no passport this login can be for.
    if (!first || !isTokenId(first.tokenId) || first.ownerId.toLowerCase() !== account) return null;
    return first;
  }

  // The server's own configuration does not change while it runs: judged once, not per login.
  const ownFamily = serverFamily();
  const ownTokenId = normalizeTokenId(server.tokenId);

  function serverFamily(): ServiceProviderId | null {
    const family = parseServiceProviderId(server.serviceProviderId);
    const complete =
      family !== null &&
      normalizeTokenId(server.tokenId) !== null &&
      isLoginMode(server.loginMode) &&
      server.trustedContracts.length > 0 &&
      URL.canParse(server.publicBaseUrl);
    return complete ? family : null;
  }

  /**
   * Why the record comes last: recording before the signature verified would let anyone who sees
   * (or guesses) an identifier burn its challenges; recording before the other checks would burn it
   * on a login that yields no session (so `check` leaves it to the caller, which writes it in one step
   * with the session: `LoginRecorder`). Reuse is still reported with the first step's code, since it
   * is a property of the challenge. `recordIfAbsent` is the atomic check-and-record, so of two
   * concurrent logins with one challenge exactly one gets a session. The record lives as long as
   * the challenge could still pass step 1 (plus a second for rounding). The identifier is keyed in
   * lower case: the chain resolves its case variants to one passport, and each variant is a distinct
   * signed message, so a case-sensitive key would give one challenge as many sessions as spellings.
   */
  function challengeRecord(request: LoginRequest, nowMs: number): LoginChallengeRecord {
    return {
      key: loginChallengeKey(request.identifierKind, request.identifier, request.timestampSeconds),
      nowMs,
      expiresAtMs: request.timestampSeconds * 1000 + LOGIN_CHALLENGE_MAX_AGE_MS + REPLAY_DECISION_MARGIN_MS,
      storeShare: LOGIN_CHALLENGES_STORE_SHARE,
    };
  }

  async function recordChallenge(challenge: LoginChallengeRecord): Promise<void> {
    let outcome;
    try {
      outcome = await challenges.recordIfAbsent(
        challenge.key,
        challenge.nowMs,
        challenge.expiresAtMs,
        undefined,
        challenge.storeShare,
      );
    } catch (error) {
      if (isPassportError(error)) throw error;
      // The store is down or slow: not a bad login (the client retries), and never a session.
      const retryAfterSeconds = retryAfterSecondsOfPause(error);
      throw new PassportError('SERVICE_UNAVAILABLE', {
        reason: 'replay_store_unavailable',
        ...(retryAfterSeconds === undefined ? {} : { retryAfterSeconds }),
      });
    }
    if (!outcome.recorded) throw challengeAlreadyUsed();
  }

  async function check(request: LoginRequest): Promise<CheckedLogin> {
    // 1. Challenge window.
    const nowMs = clock.nowMs();
    const challengeMs = request.timestampSeconds * 1000;
    if (challengeMs > nowMs + LOGIN_CHALLENGE_MAX_FUTURE_MS)
      fail('LOGIN_CHALLENGE_TIMESTAMP_INVALID', { reason: 'challenge_in_future' });
    if (challengeMs < nowMs - LOGIN_CHALLENGE_MAX_AGE_MS)
      fail('LOGIN_CHALLENGE_TIMESTAMP_INVALID', { reason: 'challenge_expired' });

    // 2-3. The passport and its metadata.
    const passport = await findPassport(request);
    if (!passport) return fail('PASSPORT_NOT_FOUND');
    if (!hasRequiredMetadata(passport)) fail('PASSPORT_MISSING_METADATA');
    // The server passport's login message (`tokenId + timestamp_iso`) is byte for byte the
    // `passport_idsignature` every token carries (`passport_id + ISO of iat`, signed by the same key):
    // any holder of a token could log in as the server (and escape its own quota).
    if (passport.tokenId === ownTokenId) fail('SERVER_PASSPORT_LOGIN_REFUSED');

    // 4. Proof of possession of the owner's key.
    const message = utf8(request.identifier + request.timestampIso);
    const ownerKeys = request.signature ? await resolveOwnerKeys(chain, passport.ownerId) : [];
    const signature = request.signature;
    if (!signature || !(await signedByOwner(signature, message, ownerKeys))) {
      fail('LOGIN_BASE64URL_SIGNATURE_INVALID', {
        reason: signature ? 'signature_mismatch' : 'signature_encoding',
      });
    }

    // 5. The server can only judge families when its own configuration is whole.
    const family = ownFamily;
    if (!family) return fail('SERVER_CONFIG_INCOMPLETE');

    // 6. Family and login mode.
    const peerFamily = parseServiceProviderId(passport.metadata.serviceprovider_id);
    if (!peerFamily) return fail('PASSPORT_FAMILY_MISMATCH', { reason: 'serviceprovider_id_unparsable' });
    const relation: LoginRelation = sharedFamilyRoots(family, peerFamily).length > 0 ? 'partner' : 'peer';
    // A partner must be vouched for by one of our roots; a peer by a root of the family it claims.
    const membership = await checkFamilyMembership({
      chain,
      verifier: familyVerifier,
      family: relation === 'partner' ? family : peerFamily,
      metadata: passport.metadata,
      tokenId: passport.tokenId,
    });
    if (!membership.member) fail('PASSPORT_FAMILY_MISMATCH', { reason: 'family_signature_invalid' });
    const modeRejection = loginModeRejection(server.loginMode, relation);
    if (modeRejection) fail(modeRejection);
    const federation = federationOf(passport, relation);
    if (federation === 'rejected') fail(foreignRejection(server.loginMode), foreignDetails(passport));

    // 7-9. Conditions on the chain.
    if (!isPassportLive(passport.metadata, await chain.chainTimeMs())) fail('PASSPORT_NOT_LIVE');
    if (isPassportRevoked(passport)) fail('PASSPORT_REVOKED');
    if (!isContractTrusted(passport, server.trustedContracts)) fail('SMART_CONTRACT_NOT_TRUSTED');

    const challenge = challengeRecord(request, nowMs);
    return {
      challenge,
      challengeKey: challenge.key,
      passport,
      tokenId: passport.tokenId,
      ownerId: passport.ownerId,
      relation,
      familyRootId: membership.rootId as string,
      federation: federation as LoginFederation,
    };
  }

  /**
   * A same-family passport whose `subjectuniqueidentifier_url` names another API is foreign: it
   * logs in federated (home = that URL) when `acceptForeign` is on, and is refused otherwise.
   * Peers (other families) and passports naming no API or this API log in as local ones.
   */
  function federationOf(passport: PassportRecord, relation: LoginRelation): LoginFederation | 'rejected' {
    const home = passport.metadata.subjectuniqueidentifier_url;
    if (relation !== 'partner' || !isNonEmptyString(home) || sameApiUrl(home, server.publicBaseUrl)) {
      return { federated: false, homeUrl: null };
    }
    // A home that is no http(s) URL is no API a token could name as its issuer (`javascript:` would
    // become an `iss` every server refuses): such a passport is not federated, it is refused.
    return server.acceptForeign && isHttpUrl(home)
      ? { federated: true, homeUrl: normalizeApiUrl(home) }
      : 'rejected';
  }

  /**
   * Why a same-family passport is refused as foreign, in terms its holder can act on: the API it was
   * issued for beside this one (a passport minted for `http://127.0.0.1:3000` names another API than a
   * server whose public URL is `http://localhost:3000`, though both are one process).
   */
  function foreignDetails(passport: PassportRecord): Record<string, unknown> {
    const home = passport.metadata.subjectuniqueidentifier_url as string;
    return {
      reason: server.acceptForeign ? 'passport_api_url_not_http' : 'issued_for_another_api',
      passportApiUrl: printableText(home, MAX_ECHOED_URL_LENGTH),
      thisApiUrl: server.publicBaseUrl,
    };
  }

  const checked = async (request: LoginRequest): Promise<CheckedLogin> => {
    try {
      return await check(request);
    } catch (error) {
      if (isPassportError(error) || isChainUnavailableError(error)) throw error;
      throw new PassportError('LOGIN_ERROR', { failureReason: 'LOGIN_ERROR' });
    }
  };

  return {
    check: checked,
    async verify(request) {
      const { challenge, ...verification } = await checked(request);
      await recordChallenge(challenge);
      return verification;
    },
  };
}
