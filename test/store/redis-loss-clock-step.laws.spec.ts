/**
 * A property of the nonce_replay boundary after a Redis loss (docs/storage.md, "Clocks off Redis's during
 * a loss"): whatever steps an instance's wall clock takes (before its first clock check, between its last
 * check and the loss, after the loss, ahead then back) and however it learns the loss (notices it, adopts
 * another instance's hold, learns `lost-at` before or after its first clock check, reports a past loss),
 * `lostRecordsAtMs()` is, in absolute terms, L + lead: L the loss on Redis's clock, lead the fleet's
 * largest clock lead as the clock checks read it. Never below (a line used before the loss verifies again
 * with a long window), never above by a second or more (fresh lines refused).
 *
 * Real redis-server (on this host: its clock is the true time), instance X on the system wall clock
 * (Date.now, replaced for the suite by one the test steps) and real monotonic time (performance.now), as
 * the server wires it; instance A (the rest of the fleet) on a clock a fixed offset off the true time.
 *
 * The lead expected is the one the last checks read, and, when X notices the loss, X's own offset then
 * (a step of X between its last check and the loss is in no one's reading but its own:
 * redis-loss-clock-step-own-lead.spec.ts). Left out, as docs/storage.md leaves them open: a drift within
 * the 5 s before the loss (only steps are generated), no clock check at all (every scenario checks), a loss learned
 * from a 1.12.0 noticer (a `lost-lead` is always written), and a past loss whose marker was made by an
 * instance that never saw the loss (the marker's time is another machine's clock: a past loss may land
 * above by as much as A's clock is ahead of X's, never below). Nor a second flush within the hold after a
 * step (redis-loss-clock-step-past.spec.ts). LAW_RUNS, LAW_HOW (a comma list of the ways) and LAW_LOG=1
 * (each scenario and its deviations on stderr) narrow or widen a run.
 *
 * It found (a review) a past loss reported by an instance stepped ahead since its start, e.g.
 * {how: 'past', x0: 0, oA: 250, beforeCheck: 3500}: the boundary landed 3.25 s below L + lead (the plain
 * case is redis-loss-clock-step-past.spec.ts).
 */
import fc from 'fast-check';
import { Redis } from 'ioredis';
import { RedisHistoryWatch, RedisReplayStore } from '@passport/adapters/redis';
import { startRedisServer, type RedisServer } from '../support/redis-server.js';

const HOLD = 1_200;
const MARGIN = 60_000;
/** Round trips and the clocks' readings (ms): a step is generated in quarters of a second. */
const JITTER = 100;

const realNow = Date.now.bind(Date);
/** The system wall clock's offset from the true time (ms): a step moves it. */
let systemOffsetMs = 0;
let server: RedisServer;
let admin: Redis;
beforeAll(async () => {
  server = await startRedisServer();
  admin = new Redis(server.url);
  Date.now = () => realNow() + systemOffsetMs;
});
afterAll(async () => {
  Date.now = realNow;
  admin.disconnect();
  await server.stop();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function redisNowMs(): Promise<number> {
  const [seconds, micros] = (await admin.time()).map(Number) as [number, number];
  return seconds * 1000 + Math.floor(micros / 1000);
}

interface Instance {
  readonly client: Redis;
  readonly watch: RedisHistoryWatch;
  readonly store: RedisReplayStore;
  readonly checkClock: () => Promise<void>;
}

/** `offsetMs` undefined: the system clock and monotonic time (X); else a clock that far off the true time. */
async function instance(prefix: string, offsetMs?: number): Promise<Instance> {
  const client = new Redis(server.url);
  // Ready before the watch: its first read is the test's, not one on 'ready' racing it.
  await client.ping();
  const nowMs = offsetMs === undefined ? undefined : () => realNow() + offsetMs;
  const clock = nowMs ?? (() => Date.now());
  // No periodic read but while holding: each read is a step of the scenario (X away is X not reading).
  const watch = new RedisHistoryWatch(client, { prefix, holdMs: HOLD, intervalMs: 1e9, nowMs });
  const store = new RedisReplayStore(client, { prefix, clockSkewMarginMs: MARGIN, history: watch });
  return { client, watch, store, checkClock: () => store.checkClock(clock) };
}

function close(...instances: Instance[]): void {
  for (const i of instances) {
    i.watch.stop();
    i.client.disconnect();
  }
}

type How = 'notice' | 'adopt' | 'adopt-without-lost-at' | 'learn-before-check' | 'learn-after-check' | 'past';
interface Scenario {
  readonly how: How;
  /** X's clock less the true time at its start, and A's (ms). */
  readonly x0: number;
  readonly oA: number;
  /** X's steps: before its first clock check, between its last check and the loss, after the loss. */
  readonly beforeCheck: number;
  readonly beforeLoss: number;
  readonly after: ReadonlyArray<{ step: number; then: 'check-clock' | 'read' | 'both' | 'nothing' }>;
  /** learn-*: how long before the read the loss was (ms), and the lead kept with it. */
  readonly age: number;
  readonly keptLead: number;
}

const quarter = (min: number, max: number) =>
  fc.integer({ min: min / 250, max: max / 250 }).map((n) => n * 250);
const step = fc.oneof(fc.constant(0), quarter(-4_000, 4_000));
const scenarioArb: fc.Arbitrary<Scenario> = fc.record({
  how: fc.constantFrom<How>(
    ...(
      ['notice', 'adopt', 'adopt-without-lost-at', 'learn-before-check', 'learn-after-check', 'past'] as const
    ).filter((how) => (process.env.LAW_HOW ?? how).split(',').includes(how)),
  ),
  x0: quarter(-3_000, 3_000),
  oA: quarter(-3_000, 3_000),
  beforeCheck: step,
  beforeLoss: step,
  after: fc.array(
    fc.record({
      step,
      then: fc.constantFrom('check-clock' as const, 'read' as const, 'both' as const, 'nothing' as const),
    }),
    { maxLength: 3 },
  ),
  age: quarter(0, 3_000),
  keptLead: quarter(0, 3_000),
});

let run = 0;

/**
 * Runs one scenario; answers, in pairs, the boundary X gave (absolute: its `lostRecordsAtMs()`, a stamp
 * threshold) less L + lead, and less the larger of L + lead and its lostAt, after it knew the loss and
 * after each later step.
 */
async function deviations(s: Scenario): Promise<number[]> {
  const prefix = `law${++run}:`;
  systemOffsetMs = s.x0;
  const opened: Instance[] = [];
  const open = async (offsetMs?: number) => {
    const i = await instance(prefix, offsetMs);
    opened.push(i);
    return i;
  };
  try {
    await admin.flushall();
    let lossMs: number;
    let leadMs: number;
    let x: Instance;
    /**
     * How far above a past loss may land: the marker's time is A's clock, read as X's (docs: "the
     * marker's time is another machine's clock"), A ahead of X moves it up by as much.
     */
    let markerAhead = 0;
    const stepX = (ms: number) => {
      systemOffsetMs += ms;
    };
    if (s.how === 'learn-before-check' || s.how === 'learn-after-check') {
      leadMs = s.keptLead;
      const keep = async () => {
        lossMs = (await redisNowMs()) - s.age;
        await admin.set(`${prefix}{replay}:lost-at`, String(lossMs), 'PX', 3_600_000);
        await admin.set(`${prefix}{replay}:lost-lead`, String(leadMs), 'PX', 3_600_000);
      };
      if (s.how === 'learn-before-check') {
        await keep();
        x = await open();
        await x.watch.check();
        stepX(s.beforeCheck);
        await x.checkClock();
        await x.checkClock();
      } else {
        x = await open();
        await x.watch.check();
        stepX(s.beforeCheck);
        await x.checkClock();
        await x.checkClock();
        stepX(s.beforeLoss);
        await keep();
        await x.watch.check();
      }
    } else {
      x = await open();
      const a = await open(s.oA);
      await x.watch.check();
      await a.watch.check();
      stepX(s.beforeCheck);
      for (let round = 0; round < 2; round++) {
        await x.checkClock();
        await a.checkClock();
      }
      // The lead the checks read: both reports are live, Redis's own clock counts as 0.
      const xOffset = s.x0 + s.beforeCheck;
      leadMs = Math.max(0, xOffset, s.oA);
      stepX(s.beforeLoss);
      // The noticer takes its own lead at the loss too, a step since its last check included.
      if (s.how === 'notice') leadMs = Math.max(leadMs, xOffset + s.beforeLoss);
      await admin.flushall();
      if (s.how === 'notice') {
        await x.watch.check();
      } else {
        await a.watch.check();
        if (s.how === 'adopt-without-lost-at') await admin.del(`${prefix}{replay}:lost-at`);
        if (s.how === 'past') {
          // X away (no read) past the hold, and the marker older than a hold on X's clock: X reports a
          // past loss. The hold ended (A, done, reads no more: its held reads would set the key again).
          a.watch.stop();
          await admin.del(`${prefix}{replay}:loss-hold`);
          markerAhead = Math.max(0, s.oA - (s.x0 + s.beforeCheck + s.beforeLoss));
          await sleep(HOLD + 300 + markerAhead);
        }
        await x.watch.check();
      }
      await sleep(20);
      const kept = await admin.get(`${prefix}{replay}:lost-at`);
      lossMs = Number(kept);
      expect(kept).not.toBeNull();
    }
    const out: number[] = [];
    const boundary = () => {
      const b = x.store.lostRecordsAtMs();
      expect(b).not.toBeNull();
      // Never below lostAt (docs: "never less than lostAt + skew"): an instance ahead of the lead kept
      // (one started after the loss) refuses up to its own reading of the loss.
      const lostAt = x.watch.lostAtMs as number;
      out.push(
        (b as number) - (lossMs + leadMs),
        (b as number) - Math.max(lossMs + leadMs, lostAt) - markerAhead,
      );
    };
    boundary();
    for (const { step: ms, then } of s.after) {
      stepX(ms);
      if (then === 'check-clock' || then === 'both') await x.checkClock();
      if (then === 'read' || then === 'both') await x.watch.check();
      boundary();
    }
    return out;
  } finally {
    systemOffsetMs = 0;
    close(...opened);
  }
}

describe('the nonce_replay boundary after a Redis loss, under steps of the wall clock', () => {
  it('is L + lead (never below, under a second above), however the loss is learned', async () => {
    await fc.assert(
      fc.asyncProperty(scenarioArb, async (s) => {
        const t0 = realNow();
        const found = await deviations(s);
        if (process.env.LAW_LOG)
          process.stderr.write(`${JSON.stringify(s)} -> ${JSON.stringify(found)} ${realNow() - t0} ms\n`);
        for (let k = 0; k < found.length; k += 2) {
          expect(found[k]).toBeGreaterThanOrEqual(-JITTER);
          expect(found[k + 1]).toBeLessThan(1_000);
        }
      }),
      // About 30 s when it holds (a past loss waits out a hold, 1.5 s to 5 s a run); shrinking is cut at 60 s.
      { numRuns: Number(process.env.LAW_RUNS ?? 40), interruptAfterTimeLimit: 60_000 },
    );
  }, 300_000);
});
