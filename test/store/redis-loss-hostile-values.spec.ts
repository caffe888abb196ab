/**
 * The values 1.13.0 reads back from Redis after a loss (`loss-hold`'s `lead=<ms> extended=<ms>`, and
 * `lost-lead`) are taken as written: no honest instance writes a lead beyond the clock skew margin (one
 * beyond it records nothing) nor an extension beyond twice it, but a key written by a buggy or hostile
 * instance made every instance refuse every fresh line nonce_replay (a lead of an hour: kept 25 h in
 * `lost-lead`, raised on every running instance and never lowered, so deleting the keys changed nothing
 * until each process restarted; health said `healthy`), or take a loss a day earlier than it was (an
 * extension of a day: a line used just before the loss verified again with a 24 h window). A review of
 * 1.13.0's error paths. Fixed: the lead bounded by the margin, the extension by twice it, and an adopter
 * never takes the loss before the `lost-at` kept for it.
 *
 * Harness: redis-loss-clocks.ts (real redis-server, the core's verify; W 6 s, skew 1 s, hold 8 s, margin
 * 60 s).
 */
import { redisLossFleet } from './support/redis-loss-fleet.js';
import {
  DAY,
  HOLD,
  MARGIN,
  holdOver,
  line,
  lossInstance,
  sleep,
  started,
} from './support/redis-loss-clocks.js';

const LONG = 60_000;
const fleet = redisLossFleet();

async function redisNowMs(): Promise<number> {
  const [seconds, micros] = (await fleet.client().time()).map(Number) as [number, number];
  return seconds * 1000 + Math.floor(micros / 1000);
}

describe('a loss-hold value naming a lead beyond the clock skew margin', () => {
  it(
    'bounds the lead by the clock skew margin (an honest hold outlasts the boundary then)',
    async () => {
      const prefix = 'hostile-lead:';
      const x = lossInstance(fleet, prefix);
      await started(x);
      // A hold made by a buggy instance: an hour's lead (no instance within the margin has one).
      await fleet.client().set(`${prefix}{replay}:loss-hold`, `x lead=3600000 extended=0`, 'PX', 1_000);
      await x.watch.check();
      expect(x.watch.holdRemainingMs).toBeGreaterThan(0);
      await holdOver(x);
      // Was 3 600 000 (the boundary an hour past the loss: every line stamped now, never seen, is
      // nonce_replay; bounded, the boundary is within the margin, which an honest hold outlasts).
      expect(x.watch.lossLeadOverThisClockMs).toBeLessThanOrEqual(MARGIN + 1_000);
      expect((x.store.lostRecordsAtMs() ?? NaN) - (x.watch.lostAtMs ?? NaN)).toBeLessThanOrEqual(
        MARGIN + 1_000,
      );
    },
    LONG,
  );
});

describe('a lost-lead beyond the clock skew margin', () => {
  it(
    'is bounded by the margin on an instance that learns the loss from lost-at',
    async () => {
      const prefix = 'hostile-lost-lead:';
      const client = fleet.client();
      const lossAt = (await redisNowMs()) - 2 * HOLD;
      await client.set(`${prefix}{replay}:lost-at`, String(lossAt), 'PX', 3_600_000);
      await client.set(`${prefix}{replay}:lost-lead`, '3600000', 'PX', 3_600_000);
      const x = lossInstance(fleet, prefix);
      await started(x);
      await x.watch.check();
      expect(x.watch.lostAtMs).not.toBeNull();
      // Was 3 600 000 (learned at the first read, before the first clock check).
      expect(x.watch.lossLeadOverThisClockMs).toBeLessThanOrEqual(MARGIN + 1_000);
      // The loss 16 s ago: a line stamped now is past the bounded boundary only after the margin, so one
      // stamped before the loss plus the margin is still refused, and the test looks at the bound alone.
      expect((x.store.lostRecordsAtMs() ?? NaN) - (x.watch.lostAtMs ?? NaN)).toBeLessThanOrEqual(
        MARGIN + 1_000,
      );
    },
    LONG,
  );
});

describe('a loss-hold value naming an extension beyond twice the clock skew margin', () => {
  it(
    'does not take the loss as earlier than the lost-at its noticer kept: a used line is nonce_replay (24 h window)',
    async () => {
      const prefix = 'hostile-extension:';
      const x = lossInstance(fleet, prefix);
      await started(x);
      const used = line(x.nowMs() - 200);
      expect(await x.verify(used)).toMatchObject({ verified: true });
      await fleet.server.flush();
      // The noticer (buggy) keeps the loss's time right but names an extension of a day in the hold.
      const client = fleet.client();
      await client.set(`${prefix}{replay}:lost-at`, String(await redisNowMs()), 'PX', 3_600_000);
      await client.set(`${prefix}{replay}:lost-lead`, '0', 'PX', 3_600_000);
      await client.set(`${prefix}{replay}:loss-hold`, `x lead=0 extended=${DAY}`, 'PX', HOLD);
      await x.watch.check();
      expect(x.watch.holdRemainingMs).toBeGreaterThan(0);
      // Was a day before the loss (the hold's time to live less the hold and the named extension), then
      // twice the margin once the extension was bounded; now the kept lost-at.
      expect(x.nowMs() - (x.watch.lostAtMs ?? 0)).toBeLessThan(2_000);
      await holdOver(x);
      await sleep(100);
      // Was verified again.
      expect(await x.verify(used, DAY)).toMatchObject({ verified: false, failureReasons: ['nonce_replay'] });
    },
    LONG,
  );

  it(
    'likewise when the hold is adopted from a record invocation (no lost-at in its reply): the next read takes it',
    async () => {
      const prefix = 'hostile-extension-record:';
      const x = lossInstance(fleet, prefix);
      await started(x);
      const used = line(x.nowMs() - 200);
      expect(await x.verify(used)).toMatchObject({ verified: true });
      const marker = x.watch.knownMarker ?? '';
      await fleet.server.flush();
      const client = fleet.client();
      // The marker put back as x knows it, so x's record invocation meets the hold first (its reply names
      // the hold, not lost-at).
      await client.set(`${prefix}{replay}:history`, marker);
      await client.set(`${prefix}{replay}:lost-at`, String(await redisNowMs()), 'PX', 3_600_000);
      await client.set(`${prefix}{replay}:lost-lead`, '0', 'PX', 3_600_000);
      await client.set(`${prefix}{replay}:loss-hold`, `x lead=0 extended=${DAY}`, 'PX', HOLD);
      await x.store.recordIfAbsent('adopt-by-record', x.nowMs(), x.nowMs() + 60_000).catch(() => undefined);
      expect(x.watch.holdRemainingMs).toBeGreaterThan(0);
      // The held read (every 0.5 s) finds lost-at.
      await sleep(1_000);
      expect(x.nowMs() - (x.watch.lostAtMs ?? 0)).toBeLessThan(2_000);
      await holdOver(x);
      await sleep(100);
      expect(await x.verify(used, DAY)).toMatchObject({ verified: false, failureReasons: ['nonce_replay'] });
    },
    LONG,
  );
});
