/**
 * The LoginRecorder contract: a fresh challenge records and stores the session; a used one stores none
 * and reports when it was first used; of concurrent logins with one challenge exactly one gets a
 * session; a challenge whose record has expired can be used again; a session the store refuses for
 * capacity is that refusal, unchanged, with no session stored, and leaves the challenge unused when the
 * recorder is atomic (`atomic: true`: one transaction, or a record it can undo) or used when it is not
 * (`sequentialLoginRecorder` without an undo); the challenge's store share reaches the replay store,
 * whose refusals pass unchanged; a failing session store is a `LoginRecordFailure` of the session; and,
 * over shared storage, a challenge used through one instance is used for its peer. The repo runs it against every recorder it ships; an integrator runs it
 * against their own (see contract-test-api.ts).
 */
import {
  LoginRecordFailure,
  type LoginChallengeRecord,
  type LoginRecorder,
} from '../../ports/login-recorder.port.js';
import {
  SessionCapacityError,
  type SessionRecord,
  type SessionStore,
} from '../../ports/session-store.port.js';
import { type ContractAdapter, type ContractHarness, type ContractTestApi } from './contract-test-api.js';
import { sampleSessionRecord } from './session-store.contract.js';

/** What the suite observes besides the port: the session store the recorder writes to. */
export interface LoginRecorderHarness extends ContractHarness<LoginRecorder> {
  readonly sessions: SessionStore;
  /**
   * Makes the session store fail (throw, as a store that is down does) or work again; optional: a
   * harness that cannot inject a failure leaves the suite's failure test out.
   */
  failSessions?(failing: boolean): void;
}

/** The recorder family under test; `atomic` says whether a refused session leaves the challenge unused. */
export interface LoginRecorderAdapter extends ContractAdapter<LoginRecorder, LoginRecorderHarness> {
  readonly atomic: boolean;
}

/** The n-th challenge record of one passport: used at 1 s, live until 400 s. */
const challenge = (n: number, overrides: Partial<LoginChallengeRecord> = {}): LoginChallengeRecord => ({
  key: `login|abcdefghijkl|2026-01-01T00:00:0${n}.000Z`,
  nowMs: 1000,
  expiresAtMs: 400_000,
  ...overrides,
});

const session = (n: number, overrides: Partial<SessionRecord> = {}): SessionRecord =>
  sampleSessionRecord(n, { createdAtMs: 1000, expiresAtMs: 3_601_000, ...overrides });

export function describeLoginRecorderContract(test: ContractTestApi, kind: LoginRecorderAdapter): void {
  const { describe, it, expect, afterEach } = test;

  describe(`LoginRecorder (${kind.name})`, () => {
    let h: LoginRecorderHarness | undefined;
    afterEach(async () => {
      await h?.close();
      h = undefined;
    });

    it('records a fresh challenge and stores the session', async () => {
      h = await kind.open();
      await expect(h.store.recordLogin(challenge(1), session(1))).resolves.toEqual({ recorded: true });
      await expect(h.sessions.get(session(1).sessionId)).resolves.toMatchObject({ jti: 'jti-1' });
    });

    it('a used challenge stores no session and says when it was first used', async () => {
      h = await kind.open();
      await h.store.recordLogin(challenge(1), session(1));
      await expect(h.store.recordLogin(challenge(1, { nowMs: 2000 }), session(2))).resolves.toEqual({
        recorded: false,
        firstSeenAtMs: 1000,
      });
      await expect(h.sessions.get(session(2).sessionId)).resolves.toBeNull();
    });

    it('other challenges of the same passport each log in', async () => {
      h = await kind.open();
      for (const n of [1, 2, 3])
        await expect(h.store.recordLogin(challenge(n), session(n))).resolves.toEqual({ recorded: true });
      for (const n of [1, 2, 3])
        await expect(h.sessions.get(session(n).sessionId)).resolves.toMatchObject({ closedAtMs: null });
    });

    it('of concurrent logins with one challenge exactly one gets a session', async () => {
      h = await kind.open();
      const store = h.store;
      const outcomes = await Promise.all(
        [1, 2, 3, 4].map((n) => store.recordLogin(challenge(5), session(n))),
      );
      expect(outcomes.filter((outcome) => outcome.recorded)).toHaveLength(1);
      const sessions = h.sessions;
      const stored = await Promise.all([1, 2, 3, 4].map((n) => sessions.get(session(n).sessionId)));
      expect(stored.filter((record) => record !== null)).toHaveLength(1);
    });

    it('a challenge whose record has expired logs in again', async () => {
      h = await kind.open();
      await h.store.recordLogin(challenge(1, { expiresAtMs: 5000 }), session(1));
      await expect(
        h.store.recordLogin(
          challenge(1, { nowMs: 5000, expiresAtMs: 9000 }),
          session(2, { createdAtMs: 5000 }),
        ),
      ).resolves.toEqual({ recorded: true });
    });

    it(`a session refused for capacity is that refusal, stores nothing, and leaves the challenge ${
      kind.atomic ? 'unused' : 'used'
    }`, async () => {
      h = await kind.open({ maxEntries: 2 });
      // Two other passports fill the session store.
      await h.sessions.create(session(7, { tokenId: 'bbbbbbbbbbbb' }));
      await h.sessions.create(session(8, { tokenId: 'cccccccccccc' }));
      await expect(h.store.recordLogin(challenge(3), session(3))).rejects.toBeInstanceOf(
        SessionCapacityError,
      );
      await expect(h.sessions.get(session(3).sessionId)).resolves.toBeNull();
      // Room again: the same challenge logs in only if the refusal left it unused.
      await h.sessions.close(session(7).sessionId, 'logout', 1000);
      await h.sessions.sweep(1001);
      const retry = await h.store.recordLogin(challenge(3), session(3));
      expect(retry.recorded).toBe(kind.atomic);
    });

    // A mutation test: the recorder must pass the challenge's storeShare to the replay store (the reserve
    // that keeps logins working when lines fill the store) and its refusals unchanged.
    it('passes the challenge store share through, and the replay store refusal unchanged', async () => {
      h = await kind.open();
      const tiny = { storeShare: 1e-9 }; // a share of one record
      await expect(h.store.recordLogin(challenge(1, tiny), session(1))).resolves.toEqual({ recorded: true });
      const refusal = await h.store.recordLogin(challenge(2, tiny), session(2)).then(
        () => null,
        (error: unknown) => error,
      );
      expect(refusal).toMatchObject({ code: 'REPLAY_STORE_FULL' });
      expect(refusal).not.toBeInstanceOf(LoginRecordFailure);
      await expect(h.sessions.get(session(2).sessionId)).resolves.toBeNull();
    });

    it(`a failing session store is a LoginRecordFailure of the session, and leaves the challenge ${
      kind.atomic ? 'unused' : 'used'
    } (where the harness can make it fail)`, async () => {
      h = await kind.open();
      if (!h.failSessions) return;
      h.failSessions(true);
      const failure = await h.store.recordLogin(challenge(4), session(4)).then(
        () => null,
        (error: unknown) => error,
      );
      expect(failure).toBeInstanceOf(LoginRecordFailure);
      expect(failure).toMatchObject({ part: 'session' });
      h.failSessions(false);
      const retry = await h.store.recordLogin(challenge(4), session(4));
      expect(retry.recorded).toBe(kind.atomic);
    });

    if (kind.sharedStorage) {
      it('a challenge used through one instance is used for its peer', async () => {
        h = await kind.open();
        const peer = await h.openPeer();
        if (!peer) throw new Error(`${kind.name}: sharedStorage is true but openPeer() gave no instance`);
        await expect(h.store.recordLogin(challenge(1), session(1))).resolves.toEqual({ recorded: true });
        await expect(peer.recordLogin(challenge(1), session(2))).resolves.toMatchObject({ recorded: false });
        await expect(h.sessions.get(session(2).sessionId)).resolves.toBeNull();
      });
    }
  });
}
