/**
 * @module verify/verify-hola.use-case
 * Verifies a peer's HOLA line (resolutions §2, §4): early validation (400 `HOLA_VALIDATION_FAILED`),
 * then freshness, token existence and activity, the signature (current on-chain owner's keys for
 * standard lines, the embedded key for subagent lines) and finally the single-use nonce record,
 * reported on the 200 body.
 *
 * The nonce is recorded only when everything else passed, so an unauthenticated caller cannot burn a
 * legitimate nonce; the record is kept for the longest window any caller may ask for (24 h after the
 * line's timestamp, plus the future skew), so no caller's larger `maxAgeMs` can accept a replay.
 */
import { PassportError } from '../errors/passport.error.js';
import { parseHola } from '../hola/hola.parser.js';
import { type ParsedHola } from '../hola/hola.types.js';
import { isPassportLive, isPassportRevoked } from '../passport/passport-conditions.js';
import { resolveOwnerKeys } from '../passport/owner-keys.js';
import { type PassportRecord } from '../passport/passport.types.js';
import { type ChainReader } from '../ports/chain-reader.port.js';
import { type Clock } from '../ports/clock.port.js';
import { type ReplayStore } from '../ports/replay-store.port.js';
import { type AsyncSignatureVerifier, type SignatureVerifier } from '../ports/signature-verifier.port.js';
import { utf8Pooled } from '../codecs/utf8-pooled.codec.js';
import { isImplicitAccountId } from '../codecs/account-id.js';
import { VerifyHolaOutcome } from './verify-hola.outcome.js';
import { buildPublicProfile, unavailableProfile, type PublicProfile } from '../profile/public-profile.js';
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
  readonly futureSkewMs?: number;
  /**
   * Most unexpired nonce records one sender token may hold (unbounded when absent). Beyond it a line
   * that verified is refused with 429 `REPLAY_QUOTA_EXCEEDED` instead of being recorded, so one sender
   * cannot fill the replay store for everybody.
   */
  readonly maxRecordsPerSender?: number;
  /** Builds the public profile for `includeProfile` (default: `buildPublicProfile`). */
  readonly profileOf?: (record: PassportRecord) => Promise<PublicProfile>;
}

export interface HolaVerifier {
  verify(request: VerifyHolaRequest): Promise<VerifyHolaResult>;
}

const IMPLICIT_KEY_CACHE_SIZE = 4096;

const FAILURE_HINTS: Record<VerifyFailureReason, string> = {
  checksum_invalid: 'Recompute the checksum letter over the line as sent.',
  timestamp_stale_or_future:
    'Build a new line from a fresh GET /api/holanonce16ts; check the sender clock if it keeps failing.',
  nonce_replay: 'This line was already accepted once; build a new line with a new nonce.',
  token_missing: 'No passport has this token id; check the sender token id in the line.',
  token_expired: 'The passport is outside its not_before / not_after window or revoked.',
  signature_invalid:
    'Sign the UTF-8 of the uppercased line up to and including /<HOST>/ with the key of the passport owner.',
  public_key_unavailable: 'The passport owner has no Ed25519 key on chain to check the signature with.',
  public_key_error: 'The chain could not be read to check the signature; retry shortly.',
};

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

/** Parses or throws the 400 `HOLA_VALIDATION_FAILED` error (shared with `/api/testhola`). */
export function parseHolaOrThrow(hola: unknown, serviceHost: string): ParsedHola {
  const result = parseHola(hola, { serviceHost });
  if (result.ok) return result.line;
  const { message, ...details } = result.failure;
  throw new PassportError('HOLA_VALIDATION_FAILED', details, message);
}

export function createHolaVerifier(deps: HolaVerifierDeps): HolaVerifier {
  const futureSkewMs = deps.futureSkewMs ?? 0;
  if (!Number.isInteger(futureSkewMs) || futureSkewMs < 0)
    throw new RangeError('futureSkewMs must be a non-negative integer');
  const profileOf = deps.profileOf ?? (async (record: PassportRecord) => buildPublicProfile(record));
  const maxPerSender = deps.maxRecordsPerSender;
  if (maxPerSender !== undefined && (!Number.isSafeInteger(maxPerSender) || maxPerSender < 1))
    throw new RangeError('maxRecordsPerSender must be a positive integer');
  // An implicit account's key is its id and never changes, so decoding it once is enough (bounded
  // cache); named accounts go to the chain port every time (their keys change; adapters cache briefly).
  const implicitKeys = new Map<string, Uint8Array[]>();
  const ownerKeys = (ownerId: string): Uint8Array[] | Promise<Uint8Array[]> => {
    const cached = implicitKeys.get(ownerId);
    if (cached) return cached; // no promise on the hot path
    if (!isImplicitAccountId(ownerId)) return resolveOwnerKeys(deps.chain, ownerId);
    return resolveOwnerKeys(deps.chain, ownerId).then((keys) => {
      if (implicitKeys.size >= IMPLICIT_KEY_CACHE_SIZE)
        implicitKeys.delete(implicitKeys.keys().next().value as string);
      implicitKeys.set(ownerId, keys);
      return keys;
    });
  };

  return {
    async verify(request: VerifyHolaRequest): Promise<VerifyHolaResult> {
      const maxAgeMs = resolveMaxAgeMs(request.maxAgeMs);
      const line = parseHolaOrThrow(request.hola, deps.serviceHost);
      const nowMs = deps.clock.nowMs();
      // Failure reasons as bits in VERIFY_FAILURE_REASONS order (the hot path: no Set, no sort).
      let reasons = 0;

      // Freshness in whole seconds: fresh iff -futureSkew <= age <= maxAge.
      const ageSeconds = Math.floor(nowMs / 1000) - Math.floor(line.timestampMs / 1000);
      const timestampFresh = ageSeconds * 1000 >= -futureSkewMs && ageSeconds * 1000 <= maxAgeMs;
      if (!timestampFresh) reasons |= TIMESTAMP_STALE_OR_FUTURE;

      // Token existence and activity, then the keys: any chain failure is public_key_error.
      let passport: PassportRecord | null = null;
      let tokenExists: boolean | undefined;
      let tokenActive: boolean | undefined;
      let chainError = false;
      let keys: readonly Uint8Array[] = NO_KEYS;
      try {
        passport = await deps.chain.getPassport(line.senderTokenId);
        tokenExists = passport !== null;
        if (passport) {
          const chainTimeMs = await deps.chain.chainTimeMs();
          tokenActive = isPassportLive(passport.metadata, chainTimeMs) && !isPassportRevoked(passport);
          if (!tokenActive) reasons |= TOKEN_EXPIRED;
          if (line.form === 'subagent') keys = [line.subagentPublicKey!];
          else {
            const owned = ownerKeys(passport.ownerId);
            keys = Array.isArray(owned) ? owned : await owned;
          }
        } else {
          reasons |= TOKEN_MISSING;
        }
      } catch {
        chainError = true; // facts known before the failure (tokenExists) stay reported
        reasons |= PUBLIC_KEY_ERROR;
      }
      if (line.form === 'subagent' && keys.length === 0) keys = [line.subagentPublicKey!];

      // The signature, when there is a key to check it with (an async lane is awaited key by key).
      const publicKeyAvailable = keys.length > 0;
      let signatureValid: boolean | undefined;
      if (publicKeyAvailable) {
        const message = utf8Pooled(line.signedPrefix); // short-lived: a view into a shared slab
        signatureValid = false;
        for (const key of keys) {
          const answer = deps.verifier.verify(line.signature, message, key);
          if (answer === true || (answer !== false && (await answer))) {
            signatureValid = true;
            break;
          }
        }
        if (!signatureValid) reasons |= SIGNATURE_INVALID;
      } else if (passport && !chainError) {
        reasons |= PUBLIC_KEY_UNAVAILABLE;
      }

      // The single-use record, only for a line that passed everything else.
      let nonceReplaySafe: boolean | undefined;
      let nonceReplayDetails: VerifyHolaBody['nonceReplayDetails'];
      if (reasons === 0) {
        const ttlMs = MAX_HOLA_MAX_AGE_MS + futureSkewMs + 1000;
        let outcome;
        try {
          outcome = await deps.replay.recordIfAbsent(
            holaReplayKey(line),
            nowMs,
            Math.floor(line.timestampMs / 1000) * 1000 + ttlMs,
            maxPerSender === undefined ? undefined : { owner: line.senderTokenId, maxPerOwner: maxPerSender },
          );
        } catch (cause) {
          // Fail closed, never a verdict: a line that cannot be recorded could be accepted twice.
          if (cause instanceof PassportError && REPLAY_REFUSALS.has(cause.code)) throw cause;
          throw Object.assign(new PassportError('REPLAY_STORE_UNAVAILABLE'), { cause });
        }
        nonceReplaySafe = outcome.recorded;
        if (!outcome.recorded) {
          reasons |= NONCE_REPLAY;
          nonceReplayDetails = {
            holaTimestamp: line.timestamp,
            maxAgeMs,
            firstSeenAt: new Date(outcome.firstSeenAtMs).toISOString(),
          };
        }
      }

      const failureReasons: VerifyFailureReason[] = [];
      const failureDetails: VerifyHolaBody['failureDetails'] = [];
      for (let bit = 0; reasons >> bit !== 0; bit++) {
        if ((reasons & (1 << bit)) === 0) continue;
        const reasonCode = VERIFY_FAILURE_REASONS[bit];
        failureReasons.push(reasonCode);
        failureDetails.push({ reasonCode, hint: FAILURE_HINTS[reasonCode] });
      }
      const checks = checksInSpecOrder(
        tokenExists,
        tokenActive,
        timestampFresh,
        nonceReplaySafe,
        signatureValid,
      );
      const result = new VerifyHolaOutcome({
        parsed: line,
        passport,
        chainError,
        maxAgeMs,
        ageSeconds,
        publicKeyAvailable,
      });
      // The documented key order, field by field.
      result.verified = reasons === 0;
      result.peerTokenId = line.senderTokenId;
      result.destinatary = line.recipient === 'MUNDO' ? 'MUNDO' : line.recipient.toLowerCase();
      result.checks = checks;
      result.failureReasons = failureReasons;
      result.failureDetails = failureDetails;
      if (nonceReplayDetails) result.nonceReplayDetails = nonceReplayDetails;
      result.signatureVerificationImplemented = true;
      const warnings = recipientWarnings(line.recipient, request);
      if (warnings.length > 0) result.warnings = warnings;
      if (line.form === 'subagent') {
        result.isSubagentFormat = true;
        result.delegateId = line.delegateId;
        result.issuerTokenId = line.senderTokenId;
      }
      if (request.includeProfile === true)
        result.profile = await profileFor(passport, line.senderTokenId, profileOf);
      return result;
    },
  };
}

const NO_KEYS: readonly Uint8Array[] = [];
/** The refusals a replay store throws when it cannot take a record (see the ReplayStore port). */
const REPLAY_REFUSALS: ReadonlySet<string> = new Set(['REPLAY_STORE_FULL', 'REPLAY_QUOTA_EXCEEDED']);
const reasonBit = (reason: VerifyFailureReason): number => 1 << VERIFY_FAILURE_REASONS.indexOf(reason);
const TIMESTAMP_STALE_OR_FUTURE = reasonBit('timestamp_stale_or_future');
const NONCE_REPLAY = reasonBit('nonce_replay');
const TOKEN_MISSING = reasonBit('token_missing');
const TOKEN_EXPIRED = reasonBit('token_expired');
const SIGNATURE_INVALID = reasonBit('signature_invalid');
const PUBLIC_KEY_UNAVAILABLE = reasonBit('public_key_unavailable');
const PUBLIC_KEY_ERROR = reasonBit('public_key_error');

/** `checks` in the spec's key order; a fact not established is left out (absent, not undefined). */
function checksInSpecOrder(
  tokenExists: boolean | undefined,
  tokenActive: boolean | undefined,
  timestampFresh: boolean,
  nonceReplaySafe: boolean | undefined,
  signatureValid: boolean | undefined,
): VerifyHolaChecks {
  if (
    tokenExists === true &&
    tokenActive === true &&
    nonceReplaySafe !== undefined &&
    signatureValid !== undefined
  )
    return { tokenExists, tokenActive, timestampFresh, nonceReplaySafe, signatureValid, checksumValid: true };
  const checks: VerifyHolaChecks = {};
  if (tokenExists !== undefined) checks.tokenExists = tokenExists;
  if (tokenActive !== undefined) checks.tokenActive = tokenActive;
  checks.timestampFresh = timestampFresh;
  if (nonceReplaySafe !== undefined) checks.nonceReplaySafe = nonceReplaySafe;
  if (signatureValid !== undefined) checks.signatureValid = signatureValid;
  checks.checksumValid = true;
  return checks;
}

/**
 * RECIPIENT_MISMATCH (resolutions §4): with `expectedRecipient`, when it differs from the recipient;
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
            message: `The line is addressed to ${recipient}, not to the expected ${expected}.`,
          },
        ];
  }
  if (typeof request.callerTokenId === 'string' && request.callerTokenId !== '') {
    const caller = request.callerTokenId.toUpperCase();
    if (recipient !== 'MUNDO' && recipient !== caller) {
      return [
        {
          code: 'RECIPIENT_MISMATCH',
          message: `The line is addressed to ${recipient}, not to the caller ${caller}.`,
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
