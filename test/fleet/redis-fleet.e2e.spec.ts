/**
 * Two app instances on one real redis-server (STORE=redis), over real HTTP, addressed directly (no
 * balancer in front): what one instance does, the other honours at once. Both share the DATA_DIR
 * (server keys, the development ledger) and PUBLIC_BASE_URL, as instances behind one edge do.
 * Then the failure behaviour: Redis killed → verify fails closed, JWT routes 503, rate limits fall back
 * to in-process buckets, health degraded with the reason; Redis back → everything recovers, no restart.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { bearer, fetchChallenge, login, mintAndLogin, mintPassport, newKey, signLogin } from '../support/passports.js';
import { startRedisServer, type RedisServer } from '../support/redis-server.js';
import { freePort, startTestApp, type TestApp } from '../support/test-app.js';
import { holaLine } from '../verify/hola-lines.js';

let redis: RedisServer;
let dataDir: string;
let a: TestApp;
let b: TestApp;

async function startInstance(port: number, publicPort: number, extra: Record<string, string> = {}): Promise<TestApp> {
  return startTestApp({
    STORE: 'redis',
    REDIS_URL: redis.url,
    REDIS_COMMAND_TIMEOUT_MS: '300',
    DATA_DIR: dataDir,
    PORT: String(port),
    PUBLIC_BASE_URL: `http://127.0.0.1:${publicPort}`,
    ...extra,
  });
}

async function postJson(base: string, route: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${base}${route}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as any };
}

const me = async (t: TestApp, jwt: string) => {
  const res = await fetch(`${t.baseUrl}/api/me/identity`, { headers: bearer(jwt) });
  return { status: res.status, body: (await res.json()) as any };
};

beforeAll(async () => {
  redis = await startRedisServer();
  dataDir = await mkdtemp(path.join(tmpdir(), 'passport-fleet-'));
  const portA = await freePort();
  a = await startInstance(portA, portA);
  b = await startInstance(await freePort(), portA);
});
afterAll(async () => {
  await a?.close();
  await b?.close();
  await redis?.stop();
  await rm(dataDir, { recursive: true, force: true });
});

describe('two instances on one Redis', () => {
  it('a login on A is honoured on B; a logout on B is refused on A at once', async () => {
    const { jwt } = await mintAndLogin(a);
    expect((await me(b, jwt)).status).toBe(200);
    expect((await me(a, jwt)).status).toBe(200);
    expect((await postJson(b.baseUrl, '/api/logout', {}, bearer(jwt))).status).toBe(200);
    const refused = await me(a, jwt);
    expect(refused.status).toBe(401);
    expect(refused.body.error.code).toBe('INVALIDATED_TOKEN');
  });

  it('a login challenge used on A is refused on B', async () => {
    const key = newKey();
    const { tokenId } = await mintPassport(a, { owner: key });
    const challenge = await fetchChallenge(a.baseUrl);
    expect((await login(a.baseUrl, { identifier: tokenId, key, challenge })).status).toBe(200);
    const replay = await postJson(b.baseUrl, '/api/login', {
      passportid: tokenId,
      timestamp_iso: challenge.timestamp_iso,
      passportid_base64url_signature: signLogin(key, tokenId, challenge.timestamp_iso),
    });
    expect(replay.status).toBe(401);
  });

  it('50 concurrent verifications of one line spread over both: exactly one is verified', async () => {
    const key = newKey();
    const { tokenId } = await mintPassport(a, { owner: key });
    const line = holaLine(a, { sender: tokenId, signer: key.signer });
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) => postJson((i % 2 ? b : a).baseUrl, '/api/identity/verify', { hola: line })),
    );
    expect(results.map((r) => r.status)).toEqual(Array(50).fill(200));
    expect(results.filter((r) => r.body.verified === true)).toHaveLength(1);
    expect(results.filter((r) => r.body.failureReasons?.[0] === 'nonce_replay')).toHaveLength(49);
  });

  it("a passport's quota is one bucket for the fleet", async () => {
    const { jwt } = await mintAndLogin(a, { metadata: { max_requests: '4', maxrq_window: '60' } });
    const statuses: number[] = [];
    for (const t of [a, b, a, b, a, b]) statuses.push((await me(t, jwt)).status);
    expect(statuses).toEqual([200, 200, 200, 200, 429, 429]);
  });
});

describe('the per-address public bucket is shared', () => {
  let c: TestApp;
  let d: TestApp;
  afterAll(async () => {
    await c?.close();
    await d?.close();
    await redis.flush(); // the drained 127.0.0.1 bucket is the other instances' bucket too
  });

  it('capacity 4 per address across two instances: the 5th request anywhere is 429', async () => {
    const tiny = { RATE_LIMIT_CAPACITY: '4', RATE_LIMIT_REFILL_PER_MINUTE: '1' };
    const portC = await freePort();
    c = await startInstance(portC, portC, tiny);
    d = await startInstance(await freePort(), portC, tiny);
    // Other tests' requests from 127.0.0.1 used the same bucket with a larger capacity: start empty-handed.
    await redis.flush();
    const statuses: number[] = [];
    for (const t of [c, d, c, d, c, d]) statuses.push((await fetch(`${t.baseUrl}/health`)).status);
    expect(statuses).toEqual([200, 200, 200, 200, 429, 429]);
  });
});

describe('Redis down, then back', () => {
  it('fails closed and degrades while Redis is down, and recovers without a restart', async () => {
    const key = newKey();
    const { tokenId } = await mintPassport(a, { owner: key });
    const { jwt } = await mintAndLogin(a);
    await redis.kill();

    const line = holaLine(a, { sender: tokenId, signer: key.signer });
    const verify = await postJson(b.baseUrl, '/api/identity/verify', { hola: line });
    expect(verify.status).toBe(503);
    expect(verify.body.error.code).toBe('REPLAY_STORE_UNAVAILABLE');
    expect(verify.body.verified).toBeUndefined();

    const refused = await me(a, jwt);
    expect(refused.status).toBe(503);
    expect(refused.body.error.code).toBe('SERVICE_UNAVAILABLE');

    const health = (await (await fetch(`${a.baseUrl}/health`)).json()) as any;
    expect(health.status).toBe('degraded');
    expect(JSON.stringify(health)).toContain('redis unavailable');
    expect(JSON.stringify(health)).toContain('in-process fallback');
    const loginDown = await login(a.baseUrl, { identifier: tokenId, key });
    expect(loginDown.status).toBe(503);
    expect(loginDown.body.error.code).toBe('SERVICE_UNAVAILABLE');
    // Public routes keep working on in-process buckets.
    expect((await fetch(`${b.baseUrl}/api/login/timestamp`)).status).toBe(200);

    await redis.restart();
    await waitFor(async () => (await me(a, jwt)).status !== 503, 10_000);
    // Nothing persists in this Redis: the session is gone, so the token is refused as unknown (not 503).
    expect((await me(a, jwt)).status).toBe(401);
    const again = await login(b.baseUrl, { identifier: tokenId, key });
    expect(again.status).toBe(200);
    expect((await me(a, again.body.jwt_token)).status).toBe(200);
    const fresh = holaLine(a, { sender: tokenId, signer: key.signer });
    expect((await postJson(b.baseUrl, '/api/identity/verify', { hola: fresh })).body.verified).toBe(true);
    await waitFor(async () => ((await (await fetch(`${a.baseUrl}/health`)).json()) as any).status === 'healthy', 20_000);
  }, 40_000);

  it('a Redis that stops answering behaves like a down one within the command timeout', async () => {
    const { jwt } = await mintAndLogin(a);
    expect((await me(b, jwt)).status).toBe(200);
    redis.pause();
    try {
      const started = Date.now();
      const refused = await me(b, jwt);
      expect(refused.status).toBe(503);
      expect(Date.now() - started).toBeLessThan(3000);
    } finally {
      redis.resume();
    }
    await waitFor(async () => (await me(b, jwt)).status === 200, 10_000);
  });
});

async function waitFor(predicate: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await predicate())) {
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await new Promise((r) => setTimeout(r, 100));
  }
}
