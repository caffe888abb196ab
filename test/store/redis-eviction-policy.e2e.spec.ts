/**
 * A Redis that may evict keys (found by a probe): replay records carry an expiry, so under
 * `maxmemory-policy volatile-lru` (the default of some managed Redis services) memory pressure dropped
 * live ones, and 3 of 30 used HOLA lines verified a second time while health said healthy. The replay
 * store now refuses to record while the policy evicts (verify answers 503 REPLAY_STORE_UNAVAILABLE,
 * never `verified: true`), health is degraded and names the policy, and both recover when the policy
 * is `noeviction` again, without a restart.
 */
import { Redis } from 'ioredis';
import {
  createRedisClient,
  RedisEvictionWatch,
  RedisReplayStore,
  whenConnected,
} from '@passport/adapters/redis';
import { bearer, mintAndLogin } from '../support/passports.js';
import { startRedisServer, type RedisServer } from '../support/redis-server.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { holaLine, postJson } from '../verify/hola-lines.js';

let server: RedisServer;
let admin: Redis;
beforeAll(async () => {
  server = await startRedisServer();
  admin = new Redis(server.url);
});
afterAll(async () => {
  admin.disconnect();
  await server.stop();
});
afterEach(async () => {
  await admin.config('SET', 'maxmemory-policy', 'noeviction');
});

it('the store refuses to record while the policy evicts, writes nothing, and records again under noeviction', async () => {
  const client = createRedisClient(server.url);
  const watch = new RedisEvictionWatch(client, { intervalMs: 60_000 });
  try {
    expect(await whenConnected(client, 3000)).toBe(true);
    const store = new RedisReplayStore(client, { prefix: 'evict:', evictionProblem: () => watch.problem });
    // Not known to be safe before the first read (a review): refused too.
    expect(watch.problem).toBe('maxmemory-policy not read yet');
    await expect(store.recordIfAbsent('early', 1000, 5000)).rejects.toThrow(/not read yet/);
    await watch.refresh();
    expect([watch.maxmemoryPolicy, watch.problem]).toEqual(['noeviction', undefined]);
    for (const policy of ['volatile-lru', 'allkeys-lru', 'volatile-ttl', 'allkeys-random']) {
      await admin.config('SET', 'maxmemory-policy', policy);
      await watch.refresh();
      expect(watch.problem).toContain(policy);
      await expect(store.recordIfAbsent(`k-${policy}`, 1000, 5000)).rejects.toThrow(/may evict/);
    }
    expect(await admin.keys('evict:*')).toEqual([]);
    await admin.config('SET', 'maxmemory-policy', 'noeviction');
    await watch.refresh();
    // Times of now: a caller further behind Redis than the clock skew margin is refused.
    await expect(store.recordIfAbsent('k', Date.now(), Date.now() + 5000)).resolves.toEqual({
      recorded: true,
    });
    // Found by a probe: a lost connection may come back to another Redis (a restart with another
    // policy); the policy read before counts no more until it is read on the new connection.
    client.emit('close');
    expect(watch.problem).toBe('maxmemory-policy not read yet');
    await expect(store.recordIfAbsent('after-close', 1000, 5000)).rejects.toThrow(/not read yet/);
    await watch.refresh();
    expect(watch.problem).toBeUndefined();
  } finally {
    watch.stop();
    client.disconnect();
  }
});

describe('the app on a Redis whose policy evicts', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ STORE: 'redis', REDIS_URL: server.url });
  });
  afterAll(() => app.close());

  it('verify fails closed with 503 and health names the policy; both recover under noeviction', async () => {
    const sender = await mintAndLogin(app);
    const verify = (hola: string) => postJson(app)('/api/identity/verify', { hola });
    await admin.config('SET', 'maxmemory-policy', 'volatile-lru');
    // The app reads the policy every 5 s.
    const deadline = Date.now() + 8000;
    let refused;
    for (;;) {
      refused = await verify(holaLine(app, { sender: sender.tokenId, signer: sender.key.signer }));
      if (refused.status === 503 || Date.now() > deadline) break;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(refused.status).toBe(503);
    expect(refused.body.error.code).toBe('REPLAY_STORE_UNAVAILABLE');
    const health = (await (await fetch(`${app.baseUrl}/health`)).json()) as { status: string };
    expect(health.status).toBe('degraded');
    expect(JSON.stringify(health)).toContain('maxmemory-policy volatile-lru');

    await admin.config('SET', 'maxmemory-policy', 'noeviction');
    const back = Date.now() + 8000;
    let verified;
    for (;;) {
      verified = await verify(holaLine(app, { sender: sender.tokenId, signer: sender.key.signer }));
      if (verified.status === 200 || Date.now() > back) break;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect([verified.status, verified.body.verified]).toEqual([200, true]);
  }, 30_000);

  // Found by a probe of the fleet: a Redis out of memory showed in health only as "redis failed a request
  // in the last 10 s"; it now says what Redis said.
  it('a Redis out of memory: verify 503, and health names the refusal', async () => {
    const sender = await mintAndLogin(app);
    await admin.config('SET', 'maxmemory', '1');
    try {
      const refused = await postJson(app)('/api/identity/verify', {
        hola: holaLine(app, { sender: sender.tokenId, signer: sender.key.signer }),
      });
      expect([refused.status, refused.body.error?.code]).toEqual([503, 'REPLAY_STORE_UNAVAILABLE']);
      await new Promise((resolve) => setTimeout(resolve, 1100)); // past health's 1 s reuse
      const health = (await (await fetch(`${app.baseUrl}/health`)).json()) as { status: string };
      expect(health.status).toBe('degraded');
      expect(JSON.stringify(health)).toMatch(
        /redis failed a request in the last 10 s: OOM command not allowed/,
      );
    } finally {
      await admin.config('SET', 'maxmemory', '0');
    }
  });

  // Found by a probe of a fleet: after an out-of-memory refusal had passed (health healthy again), a later
  // failure of another kind (an evicting policy, Redis restarted) kept health degraded with "redis failed
  // a request in the last 10 s: OOM command not allowed …", minutes after the last OOM: every failure
  // path set the failure's time, only some its text, so the old text was shown as the new failure's.
  it("a failure after an out-of-memory refusal has passed does not carry that refusal's text", async () => {
    const sender = await mintAndLogin(app);
    const verify = () =>
      postJson(app)('/api/identity/verify', {
        hola: holaLine(app, { sender: sender.tokenId, signer: sender.key.signer }),
      });
    const health = async () =>
      (await (await fetch(`${app.baseUrl}/health`)).json()) as { status: string; checks: any };
    const until = async (done: () => Promise<boolean>, ms: number) => {
      const deadline = Date.now() + ms;
      while (!(await done()) && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 250));
    };
    await admin.config('SET', 'maxmemory', '1');
    try {
      expect((await verify()).status).toBe(503);
    } finally {
      await admin.config('SET', 'maxmemory', '0');
    }
    // The refusal passes: health is healthy again (10 s after it, the rate limits back on Redis).
    await until(async () => (await health()).status === 'healthy', 16_000);
    expect((await health()).status).toBe('healthy');

    await admin.config('SET', 'maxmemory-policy', 'allkeys-lru');
    let refused;
    await until(async () => {
      refused = await verify();
      return refused.status === 503;
    }, 8000);
    expect(refused!.status).toBe(503);
    await new Promise((resolve) => setTimeout(resolve, 1100)); // past health's 1 s reuse
    const degraded = await health();
    expect(degraded.status).toBe('degraded');
    expect(degraded.checks.store.problem).toContain('maxmemory-policy allkeys-lru');
    expect(JSON.stringify(degraded)).not.toContain('OOM');

    // Left as found: the app reads the policy every 5 s, and the next test logs in.
    await admin.config('SET', 'maxmemory-policy', 'noeviction');
    await until(async () => (await verify()).status === 200, 8000);
  }, 40_000);

  // Found by the same probe: health's rate-limit text took the first of the two bucket stores (per
  // passport, public) that had ever failed, not one that falls back now: a per-passport store back on Redis
  // for minutes still named its out-of-memory refusal while the public buckets fell back for another reason.
  it("the rate limits' last failure is that of a store falling back now, not an older one's", async () => {
    const sender = await mintAndLogin(app, { metadata: { max_requests: '1000' } });
    const both = async () => {
      await fetch(`${app.baseUrl}/api/me/identity`, { headers: bearer(sender.jwt) });
      await fetch(`${app.baseUrl}/api/login/timestamp`);
    };
    const health = async () =>
      (await (await fetch(`${app.baseUrl}/health`)).json()) as { status: string; checks: any };
    await admin.config('SET', 'maxmemory', '1');
    try {
      await both(); // both bucket stores refused: out of memory
    } finally {
      await admin.config('SET', 'maxmemory', '0');
    }
    const deadline = Date.now() + 16_000;
    while ((await health()).status !== 'healthy' && Date.now() < deadline) {
      await both();
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect((await health()).status).toBe('healthy');

    // Scripts refused (an ACL change): PING still answers, the public bucket's take fails, NOPERM.
    await admin.call('ACL', 'SETUSER', 'default', '-evalsha', '-eval');
    try {
      await fetch(`${app.baseUrl}/api/login/timestamp`);
      await new Promise((resolve) => setTimeout(resolve, 1100)); // past health's 1 s reuse
      const degraded = await health();
      expect(degraded.checks.store.rateLimits).toBe('in-process fallback');
      expect(degraded.checks.store.problem).toMatch(
        /rate limits on in-process buckets .*last failure: NOPERM/,
      );
      expect(JSON.stringify(degraded)).not.toContain('OOM');
    } finally {
      await admin.call('ACL', 'SETUSER', 'default', '+@all');
    }
  }, 40_000);
});
