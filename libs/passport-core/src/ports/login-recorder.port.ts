/**
 * @module ports/login-recorder.port
 * The two writes of a successful login, made as one step: the used challenge (a single-use record in
 * the replay store) and the new session. Both or neither: a used challenge stores no session, and a
 * session the store cannot take (full, or the store failing) leaves the challenge unused. SQLite does
 * both in one transaction; memory undoes the record when the session fails; a store family without a
 * combined write (Redis) composes the two ports in order (`sequentialLoginRecorder`), where a failing
 * session write leaves the challenge used, so the client fetches a new one.
 */
import { crossCopyCheck } from '../errors/cross-copy.js';
import { type RecordOutcome } from './replay-store.port.js';
import { type SessionRecord } from './session-store.port.js';

/** The used challenge's single-use record (`loginChallengeKey`), kept until it could no longer pass. */
export interface LoginChallengeRecord {
  readonly key: string;
  readonly nowMs: number;
  readonly expiresAtMs: number;
  /** The replay store's `storeShare` for it (login challenges use a reserve above the cap). */
  readonly storeShare?: number;
}

/**
 * A store failing during `recordLogin` (not a refusal by policy), naming the part that failed so the
 * caller can report which store is unavailable.
 */
export class LoginRecordFailure extends Error {
  override readonly name = 'LoginRecordFailure';
  constructor(
    readonly part: 'challenge' | 'session',
    override readonly cause: unknown,
  ) {
    super(`login ${part} could not be stored`);
  }
}

/** A `LoginRecordFailure` of this copy of the package or of another copy (`instanceof` is false then). */
export const isLoginRecordFailure = crossCopyCheck(LoginRecordFailure, '@passport/core.LoginRecordFailure');

export interface LoginRecorder {
  /**
   * Records `challenge` unless it is live already, and then stores `session`.
   * - `{ recorded: false }`: the challenge was used before; no session is stored;
   * - throws the replay store's refusals (`PassportError` REPLAY_STORE_FULL…) and the session store's
   *   `SessionCapacityError` unchanged, and a `LoginRecordFailure` for any other failure.
   */
  recordLogin(challenge: LoginChallengeRecord, session: SessionRecord): Promise<RecordOutcome>;
}
