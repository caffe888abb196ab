/**
 * @module login/login-recorder
 * The login's two writes (used challenge, session) composed from the replay and session ports, for
 * store families that have no combined write. `undoRecord`, when the replay store can forget a record
 * it has just made (memory), makes the pair all or nothing: a session that cannot be stored leaves the
 * challenge unused. Without it, a failing session write leaves the challenge used.
 */
import { isPassportError } from '../errors/passport.error.js';
import {
  LoginRecordFailure,
  type LoginChallengeRecord,
  type LoginRecorder,
} from '../ports/login-recorder.port.js';
import { type RecordOutcome, type ReplayStore } from '../ports/replay-store.port.js';
import {
  isSessionCapacityError,
  type SessionRecord,
  type SessionStore,
} from '../ports/session-store.port.js';

export function sequentialLoginRecorder(
  challenges: ReplayStore,
  sessions: SessionStore,
  undoRecord?: (key: string) => void,
): LoginRecorder {
  return {
    async recordLogin(challenge: LoginChallengeRecord, session: SessionRecord): Promise<RecordOutcome> {
      let outcome: RecordOutcome;
      try {
        outcome = await challenges.recordIfAbsent(
          challenge.key,
          challenge.nowMs,
          challenge.expiresAtMs,
          undefined,
          challenge.storeShare,
        );
      } catch (error) {
        throw isPassportError(error) ? error : new LoginRecordFailure('challenge', error);
      }
      if (!outcome.recorded) return outcome;
      try {
        await sessions.create(session);
      } catch (error) {
        undoRecord?.(challenge.key);
        throw isSessionCapacityError(error) ? error : new LoginRecordFailure('session', error);
      }
      return outcome;
    },
  };
}
