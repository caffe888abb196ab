/**
 * LoginRecorder on SQLite: the used challenge (replay store) and the new session (session store) of a
 * login are written together, both or neither (a session refused for capacity rolls the challenge record
 * back, so the client can use the challenge again).
 *
 * Group commit: the logins recorded during one event-loop turn are written in one `BEGIN IMMEDIATE`
 * transaction. The commit (the WAL frames of every page touched, and the checkpoints they bring on) was
 * most of a login's store cost; logins arriving together share it. Each call is answered only after
 * that transaction has committed, so a token is never issued for a session that is not stored. A
 * refusal (challenge already used, the replay store full, session capacity) answers only that call
 * and stores nothing of its login: far from the session cap every refusal comes before the login
 * writes (expired records the replay store deleted on the way stay deleted, as on the verify path);
 * near it each login runs in its own savepoint, which a refusal rolls back. A storage error (a failed
 * statement, a failed begin or commit, a loss's hold) fails every call of the batch and stores nothing
 * of it: a failed write may have left its savepoint half applied, and committing around it could store
 * a used challenge without its session.
 * Each failed call names the write it had reached, as a login alone in its transaction would: the
 * challenge when the transaction never began, its own last write when the commit failed.
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

/** Logins written in one transaction at most (bounds the time the write lock is held). */
const MAX_BATCH = 256;

interface PendingLogin {
  readonly challenge: LoginChallengeRecord;
  readonly session: SessionRecord;
  readonly resolve: (outcome: RecordOutcome) => void;
  readonly reject: (error: unknown) => void;
}

type LoginPart = LoginRecordFailure['part'];

/** One login's answer, decided inside the batch and given once the batch has committed. */
type Decision = { readonly outcome: RecordOutcome } | { readonly error: unknown };

/** A storage error inside the batch: every call of it fails, naming the part that broke it. */
class BatchAborted {
  constructor(
    readonly part: LoginPart,
    readonly cause: unknown,
  ) {}
}

export class SqliteLoginRecorder implements LoginRecorder {
  private pending: PendingLogin[] = [];

  constructor(
    private readonly db: SqliteDatabase,
    private readonly challenges: SqliteReplayStore,
    private readonly sessions: SqliteSessionStore,
  ) {}

  recordLogin(challenge: LoginChallengeRecord, session: SessionRecord): Promise<RecordOutcome> {
    return new Promise<RecordOutcome>((resolve, reject) => {
      this.pending.push({ challenge, session, resolve, reject });
      if (this.pending.length === 1) setImmediate(this.flush);
    });
  }

  /**
   * Writes the logins still queued now, while the database is open (its owner closes it next, and
   * closing writes what waits for the write lock).
   */
  dispose(): void {
    if (this.pending.length > 0) this.flush();
  }

  /**
   * Writes every login queued during the last event-loop turn in one transaction, then answers them.
   * While another connection holds the write lock the transaction waits on a timer, the event loop free
   * (`SqliteReplayStore.immediateWhenFree`); the logins of later turns queue behind it.
   */
  private readonly flush = (): void => {
    const batch = this.pending;
    this.pending = [];
    for (let start = 0; start < batch.length; start += MAX_BATCH) {
      const chunk = start === 0 && batch.length <= MAX_BATCH ? batch : batch.slice(start, start + MAX_BATCH);
      // A login alone in its turn is its own transaction (no savepoint around it).
      if (chunk.length === 1 && !this.db.inTransaction) this.writeAlone(chunk[0]);
      else this.writeTogether(chunk);
    }
  };

  /** One login's two writes in a transaction of their own; any failure rolls both back. */
  private writeAlone(login: PendingLogin): void {
    const part: { value: LoginPart } = { value: 'challenge' };
    this.challenges
      .immediateWhenFree(() => this.write(login, part))
      .then(login.resolve, (error: unknown) =>
        login.reject(
          isPassportError(error) || error instanceof SessionCapacityError
            ? error
            : new LoginRecordFailure(part.value, error),
        ),
      );
  }

  /**
   * The logins of `chunk` in one transaction. Each runs in a savepoint of its own (`decide`) only when
   * the session table is so near its bound that a session could be refused after its challenge was
   * written; otherwise every refusal comes before its login writes anything, and none is needed
   * (`decideBare`).
   */
  private writeTogether(chunk: readonly PendingLogin[]): void {
    // The write each login reached; empty while the transaction has not begun.
    const parts: Array<{ value: LoginPart }> = [];
    this.challenges
      .immediateWhenFree(() => {
        // The transaction holds the write lock, and each login adds at most one session row.
        const bare = this.sessions.size + chunk.length < this.sessions.maxEntries;
        return chunk.map((login, i) => {
          const part = (parts[i] = { value: 'challenge' as LoginPart });
          return bare ? this.decideBare(login, part) : this.decide(login, part);
        });
      })
      .then(
        (decisions) => {
          for (let i = 0; i < chunk.length; i++) {
            const decision = decisions[i];
            if ('outcome' in decision) chunk[i].resolve(decision.outcome);
            else chunk[i].reject(decision.error);
          }
        },
        (error: unknown) => {
          // The batch was aborted by one login's failed write, or the begin or the commit failed.
          for (let i = 0; i < chunk.length; i++) {
            chunk[i].reject(
              error instanceof BatchAborted
                ? new LoginRecordFailure(error.part, error.cause)
                : new LoginRecordFailure(parts[i]?.value ?? 'challenge', error),
            );
          }
        },
      );
  }

  /** The used challenge, then (if it was not used before) the session; `part` names the write under way. */
  private write({ challenge, session }: PendingLogin, part: { value: LoginPart }): RecordOutcome {
    part.value = 'challenge';
    // Both run inside this login's own transaction (writeAlone), its savepoint (decide) or the batch's
    // transaction (decideBare), which a throw other than a refusal of the challenge rolls back whole:
    // they open no savepoint of their own.
    const outcome = this.challenges.recordInTransaction(
      challenge.key,
      challenge.nowMs,
      challenge.expiresAtMs,
      undefined,
      challenge.storeShare,
    );
    if (!outcome.recorded) return outcome;
    part.value = 'session';
    this.sessions.createInTransaction(session);
    return outcome;
  }

  /**
   * One login's two writes in the batch's transaction itself, for a batch whose sessions cannot be
   * refused: a refusal then comes from the challenge (used, the replay store full or the sender's
   * quota) before this login wrote anything (`recordInTransaction` appends last), and answers this login
   * alone; anything else (a loss's hold included) aborts the batch. No savepoint: SQLite journals every
   * page a statement changes again inside a savepoint, and a login's statements passed the 64 KiB it
   * keeps in memory, so each login of a batch wrote about 14 more pages to a temporary file (strace of
   * the login bench: 24 write calls a login, 10 without).
   */
  private decideBare(login: PendingLogin, part: { value: LoginPart }): Decision {
    try {
      return { outcome: this.write(login, part) };
    } catch (error) {
      const refusal = isPassportError(error) || error instanceof SessionCapacityError;
      if (refusal && part.value === 'challenge' && this.db.inTransaction) return { error };
      throw new BatchAborted(part.value, error);
    }
  }

  /**
   * One login's two writes in a savepoint of the batch's transaction: a refusal rolls back this login
   * alone. Any other error aborts the batch (the whole transaction rolls back): SQLite may have rolled
   * the transaction back already (I/O error, disk full), after which later statements would run outside
   * any transaction, or rolling back to the savepoint may itself have failed.
   */
  private decide(login: PendingLogin, part: { value: LoginPart }): Decision {
    try {
      return { outcome: this.db.immediate(() => this.write(login, part)) };
    } catch (error) {
      const refusal = isPassportError(error) || error instanceof SessionCapacityError;
      if (refusal && this.db.inTransaction) return { error };
      throw new BatchAborted(part.value, error);
    }
  }
}
