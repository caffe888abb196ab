/**
 * 60cc4cc: an adopter never takes the loss before the `lost-at` it finds with the hold key; for a hold
 * adopted from a record invocation's reply (no `lost-at` in it), "the next read" takes it. Only a read
 * that still finds the key does (`adoptHold`, reached only with a PTTL above 0): a hold adopted from a
 * reply in the key's last moments (an instance paused through the hold, its first invocation after it)
 * ends with the key, the next read finds none, and the loss's time stays the one taken from the key's
 * value (an extension named beyond the true one, bounded to twice the margin). `learnLossTime` takes the
 * `lost-at` it then reads for the same loss (within the known hold, which the named extension lengthens),
 * so nothing raises it: a line used just before the loss verifies again with a 24 h window.
 *
 * Expected: the used line is nonce_replay, as when a read finds the key.
 * Harness: redis-loss-clocks.ts (real redis-server, the core's verify; W 6 s, skew 1 s, hold 8 s, margin
 * 60 s).
 */
import { redisLossFleet } from './support/redis-loss-fleet.js';
import { DAY, HOLD, holdOver, line, lossInstance, sleep, started } from './support/redis-loss-clocks.js';

const LONG = 60_000;
const fleet = redisLossFleet();

async function redisNowMs(): Promise<number> {
  const [seconds, micros] = (await fleet.client().time()).map(Number) as [number, number];
  return seconds * 1000 + Math.floor(micros / 1000);
}

it(
  'a hold adopted from a record invocation in its last moments: the lost-at read after the key is gone still counts (24 h window)',
  async () => {
    const prefix = 'hostile-extension-key-gone:';
    const x = lossInstance(fleet, prefix);
    await started(x);
    const used = line(x.nowMs() - 200);
    expect(await x.verify(used)).toMatchObject({ verified: true });
    const marker = x.watch.knownMarker ?? '';
    // The loss, noticed just after the line was used; its hold nearly over when x next records (x paused
    // through it: no read of x's finds the key).
    const lossAt = await redisNowMs();
    x.watch.stop();
    await sleep(HOLD - 300);
    await fleet.server.flush();
    const client = fleet.client();
    await client.set(`${prefix}{replay}:history`, marker);
    await client.set(`${prefix}{replay}:lost-at`, String(lossAt), 'PX', 3_600_000);
    await client.set(`${prefix}{replay}:lost-lead`, '0', 'PX', 3_600_000);
    // The key as its (buggy) maker set it: its end right for the loss, its extension a day.
    await client.set(`${prefix}{replay}:loss-hold`, `x lead=0 extended=${DAY}`, 'PX', 300);
    await x.store.recordIfAbsent('adopt-by-record', x.nowMs(), x.nowMs() + 60_000).catch(() => undefined);
    expect(x.watch.holdRemainingMs).toBeGreaterThan(0);
    await sleep(500);
    // The next read: the key is gone, lost-at is there.
    await x.watch.check();
    await holdOver(x);
    await x.watch.check();
    expect(x.nowMs() - (x.watch.lostAtMs ?? 0)).toBeLessThan(HOLD + 2_000);
    expect(await x.verify(used, DAY)).toMatchObject({ verified: false, failureReasons: ['nonce_replay'] });
  },
  LONG,
);
