/**
 * A Redis loss with instances whose clocks differ from Redis's (within the clock skew margin): the hold
 * (`REDIS_LOSS_HOLD_MS`, on Redis's clock) and `lost-at` assumed every instance's clock was Redis's. An
 * upgrade probe had an instance 3 min ahead and a true one: after the hold one login body gave a second
 * session and one line verified a second time. With offsets (instance clock less Redis's) a line
 * accepted by A before a loss at Redis time L is fresh again on B until Redis time L + window + skew +
 * (a − b): the fleet's clock spread, so a lagging instance beside a true one replays too.
 *
 * Real redis-server, the real verify (core `createHolaVerifier`) on each instance's clock, the windows
 * scaled down (W = 6 s, skew 1 s, hold W + skew + 1 s = 8 s; the app's are 300 s, 30 s, 331 s) and the
 * offsets with them (4 s ahead ≈ 3 min of a 300 s window, 3 s behind ≈ 2 min).
 */
import { RecordingPausedError } from '@passport/core/ports';
import { redisLossFleet } from './support/redis-loss-fleet.js';
import {
  SKEW,
  HOLD,
  DAY,
  MARGIN,
  line,
  started,
  holdOver,
  lose,
  type LossInstance,
  offsetInstance,
} from './support/redis-loss-clocks.js';

/** Each test waits out a hold (8 s, longer once the spread is added). */
const LONG = 60_000;

const fleet = redisLossFleet();

type Instance = LossInstance;

const instance = (prefix: string, offsetMs: number): Instance => offsetInstance(fleet, prefix, offsetMs);

const accepted = (body: unknown) => expect(body).toMatchObject({ verified: true });
const refused = (body: unknown) => {
  expect(body).not.toBeInstanceOf(Error);
  expect(body).toMatchObject({ verified: false });
};

describe('after a Redis loss, a line used before it is refused on every instance whatever their clocks', () => {
  it.each([
    ['A ahead notices', 'a'],
    ['B (true) notices', 'b'],
  ])(
    'A 4 s ahead, B true (%s): after the hold B refuses a line A accepted before the loss',
    async (_, who) => {
      const prefix = `spread-a${who}:`;
      const a = instance(prefix, 4_000);
      const b = instance(prefix, 0);
      await started(a, b);
      // Stamped on A's clock (a client using it), accepted by A just before the loss.
      const used = line(a.nowMs());
      const usedLong = line(a.nowMs());
      accepted(await a.verify(used));
      accepted(await a.verify(usedLong, DAY));
      const usedLater = line(a.nowMs());
      accepted(await a.verify(usedLater, DAY));
      if (who === 'a') await lose(fleet, a, b);
      else await lose(fleet, b, a);
      // During the hold a fresh line is refused with 503 (not a replay body).
      expect(await b.verify(line(b.nowMs()))).toBeInstanceOf(Error);
      await holdOver(b);
      // The 24 h window: stamped before the loss as A's clock read it (ahead), so nonce_replay. Fails before
      // the fix: stamped 4 s after B's lostAt, more than the skew (1 s), it verified a second time.
      expect(await b.verify(usedLong, DAY)).toMatchObject({
        verified: false,
        failureReasons: ['nonce_replay'],
      });
      // Fails before the fix: B's own clock, 4 s behind A's, finds the line fresh (about 4 s old of 6) and
      // stamped after its lostAt + skew, so it verified a second time.
      refused(await b.verify(used));
      // Health's note names that boundary past "noticed at" (a review: it said only "stamped before then").
      expect(b.watch.notice).toMatch(/stamped before then, or up to [45] s after \(the fleet's clock lead\)/);
      // An instance started after the hold learns the loss and the fleet's lead then (lost-at, lost-lead).
      await expect(fleet.client().get(`${prefix}{replay}:lost-lead`)).resolves.toMatch(/^(39\d\d|4\d\d\d)$/);
      const d = instance(prefix, 0);
      await d.watch.check();
      expect(await d.verify(usedLater, DAY)).toMatchObject({
        verified: false,
        failureReasons: ['nonce_replay'],
      });
    },
    LONG,
  );

  it(
    'B 3 s behind beside a true A: after the hold B refuses a line a true client stamped just before the loss',
    async () => {
      const prefix = 'spread-b:';
      const a = instance(prefix, 0);
      const b = instance(prefix, -3_000);
      await started(a, b);
      const used = line(Date.now());
      const usedLong = line(Date.now());
      accepted(await a.verify(used));
      accepted(await a.verify(usedLong, DAY));
      await lose(fleet, b, a);
      await holdOver(b);
      // Fails before the fix: B's clock reads the loss 3 s early (its lostAt refuses stamps up to L − 3 s +
      // 1 s), so the line verified a second time with the 24 h window ...
      expect(await b.verify(usedLong, DAY)).toMatchObject({
        verified: false,
        failureReasons: ['nonce_replay'],
      });
      // ... and with the default one too (5 s old of 6 on B's clock).
      refused(await b.verify(used));
    },
    LONG,
  );

  // Holds already (a guard): alone, an instance behind refuses a true client's line stamped just before
  // the loss as future (3 s ahead of its clock, skew 1 s), so it never used it; the lines it did accept
  // were stamped on or before its own clock + skew, which its lostAt (on its own clock) + skew covers,
  // and the hold (on Redis's clock, 8 s) outlasts their freshness (stamp + 6 s + 1 s on its clock).
  it(
    'B 3 s behind alone: the lines it accepted before the loss are refused after the hold (both windows)',
    async () => {
      const prefix = 'spread-c:';
      const b = instance(prefix, -3_000);
      await started(b);
      expect(await b.verify(line(Date.now()))).toMatchObject({
        verified: false,
        failureReasons: ['timestamp_stale_or_future'],
      });
      const used = line(b.nowMs() + SKEW);
      const usedLong = line(b.nowMs() + SKEW);
      accepted(await b.verify(used));
      accepted(await b.verify(usedLong, DAY));
      await lose(fleet, b);
      await holdOver(b);
      refused(await b.verify(used));
      expect(await b.verify(usedLong, DAY)).toMatchObject({
        verified: false,
        failureReasons: ['nonce_replay'],
      });
    },
    LONG,
  );

  it(
    'the hold is extended by the spread for every instance, and Retry-After says so',
    async () => {
      const prefix = 'spread-d:';
      const a = instance(prefix, 4_000);
      const b = instance(prefix, -3_000);
      await started(a, b);
      await lose(fleet, a, b);
      // Fails before the fix: 8 s, the spread (4 s + 3 s) not added.
      for (const i of [a, b]) {
        expect(i.watch.holdRemainingMs).toBeGreaterThan(HOLD + 7_000 - 1_000);
        const paused = await i.store
          .recordIfAbsent(`k${Math.random()}`, i.nowMs(), i.nowMs() + 1000)
          .catch((error: unknown) => error);
        expect(paused).toBeInstanceOf(RecordingPausedError);
        expect((paused as RecordingPausedError).retryAfterMs).toBeGreaterThan(HOLD + 7_000 - 1_000);
      }
      expect(a.watch.problem).toMatch(/recording refused until/);
      // An instance started during the hold adopts the longer hold, and the loss's time, not a later one.
      const c = instance(prefix, 0);
      await c.watch.check();
      expect(c.watch.holdRemainingMs).toBeGreaterThan(HOLD + 7_000 - 2_000);
      expect(Math.abs((c.store.lostRecordsAtMs() ?? 0) - (b.store.lostRecordsAtMs() ?? 0))).toBeLessThan(500);
    },
    LONG,
  );
});

describe('a clock ahead of Redis beyond the margin', () => {
  // Symmetric with a lag beyond the margin: an instance that far ahead records nothing, so the spread the
  // hold waits out is bounded by twice the margin.
  it('records nothing', async () => {
    const prefix = 'spread-e:';
    const far = instance(prefix, MARGIN + 30_000);
    await started(far);
    const body = await far.verify(line(far.nowMs()));
    expect(body).toBeInstanceOf(Error);
    expect(far.store.clockProblem).toMatch(/ahead of Redis's, more than the clock skew margin/);
  });
});
