/**
 * @module verify/verify-hola.use-case
 * Verifies a peer's HOLA line (docs/protocol.md §2, §4). `verify` runs small named checks in order:
 *
 *   1. format     the request and the line (400 `INVALID_CONSTRAINTS` / `HOLA_VALIDATION_FAILED`)
 *   2. freshness  the timestamp against the window
 *   3. token      the passport exists and is live (any chain failure is `public_key_error`)
 *   4. owner keys the current owner's keys (the embedded key for subagent lines)
 *   5. signature  over the signed prefix, with those keys
 *   6. replay     the single-use nonce record
 *
 * and returns the 200 body with the facts behind it. Every failure after step 1 is a reason on the
 * body, never an exception. The nonce is recorded only when everything else passed, so an
 * unauthenticated caller cannot burn a legitimate nonce; the record is kept for the longest window any
 * caller may ask for (24 h after the line's timestamp, plus the future skew), so no caller's larger
 * `maxAgeMs` can accept a replay.
 */
import { printableText } from '../codecs/printable-text.js';
import { REPLAY_DECISION_MARGIN_MS } from '../ports/replay-decision-margin.js';
import { PassportError, isPassportError } from '../errors/passport.error.js';
import { parseHola } from '../hola/hola.parser.js';
import { isServiceHostMarker } from '../hola/service-host.js';
import { type ParsedHola } from '../hola/hola.types.js';
import { isPassportLive, isPassportRevoked } from '../passport/passport-conditions.js';
import { resolveOwnerKeys } from '../passport/owner-keys.js';
import { type PassportRecord } from '../passport/passport.types.js';
import { type ChainReader } from '../ports/chain-reader.port.js';
import { type Clock } from '../ports/clock.port.js';
import { type ReplayStore, retryAfterSecondsOfPause } from '../ports/replay-store.port.js';
import { type AsyncSignatureVerifier, type SignatureVerifier } from '../ports/signature-verifier.port.js';
import { encodeBase32 } from '../codecs/base32.codec.js';
import { utf8 } from '../codecs/utf8.codec.js';
import { isImplicitAccountId } from '../codecs/account-id.js';
import { buildPublicProfile, unavailableProfile, type PublicProfile } from '../profile/public-profile.js';
import { VERIFY_FAILURE_HINTS } from './verify-hola.hints.js';
import {
  DEFAULT_HOLA_MAX_AGE_MS,
  MAX_HOLA_MAX_AGE_MS,
  VERIFY_FAILURE_REASONS,
  type VerifyFailureReason,
  type VerifyHolaBody,
  type VerifyHolaChecks,
  type VerifyHolaRequest,
  type VerifyHolaResult,
  type VerifyHolaWarning,
} from './verify-hola.types.js';

export interface HolaVerifierDeps {
  readonly chain: ChainReader;
  readonly replay: ReplayStore;
  readonly clock: Clock;
  /** A synchronous lane, or one that checks off the event loop (the node thread-pool lane). */
  readonly verifier: SignatureVerifier | AsyncSignatureVerifier;
  /** SERVICE_HOST (host[:port]); lines must carry it uppercased. */
  readonly serviceHost: string;
  /** HOLA_FUTURE_SKEW_MS: how far in the future a timestamp may be (default 0). */
  readonly futureSkewMs?: number | undefined;
  /**
   * Most unexpired nonce records one sender (`holaQuotaOwner`) may hold (unbounded when absent). Beyond
   * it a line that verified is refused with 429 `REPLAY_QUOTA_EXCEEDED` instead of being recorded, so one
   * sender cannot fill the replay store for everybody.
   */
  readonly maxRecordsPerSender?: number | undefined;
  /**
   * Passports that sign lines on request for others (the server's own, whose `/api/testhola` reply is
   * addressed to each caller): their lines are charged to sender and recipient together
   * (`holaQuotaOwner`), so no caller can use up the quota every other caller's replies share.
   */
  readonly onRequestSigners?: ReadonlySet<string> | undefined;
  /** Builds the public profile for `includeProfile` (default: `buildPublicProfile`). */
  readonly profileOf?: ((record: PassportRecord) => Promise<PublicProfile>) | undefined;
}

export interface HolaVerifier {
  verify(request: VerifyHolaRequest): Promise<VerifyHolaResult>;
}

/** `constraints.maxAgeMs`: absent → 300000; otherwise an integer 1..86400000, else INVALID_CONSTRAINTS. */
export function resolveMaxAgeMs(value: unknown): number {
  if (value === undefined) return DEFAULT_HOLA_MAX_AGE_MS;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > MAX_HOLA_MAX_AGE_MS) {
    throw new PassportError('INVALID_CONSTRAINTS', {
      field: 'constraints.maxAgeMs',
      min: 1,
      max: MAX_HOLA_MAX_AGE_MS,
    });
  }
  return value;
}

/**
 * The replay key of a line: `<tokenId lowercase>|<NONCE uppercase>` (the issuer for subagent lines).
 * A ParsedHola holds both fields in those cases already.
 */
export function holaReplayKey(line: Pick<ParsedHola, 'senderTokenId' | 'nonceHex'>): string {
  return `${line.senderTokenId}|${line.nonceHex}`;
}

/**
 * Whom a line's replay record is charged to (the per-sender bound): the sender token of a standard line;
 * for a subagent line, its issuer token together with the key embedded in it. A subagent line verifies
 * against its embedded key (its delegation is the relying party's check, §6), so anyone can make one
 * naming any issuer: charged to the issuer alone, such lines would use up the issuer's own quota and
 * deny its genuine lines for a day. Charged to the key, they use up only that key's. A standard line of
 * one of `onRequestSigners` is charged to its sender and recipient together.
 */
export function holaQuotaOwner(
  line: Pick<ParsedHola, 'form' | 'senderTokenId' | 'subagentPublicKey' | 'recipient'>,
  onRequestSigners?: ReadonlySet<string>,
): string {
  if (line.form === 'subagent' && line.subagentPublicKey)
    return `${line.senderTokenId}|${encodeBase32(line.subagentPublicKey)}`;
  // A line its sender signs for whoever asks (the server's testhola reply) is charged to the one it was
  // made for: charged to the sender alone, one caller verifying its replies would deny everyone's for a
  // day (a hostile holder's probe).
  return onRequestSigners?.has(line.senderTokenId)
    ? `${line.senderTokenId}>${line.recipient.toLowerCase()}`
    : line.senderTokenId;
}

/**
 * The replay store's `storeShare` of subagent lines: one is recorded only while the store holds fewer
 * than half its cap of records of any kind. Anyone can make them (a throwaway key naming any live
 * passport, charged to that key's own quota), so without this they could fill the store and refuse every
 * passport's lines for a day; the other half stays for standard lines, which only a
 * passport's owner can sign.
 */
export const SUBAGENT_LINES_STORE_SHARE = 0.5;

/** Parses or throws the 400 `HOLA_VALIDATION_FAILED` error (shared with `/api/testhola`). */
export function parseHolaOrThrow(hola: unknown, serviceHost: string): ParsedHola {
  const result = parseHola(hola, { serviceHost });
  if (result.ok) return result.line;
  const { message, ...details } = result.failure;
  throw new PassportError('HOLA_VALIDATION_FAILED', details, message);
}

export function createHolaVerifier(deps: HolaVerifierDeps): HolaVerifier {
  // As buildHolaLine refuses it: a URL given for the host (a common slip) would fail every line later as
  // the sender's invalid_format.
  if (!isServiceHostMarker(deps.serviceHost))
    throw new RangeError(
      `createHolaVerifier: serviceHost must be the host marker host[:port], not a URL (got ${JSON.stringify(deps.serviceHost)})`,
    );
  const futureSkewMs = deps.futureSkewMs ?? 0;
  if (!Number.isInteger(futureSkewMs) || futureSkewMs < 0)
    throw new RangeError('futureSkewMs must be a non-negative integer');
  const profileOf = deps.profileOf ?? (async (record: PassportRecord) => buildPublicProfile(record));
  const maxPerSender = deps.maxRecordsPerSender;
  if (maxPerSender !== undefined && (!Number.isSafeInteger(maxPerSender) || maxPerSender < 1))
    throw new RangeError('maxRecordsPerSender must be a positive integer');
  const ownerKeysOf = cachedOwnerKeys(deps.chain);
  const replayTtlMs = MAX_HOLA_MAX_AGE_MS + futureSkewMs + REPLAY_DECISION_MARGIN_MS;

  /** 3. The passport exists and is live; a chain failure is reported, not thrown. */
  async function checkToken(line: ParsedHola): Promise<TokenCheck> {
    let passport: PassportRecord | null = null;
    try {
      passport = await deps.chain.getPassport(line.senderTokenId);
      if (!passport) return { passport, tokenExists: false, chainError: false };
      const chainTimeMs = await deps.chain.chainTimeMs();
      const tokenActive = isPassportLive(passport.metadata, chainTimeMs) && !isPassportRevoked(passport);
      return { passport, tokenExists: true, tokenActive, chainError: false };
    } catch {
      // What was known before the failure (the passport, when read) stays reported.
      return { passport, tokenExists: passport === null ? undefined : true, chainError: true };
    }
  }

  /**
   * 4. The keys to check the signature with: the one embedded in a subagent line, else the current
   * owner's (none when the token is missing or the chain failed; `null` when reading them failed).
   */
  async function checkOwnerKeys(line: ParsedHola, token: TokenCheck): Promise<readonly Uint8Array[] | null> {
    if (line.form === 'subagent') return [line.subagentPublicKey!];
    if (!token.passport || token.chainError) return NO_KEYS;
    try {
      return await ownerKeysOf(token.passport.ownerId);
    } catch {
      return null;
    }
  }

  /** 5. The signature over the signed prefix, with any of `keys` (an async lane is awaited key by key). */
  async function checkSignature(line: ParsedHola, keys: readonly Uint8Array[]): Promise<boolean> {
    const message = utf8(line.signedPrefix);
    for (const key of keys) {
      const answer = deps.verifier.verify(line.signature, message, key);
      // Only `true` is a valid signature: a port answering 'yes' or 1 (a broken implementation) is not.
      if (answer === true || (answer !== false && (await answer) === true)) return true;
    }
    return false;
  }

  /** 6. Records the nonce; the first sighting when it was recorded before. Fails closed, never a verdict. */
  async function checkReplay(line: ParsedHola, nowMs: number): Promise<{ firstSeenAtMs: number } | null> {
    try {
      const outcome = await deps.replay.recordIfAbsent(
        holaReplayKey(line),
        nowMs,
        Math.floor(line.timestampMs / 1000) * 1000 + replayTtlMs,
        maxPerSender === undefined
          ? undefined
          : { owner: holaQuotaOwner(line, deps.onRequestSigners), maxPerOwner: maxPerSender },
        line.form === 'subagent' ? SUBAGENT_LINES_STORE_SHARE : undefined,
      );
      return outcome.recorded ? null : { firstSeenAtMs: outcome.firstSeenAtMs };
    } catch (cause) {
      // A line that cannot be recorded could be accepted twice: refuse it rather than answer.
      if (isPassportError(cause) && REPLAY_REFUSALS.has(cause.code)) throw cause;
      const retryAfterSeconds = retryAfterSecondsOfPause(cause);
      throw new PassportError(
        'REPLAY_STORE_UNAVAILABLE',
        retryAfterSeconds === undefined ? null : { retryAfterSeconds },
        undefined,
        { cause },
      );
    }
  }

  return {
    async verify(given: VerifyHolaRequest): Promise<VerifyHolaResult> {
      // A JavaScript caller's missing request is a request without a line (a 400 PassportError), not a
      // TypeError from reading its fields.
      const request: VerifyHolaRequest = given ?? { hola: undefined };
      // 1. format (throws the 400s)
      const maxAgeMs = resolveMaxAgeMs(request.maxAgeMs);
      const line = parseHolaOrThrow(request.hola, deps.serviceHost);
      const nowMs = deps.clock.nowMs();
      const reasons = new Set<VerifyFailureReason>();

      // 2. freshness, in whole seconds: fresh iff -futureSkew <= age <= maxAge
      const ageSeconds = Math.floor(nowMs / 1000) - Math.floor(line.timestampMs / 1000);
      const timestampFresh = ageSeconds * 1000 >= -futureSkewMs && ageSeconds * 1000 <= maxAgeMs;
      if (!timestampFresh) reasons.add('timestamp_stale_or_future');

      // 3. token
      const token = await checkToken(line);
      if (token.tokenExists === false) reasons.add('token_missing');
      if (token.tokenActive === false) reasons.add('token_expired');
      if (token.chainError) reasons.add('public_key_error');

      // 4. owner keys
      const keys = await checkOwnerKeys(line, token);
      if (keys === null) reasons.add('public_key_error');
      const publicKeyAvailable = keys !== null && keys.length > 0;
      if (keys !== null && keys.length === 0 && token.passport && !token.chainError)
        reasons.add('public_key_unavailable');

      // 5. signature
      let signatureValid: boolean | undefined;
      if (publicKeyAvailable) {
        signatureValid = await checkSignature(line, keys);
        if (!signatureValid) reasons.add('signature_invalid');
      }

      // 6. replay, only for a line that passed everything else
      let nonceReplaySafe: boolean | undefined;
      let nonceReplayDetails: VerifyHolaBody['nonceReplayDetails'];
      if (reasons.size === 0) {
        const replayed = await checkReplay(line, nowMs);
        // Recorded now, but stamped before the store lost records: it may have been used then (a docs
        // probe: after a loss's hold, a line used before it verified again with a 24 h window).
        // In whole seconds, as freshness counts them: a line accepted at or before the loss was stamped at
        // most in the second of the loss plus the skew's whole seconds (a review: stamped 500 ms past the
        // loss plus the skew, accepted in the second before the loss, it verified again).
        const lostAtMs = deps.replay.lostRecordsAtMs?.() ?? null;
        const mayBeUsedBeforeLoss =
          lostAtMs !== null &&
          Math.floor(line.timestampMs / 1000) <=
            Math.floor(lostAtMs / 1000) + Math.floor(futureSkewMs / 1000);
        nonceReplaySafe = replayed === null && !mayBeUsedBeforeLoss;
        if (!nonceReplaySafe) {
          reasons.add('nonce_replay');
          // Such a line's record is the refused sighting's, not when it was first accepted: no firstSeenAt
          // (a review).
          nonceReplayDetails = {
            holaTimestamp: line.timestamp,
            maxAgeMs,
            ...(replayed &&
              !mayBeUsedBeforeLoss && { firstSeenAt: new Date(replayed.firstSeenAtMs).toISOString() }),
          };
        }
      }
      // The body, in the documented key order; a check not evaluated is left out (absent, not
      // undefined); reasons in the spec's order.
      const checks: VerifyHolaChecks = {};
      if (token.tokenExists !== undefined) checks.tokenExists = token.tokenExists;
      if (token.tokenActive !== undefined) checks.tokenActive = token.tokenActive;
      checks.timestampFresh = timestampFresh;
      if (nonceReplaySafe !== undefined) checks.nonceReplaySafe = nonceReplaySafe;
      if (signatureValid !== undefined) checks.signatureValid = signatureValid;
      checks.checksumValid = true;
      const failureReasons = VERIFY_FAILURE_REASONS.filter((reason) => reasons.has(reason));
      const warnings = recipientWarnings(line.recipient, request);
      if (line.form === 'subagent') warnings.push(delegationNotChecked(line.senderTokenId));
      const body: VerifyHolaBody = {
        verified: failureReasons.length === 0,
        peerTokenId: line.senderTokenId,
        destinatary: line.recipient === 'MUNDO' ? 'MUNDO' : line.recipient.toLowerCase(),
        checks,
        failureReasons,
        failureDetails: failureReasons.map((reasonCode) => ({
          reasonCode,
          hint: VERIFY_FAILURE_HINTS[reasonCode],
        })),
        ...(nonceReplayDetails && { nonceReplayDetails }),
        signatureVerificationImplemented: true,
        ...(warnings.length > 0 && { warnings }),
        ...(line.form === 'subagent' && {
          isSubagentFormat: true,
          delegateId: line.delegateId,
          issuerTokenId: line.senderTokenId,
        }),
      };
      if (request.includeProfile === true)
        body.profile = await profileFor(token.passport, line.senderTokenId, profileOf);
      return {
        body,
        facts: {
          parsed: line,
          passport: token.passport,
          chainError: token.chainError || keys === null,
          maxAgeMs,
          ageSeconds,
          publicKeyAvailable,
        },
      };
    },
  };
}

/** What the token check found; `tokenActive` only for an existing passport, nothing after a chain failure. */
interface TokenCheck {
  readonly passport: PassportRecord | null;
  readonly tokenExists?: boolean;
  readonly tokenActive?: boolean;
  readonly chainError: boolean;
}

const NO_KEYS: readonly Uint8Array[] = [];
const IMPLICIT_KEY_CACHE_SIZE = 4096;
/** The refusals a replay store throws when it cannot take a record (see the ReplayStore port). */
const REPLAY_REFUSALS: ReadonlySet<string> = new Set(['REPLAY_STORE_FULL', 'REPLAY_QUOTA_EXCEEDED']);

/**
 * The owner keys of an account. An implicit account's key is its id and never changes, so it is read
 * once (bounded cache); named accounts go to the chain port every time (their keys change; adapters
 * cache briefly).
 */
function cachedOwnerKeys(chain: ChainReader): (ownerId: string) => Promise<Uint8Array[]> {
  const implicitKeys = new Map<string, Uint8Array[]>();
  return async (ownerId) => {
    const cached = implicitKeys.get(ownerId);
    if (cached) return cached;
    const keys = await resolveOwnerKeys(chain, ownerId);
    if (isImplicitAccountId(ownerId)) {
      if (implicitKeys.size >= IMPLICIT_KEY_CACHE_SIZE)
        implicitKeys.delete(implicitKeys.keys().next().value as string);
      implicitKeys.set(ownerId, keys);
    }
    return keys;
  };
}

/**
 * DELEGATION_NOT_CHECKED: a subagent line is signed by the key it carries, which anyone can make; only
 * the issuer's delegation (docs/protocol.md §6) says the key speaks for the issuer. Relying parties
 * otherwise read `verified` alone as "the issuer signed this".
 */
function delegationNotChecked(issuerTokenId: string): VerifyHolaWarning {
  return {
    code: 'DELEGATION_NOT_CHECKED',
    message: `Signed by the key in the line, not by ${issuerTokenId}'s owner: ask POST /api/isauthorizedsigner whether ${issuerTokenId} delegated that key.`,
  };
}

/**
 * RECIPIENT_MISMATCH (docs/protocol.md §4): with `expectedRecipient`, when it differs from the recipient;
 * otherwise, when a bearer token was sent and the recipient is neither MUNDO nor the caller.
 */
function recipientWarnings(recipient: string, request: VerifyHolaRequest): VerifyHolaWarning[] {
  if (typeof request.expectedRecipient === 'string') {
    const expected =
      request.expectedRecipient.trim() === '' ? 'MUNDO' : request.expectedRecipient.trim().toUpperCase();
    return expected === recipient
      ? []
      : [
          {
            code: 'RECIPIENT_MISMATCH',
            // Echoed at most 64 printable characters: a 60 KB expectedRecipient would come back whole.
            message: `The line is addressed to ${recipient}, not to the expected ${printableText(expected, 64)}.`,
          },
        ];
  }
  if (typeof request.callerTokenId === 'string' && request.callerTokenId !== '') {
    const caller = request.callerTokenId.toUpperCase();
    if (recipient !== 'MUNDO' && recipient !== caller) {
      return [
        {
          code: 'RECIPIENT_MISMATCH',
          // For testhola the passport checking the line is the server's, not the caller's (an audit: it read "the caller").
          message: `The line is addressed to ${recipient}, not to ${caller}, the passport checking it.`,
        },
      ];
    }
  }
  return [];
}

async function profileFor(
  passport: PassportRecord | null,
  tokenId: string,
  profileOf: (record: PassportRecord) => Promise<PublicProfile>,
): Promise<PublicProfile> {
  if (!passport) return unavailableProfile(tokenId);
  try {
    return await profileOf(passport);
  } catch {
    return unavailableProfile(tokenId);
  }
}
