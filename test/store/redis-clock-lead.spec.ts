/**
 * An instance's clock against Redis's, both ways (a probe on a Redis fleet): an instance 10 min ahead
 * reported `healthy` while it answered every fresh line made on a true clock `timestamp_stale_or_future`,
 * and one an hour behind kept `/health/ready` at 200 while it refused every verify and login, its peers
 * being right. Now the clock check (every 5 s, and at start) names in health a lead beyond 5 s (the tokens
 * it issues are not valid yet elsewhere) and a lag beyond 1 s (lines made on true clocks look future
 * there; a fleet chaos probe: an instance 25 s behind refused every fresh line and its peers' tokens while
 * `healthy`, the limit having been 30 s); and an
 * instance lagging beyond the margin (it records nothing) while more instances agree with Redis's clock
 * than with its own is not ready (a per-instance problem). Alone, with every instance off (Redis's own
 * clock wrong), or with as many agreeing with it, it stays ready: taking them all out would take the
 * read-only routes down with them. A lead, or a lag within the margin, leaves an instance ready: it still
 * records and serves lines made on its own clock, and the fleet cannot tell which clock is true.
 */
import { Redis } from 'ioredis';
import { RedisReplayStore } from '@passport/adapters/redis';
import { createRedisStoreBackend } from '../../apps/api/src/platform/store/redis.store-backend.js';
import { type StoreBackend } from '../../apps/api/src/platform/store/store-backend.types.js';
import { startRedisServer, type RedisServer } from '../support/redis-server.js';

const MIN = 60_000;
let server: RedisServer;
const clients: Redis[] = [];
const backends: StoreBackend[] = [];
let prefixes = 0;

beforeAll(async () => {
  server = await startRedisServer();
});
afterEach(async () => {
  for (const b of backends.splice(0)) b.close();
  // The fleet's clock reports live under the default prefix: each test starts with none.
  const c = new Redis(server.url);
  await c.flushall();
  c.disconnect();
});
afterAll(async () => {
  for (const c of clients) c.disconnect();
  await server.stop();
});

function store(): RedisReplayStore {
  const c = new Redis(server.url);
  clients.push(c);
  return new RedisReplayStore(c, { prefix: `lead${++prefixes}:` });
}

async function instance(offsetMs: number): Promise<StoreBackend> {
  const backend = createRedisStoreBackend(
    { url: server.url, commandTimeoutMs: 500 },
    { clock: { nowMs: () => Date.now() + offsetMs } },
  );
  backends.push(backend);
  await backend.ready?.();
  return backend;
}

describe('the clock check of the replay store', () => {
  it("names a lead over Redis's clock beyond 5 s, in the lag's shape, and clears it once the clock is right", async () => {
    const a = store();
    await a.checkClock(() => Date.now() + 10 * MIN);
    expect(a.clockProblem).toMatch(
      /^this instance's clock is (599|60\d) s ahead of Redis's, more than 5 s: the tokens it issues are not valid yet/,
    );
    await a.checkClock(() => Date.now());
    expect(a.clockProblem).toBeUndefined();
    await a.checkClock(() => Date.now() + 4_000);
    expect(a.clockProblem).toBeUndefined();
    await a.checkClock(() => Date.now() + 20_000);
    expect(a.clockProblem).toMatch(/^this instance's clock is (19|20)\b.* s ahead of Redis's, more than 5 s/);
  });

  it('a lead does not stop recording (records are kept on the earlier clock), and a record made does not clear it', async () => {
    const a = store();
    await a.checkClock(() => Date.now() + 10 * MIN);
    const now = Date.now() + 10 * MIN;
    await expect(a.recordIfAbsent('k', now, now + 300_000)).resolves.toEqual({ recorded: true });
    expect(a.clockProblem).toMatch(/ahead of Redis's/);
  });

  it('names a lag beyond 1 s within the margin (lines made on true clocks look future there), though it still records', async () => {
    const a = store();
    await a.checkClock(() => Date.now() - 5 * MIN);
    expect(a.clockProblem).toMatch(
      /^this instance's clock is (299|30\d) s behind Redis's, more than 1 s: HOLA lines .* look future here for that long, tokens its peers issue are not valid yet here/,
    );
    const late = Date.now() - 5 * MIN;
    await expect(a.recordIfAbsent('k', late, late + 300_000)).resolves.toEqual({ recorded: true });
    // Beyond the margin it is the refusal's text, as before.
    await a.checkClock(() => Date.now() - 16 * MIN);
    expect(a.clockProblem).toMatch(
      /clock is 96\d s behind Redis's, more than the clock skew margin \(900 s\)/,
    );
  });

  // A check whose report to the fleet fails knows no agreeing peer: not taken out on an old count (a
  // mutation probe: the count kept from the check before passed).
  it('a clock report that fails leaves no agreeing peer counted', async () => {
    const prefix = `lead${++prefixes}:`;
    const [c1, c2] = [new Redis(server.url), new Redis(server.url)];
    clients.push(c1, c2);
    const right = new RedisReplayStore(c1, { prefix });
    const behind = new RedisReplayStore(c2, { prefix });
    await right.checkClock(() => Date.now());
    await behind.checkClock(() => Date.now() - 60 * MIN);
    expect(behind.clockProblemOfThisInstance).toMatch(/another instance agrees/);
    await c1.set(`${prefix}{replay}:clocks`, 'not a hash');
    await expect(behind.checkClock(() => Date.now() - 60 * MIN)).rejects.toThrow(/WRONGTYPE/);
    expect(behind.clockProblem).toMatch(/behind Redis's/);
    expect(behind.clockProblemOfThisInstance).toBeUndefined();
  });

  // docs/storage.md: the clocks hash lives 30 s after the last report (a mutation probe: no PEXPIRE passed).
  it('the fleet clock reports expire 30 s after the last check', async () => {
    const prefix = `lead${++prefixes}:`;
    const c = new Redis(server.url);
    clients.push(c);
    await new RedisReplayStore(c, { prefix }).checkClock(() => Date.now());
    const ttl = await c.pttl(`${prefix}{replay}:clocks`);
    expect(ttl).toBeGreaterThan(29_000);
    expect(ttl).toBeLessThanOrEqual(30_000);
  });

  it('a slow round trip is not counted as a lead: the reading before the send is compared', async () => {
    const a = store();
    // A true clock, read just before the send and 2 min later at the reply (a 2 min round trip made
    // plain): the middle would be a lead of a minute.
    const readings = [Date.now(), Date.now() + 2 * MIN];
    await a.checkClock(() => readings.shift() ?? Date.now());
    expect(a.clockProblem).toBeUndefined();
  });
});

describe("the clock check's bounds (Redis's TIME fixed)", () => {
  // A lead beyond 5 s, a lag beyond 1 s: exactly the limit is not named, 1 ms more is (a mutation probe:
  // >= for > on the lead passed). Peers' tokens are named from a lag beyond 5 s.
  it.each([
    ['a lead', 5_000, undefined],
    ['a lead', 5_001, /^this instance's clock is 5\.0 s ahead of Redis's, more than 5 s: /],
    ['a lag', -1_000, undefined],
    [
      'a lag',
      -1_001,
      /^this instance's clock is 1\.0 s behind Redis's, more than 1 s: HOLA lines and login challenges made on true clocks look future here for that long; set it right$/,
    ],
    ['a lag', -5_000, /^this instance's clock is 5\.0 s behind Redis's, more than 1 s: [^,]*; set it right$/],
    ['a lag', -5_001, /5\.0 s behind Redis's, .*, tokens its peers issue are not valid yet here/],
    ['a lag', -25_400, /^this instance's clock is 25 s behind Redis's/],
  ])('%s of %i ms (named: %s)', async (_label, offsetMs, named) => {
    const c = new Redis(server.url);
    clients.push(c);
    const redisMs = Date.now();
    Object.assign(c, {
      time: async () => [String(Math.floor(redisMs / 1000)), String((redisMs % 1000) * 1000)],
    });
    const a = new RedisReplayStore(c, { prefix: `lead${++prefixes}:` });
    await a.checkClock(() => redisMs + offsetMs);
    if (named === undefined) expect(a.clockProblem).toBeUndefined();
    else expect(a.clockProblem).toMatch(named);
  });
});

describe('health and readiness of an instance whose clock is wrong (real redis-server, injected clocks)', () => {
  it('an instance 10 min ahead is degraded naming the lead; alone it stays ready', async () => {
    const ahead = await instance(10 * MIN);
    const health = await ahead.health.check();
    expect(health.ok).toBe(false);
    expect(health.detail).toMatchObject({
      problem: expect.stringMatching(/clock is (599|60\d) s ahead of Redis's/),
    });
    expect(ahead.fatalProblem?.()).toBeUndefined();
  });

  it('an instance an hour behind, beside one that agrees with Redis, is not ready (misconfigured, naming the lag); the true one is', async () => {
    const right = await instance(0);
    const behind = await instance(-60 * MIN);
    expect(behind.fatalProblem?.()).toMatch(
      /clock is 36\d\d s behind Redis's.*another instance agrees with Redis's clock/,
    );
    expect(right.fatalProblem?.()).toBeUndefined();
    expect((await right.health.check()).ok).toBe(true);
  });

  // Taken out is only an instance that records nothing: one ahead, or behind within the margin, still
  // serves lines made on its own clock, and the fleet cannot tell which clock is true.
  it('an instance 10 min ahead or 5 min behind, beside one that agrees with Redis, is degraded and stays ready', async () => {
    await instance(0);
    for (const offset of [10 * MIN, -5 * MIN]) {
      const off = await instance(offset);
      expect((await off.health.check()).detail).toMatchObject({
        problem: expect.stringMatching(/clock is (29\d|30\d|599|60\d) s (ahead of|behind) Redis's/),
      });
      expect(off.fatalProblem?.()).toBeUndefined();
    }
  });

  // 10 min ahead or 5 min behind (named in health, still recording) is no agreeing clock either (a
  // mutation probe: only a lag beyond the margin reported as disagreeing passed; both were taken out).
  it.each([
    ['an hour behind', -60 * MIN],
    ['10 min ahead', 10 * MIN],
    ['5 min behind', -5 * MIN],
  ])(
    "every instance %s (Redis's own clock wrong): all degraded, none taken out",
    async (_label, offsetMs) => {
      const a = await instance(offsetMs);
      const b = await instance(offsetMs);
      await a.ready?.(); // a checks again, now seeing b
      for (const x of [a, b]) {
        expect((await x.health.check()).ok).toBe(false);
        expect(x.fatalProblem?.()).toBeUndefined();
      }
    },
  );

  // A fleet chaos probe: an instance 25 s behind Redis's clock, behind the edge, answered every fresh line
  // made on a true clock timestamp_stale_or_future and its peers' tokens 401 not_yet_valid while its
  // /health said healthy. It is degraded now; it stays ready (it still records and serves).
  it("an instance 25 s behind, beside one on Redis's clock, is degraded naming lines and peers' tokens, and stays ready", async () => {
    await instance(0);
    const behind = await instance(-25_000);
    const health = await behind.health.check();
    expect(health.ok).toBe(false);
    expect(health.detail).toMatchObject({
      problem: expect.stringMatching(
        /clock is 2[45] s behind Redis's, more than 1 s: .*tokens its peers issue are not valid yet here/,
      ),
    });
    expect(behind.fatalProblem?.()).toBeUndefined();
  });

  // Health names a few seconds; the fleet's readiness counts a clock within 30 s as agreeing with Redis's
  // still: beside an instance 6 s behind (named), one an hour behind is the wrong one and goes out.
  it('an instance 6 s behind (named in health) still counts as agreeing with Redis: one an hour behind beside it is taken out', async () => {
    const slightlyOff = await instance(-6_000);
    expect((await slightlyOff.health.check()).ok).toBe(false);
    const behind = await instance(-60 * MIN);
    expect(behind.fatalProblem?.()).toMatch(
      /another instance agrees with Redis's clock \(1 in the last 15 s\)/,
    );
    expect(slightlyOff.fatalProblem?.()).toBeUndefined();
  });

  it('a peer whose last report is older than 15 s (stopped) does not count', async () => {
    const right = await instance(0);
    right.close();
    backends.splice(backends.indexOf(right), 1);
    const c = new Redis(server.url);
    clients.push(c);
    // Its report, aged past the window on Redis's clock.
    const key = 'passport:{replay}:clocks';
    const fields = await c.hgetall(key);
    for (const [field, value] of Object.entries(fields)) {
      const [agrees, at, offset] = value.split(':');
      await c.hset(key, field, `${agrees}:${Number(at) - 16_000}:${offset}`);
    }
    const behind = await instance(-60 * MIN);
    expect(behind.fatalProblem?.()).toBeUndefined();
  });

  // A review: Redis's clock set back left a report stamped ahead of it, never older than 15 s by Redis's
  // clock: a stopped instance's report counted (as a peer, and in the fleet's spread) for as long as the step.
  it("a peer's report stamped more than 15 s ahead of Redis's clock (Redis's clock set back) does not count", async () => {
    const c = new Redis(server.url);
    clients.push(c);
    const [seconds] = await c.time();
    // An instance gone before Redis's clock was set back 10 min: its last report agreed with Redis's clock.
    const key = 'passport:{replay}:clocks';
    await c.hset(key, 'gone-before-the-step', `1:${(Number(seconds) + 600) * 1000}:0`);
    const behind = await instance(-60 * MIN);
    expect(behind.fatalProblem?.()).toBeUndefined();
    expect(await c.hexists(key, 'gone-before-the-step')).toBe(0);
  });

  // An upgrade probe: a lone instance stopped (SIGTERM) and started again with its host clock set back
  // 20 min counted its own former process, whose last report (agreeing) was still under 15 s old, as
  // "another instance agrees with Redis's clock": /health/ready answered 503 for about 10 s with no
  // peer running, where README "Lifecycle" says that alone it stays ready.
  it('an instance closed (stopped) leaves no report that takes out the next one started alone', async () => {
    const before = await instance(0);
    before.close();
    backends.splice(backends.indexOf(before), 1);
    await new Promise((resolve) => setTimeout(resolve, 200)); // the close's last commands
    const behind = await instance(-20 * MIN);
    expect(behind.fatalProblem?.()).toBeUndefined();
  });
});

describe('a Redis whose own clock is wrong, and one instance on its host (a review)', () => {
  // Redis's clock (and its host's) 10 min ahead of true time: the instances on true clocks lag it by
  // 10 min, within the margin, so they record and serve every line made on a true clock; the one
  // instance sharing Redis's host clock agrees with Redis, and answers every such line
  // timestamp_stale_or_future. Taking the true ones out moved all traffic to the broken one.
  it('the instances on true clocks, outnumbering the one that agrees with Redis, stay ready', async () => {
    const onRedisHost = await instance(0);
    const a = await instance(-10 * MIN);
    const b = await instance(-10 * MIN);
    await a.ready?.(); // a checks again, now seeing b
    for (const x of [a, b]) {
      expect((await x.health.check()).ok).toBe(false); // the lag is named
      expect(x.fatalProblem?.()).toBeUndefined();
    }
    expect(onRedisHost.fatalProblem?.()).toBeUndefined();
    // They record as before (the lag is within the margin).
    const late = Date.now() - 10 * MIN;
    await expect(a.replay.recordIfAbsent('true-clock-line', late, late + 300_000)).resolves.toEqual({
      recorded: true,
    });
  });

  // Redis's clock 20 min ahead: the instances on true clocks lag beyond the margin and record nothing,
  // the one on Redis's host agrees with it. The fleet cannot tell which clock is true: as many agreeing
  // with this clock as with Redis's keep it ready (README "Lifecycle"); a mutation probe (the count of
  // instances agreeing with this clock left out) passed every other case.
  it('two instances lagging alike beyond the margin, beside one that agrees with Redis: a tie, both stay ready', async () => {
    await instance(0);
    const a = await instance(-20 * MIN);
    const b = await instance(-20 * MIN);
    await a.ready?.(); // a checks again, now seeing b
    for (const x of [a, b]) {
      expect((await x.health.check()).detail).toMatchObject({
        problem: expect.stringMatching(/behind Redis's/),
      });
      expect(x.fatalProblem?.()).toBeUndefined();
    }
  });

  it('a peer agrees with this clock within 30 s of its offset, not beyond', async () => {
    await instance(0);
    const a = await instance(-20 * MIN);
    await instance(-20 * MIN - 20_000);
    await a.ready?.();
    expect(a.fatalProblem?.()).toBeUndefined();
    const c = await instance(-21 * MIN);
    expect(c.fatalProblem?.()).toMatch(/another instance agrees with Redis's clock/);
  });

  it('two instances off in opposite directions beside one that agrees with Redis: the one recording nothing goes out', async () => {
    await instance(0);
    const ahead = await instance(10 * MIN);
    const behind = await instance(-60 * MIN);
    await ahead.ready?.(); // sees behind too
    expect(ahead.fatalProblem?.()).toBeUndefined();
    expect(behind.fatalProblem?.()).toMatch(/behind Redis's/);
  });
});
