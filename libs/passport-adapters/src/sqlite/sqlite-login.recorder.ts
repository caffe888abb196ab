/**
 * LoginRecorder on SQLite: the used challenge (replay store) and the new session (session store) are
 * written in one `BEGIN IMMEDIATE` transaction on the database both stores share: one commit per
 * login instead of two, and both or neither (a session refused for capacity rolls the challenge record
 * back, so the client can use the challenge again).
 */
import { isPassportError } from '@passport/core';
import {
  LoginRecordFailure,
  SessionCapacityError,
  type LoginChallengeRecord,
  type LoginRecorder,
  type RecordOutcome,
  type SessionRecord,
} from '@passport/core/ports';
import { type SqliteDatabase } from './sqlite.database.js';
import { type SqliteReplayStore } from './sqlite-replay.store.js';
import { type SqliteSessionStore } from './sqlite-session.store.js';

export class SqliteLoginRecorder implements LoginRecorder {
  constructor(
    private readonly db: SqliteDatabase,
    private readonly challenges: SqliteReplayStore,
    private readonly sessions: SqliteSessionStore,
  ) {}

  async recordLogin(challenge: LoginChallengeRecord, session: SessionRecord): Promise<RecordOutcome> {
    let part: LoginRecordFailure['part'] = 'challenge';
    try {
      return this.db.immediate(() => {
        part = 'challenge';
        const outcome = this.challenges.recordIfAbsentSync(challenge.key, challenge.nowMs, challenge.expiresAtMs);
        if (!outcome.recorded) return outcome;
        part = 'session';
        this.sessions.createSync(session);
        return outcome;
      });
    } catch (error) {
      if (isPassportError(error) || error instanceof SessionCapacityError) throw error;
      throw new LoginRecordFailure(part, error);
    }
  }
}
