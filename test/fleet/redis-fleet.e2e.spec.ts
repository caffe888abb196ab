/**
 * Two app instances on one real redis-server (STORE=redis), over real HTTP, addressed directly (no
 * balancer in front): what one instance does, the other honours at once. Both share the DATA_DIR
 * (server keys, the development ledger) and PUBLIC_BASE_URL, as instances behind one edge do.
 * Then the failure behaviour: Redis killed → verify fails closed, JWT routes 503, rate limits fall back
 * to in-process buckets, health degraded with the reason; Redis back → everything recovers, no restart.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { performance } from 'node:perf_hooks';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  bearer,
  fetchChallenge,
  login,
  mintAndLogin,
  mintPassport,
  newKey,
  signLogin,
} from '../support/passports.js';
import { expectRecordingHeld } from '../support/error-envelope.expect.js';
import { startRedisServer, type RedisServer } from '../support/redis-server.js';
import { freePort, startTestApp, type TestApp } from '../support/test-app.js';
import { holaLine } from '../verify/hola-lines.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { probe } from '../mcp/support/mcp-probe.js';

let redis: RedisServer;
let dataDir: string;
const SCRAPE_TOKEN = 'fleet-scrape-token-0123456789abcdefghijklmnopqrstuv';
let a: TestApp;
let b: TestApp;

async function startInstance(
  port: number,
  publicPort: number,
  extra: Record<string, string> = {},
): Promise<TestApp> {
  return startTestApp({
    STORE: 'redis',
    REDIS_URL: redis.url,
    REDIS_COMMAND_TIMEOUT_MS: '300',
    // A restart of this Redis loses its data: the instances refuse replay records this long after.
    REDIS_LOSS_HOLD_MS: '5000',
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

  it('A hammered with requests of one session (answered from its session read cache) refuses every request sent after a logout on B answered', async () => {
    const { jwt } = await mintAndLogin(a);
    const results: Array<{ sentAt: number; status: number }> = [];
    let stop = false;
    const worker = async (): Promise<void> => {
      while (!stop) {
        const sentAt = performance.now();
        results.push({ sentAt, status: (await me(a, jwt)).status });
      }
    };
    const workers = Array.from({ length: 8 }, worker);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await postJson(b.baseUrl, '/api/logout', {}, bearer(jwt))).status).toBe(200);
    const loggedOutAt = performance.now();
    await new Promise((resolve) => setTimeout(resolve, 300));
    stop = true;
    await Promise.all(workers);
    const before = results.filter((r) => r.sentAt < loggedOutAt);
    const after = results.filter((r) => r.sentAt > loggedOutAt);
    expect(before.filter((r) => r.status === 200).length).toBeGreaterThan(10);
    expect(after.length).toBeGreaterThan(10);
    expect(after.filter((r) => r.status !== 401)).toEqual([]);
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
      Array.from({ length: 50 }, (_, i) =>
        postJson((i % 2 ? b : a).baseUrl, '/api/identity/verify', { hola: line }),
      ),
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

describe('sessioned MCP across the fleet', () => {
  it('a session initialized on A lists, calls and reads on B, and a DELETE on B ends it everywhere', async () => {
    const hits = { a: 0, b: 0 };
    // After the initialize (on A), every request goes to B.
    let initialized = false;
    const toB = (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
      const target = initialized ? b : a;
      hits[target === a ? 'a' : 'b'] += 1;
      const url = new URL(String(input instanceof Request ? input.url : input));
      return fetch(`${target.baseUrl}${url.pathname}${url.search}`, init);
    };
    const client = new Client({ name: 'fleet', version: '1' });
    const transport = new StreamableHTTPClientTransport(new URL(`${a.baseUrl}/mcp`), { fetch: toB });
    await client.connect(transport);
    initialized = true;
    const sessionId = transport.sessionId as string;
    expect(sessionId).toMatch(/^[0-9a-f-]{36}$/);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['get_resource', 'list_resources']);
    const called = (await client.callTool({ name: 'get_resource', arguments: { uri: 'doc:discovery' } })) as {
      isError?: boolean;
    };
    expect(called.isError ?? false).toBe(false);
    expect((await client.readResource({ uri: 'doc:discovery' })).contents[0]).toMatchObject({
      uri: 'doc:discovery',
    });
    expect((await client.listResources()).resources.length).toBeGreaterThan(0);
    await transport.terminateSession(); // DELETE, on B
    await client.close();
    expect(hits.a).toBeGreaterThanOrEqual(1);
    expect(hits.b).toBeGreaterThanOrEqual(5);
    for (const t of [a, b]) {
      const gone = await probe(t.baseUrl, {
        headers: { 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' },
        body: { jsonrpc: '2.0', id: 2, method: 'tools/list' },
      });
      expect(gone.status).toBe(404);
      expect(gone.body).toEqual({
        jsonrpc: '2.0',
        error: { code: -32001, message: 'Session not found' },
        id: null,
      });
    }
  });

  it('an unknown session id is 404 on every instance (hostile ids included: a Redis hash tag, a long one)', async () => {
    const ids = ['00000000-0000-4000-8000-000000000000', '{mcp}:all', 'x'.repeat(4000), '../../s:1'];
    for (const t of [a, b]) {
      for (const id of ids) {
        const res = await probe(t.baseUrl, {
          headers: { 'mcp-session-id': id, 'mcp-protocol-version': '2025-11-25' },
          body: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
        });
        expect([id.slice(0, 20), res.status]).toEqual([id.slice(0, 20), 404]);
      }
    }
  });
});

describe('MCP session cap and idle TTL hold fleet-wide', () => {
  let e: TestApp;
  let f: TestApp;
  afterAll(async () => {
    await e?.close();
    await f?.close();
  });
  const initialize = (t: TestApp) =>
    probe(t.baseUrl, {
      body: {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-11-25',
          capabilities: {},
          clientInfo: { name: 'cap', version: '1' },
        },
      },
    });
  const list = (t: TestApp, id: string) =>
    probe(t.baseUrl, {
      headers: { 'mcp-session-id': id, 'mcp-protocol-version': '2025-11-25' },
      body: { jsonrpc: '2.0', id: 2, method: 'tools/list' },
    });

  // Found by a probe: every GET on a fleet session opened a stream of its own (150 on one instance),
  // and those streams outlived a DELETE served by the other instance.
  it('a fleet session offers no SSE stream: GET answers 405 on either instance, an unknown session 404', async () => {
    await redis.clearState();
    const port = await freePort();
    e = await startInstance(port, port);
    f = await startInstance(await freePort(), port);
    const started = await initialize(e);
    const id = started.headers.get('mcp-session-id') as string;
    for (const t of [e, f]) {
      const stream = await probe(t.baseUrl, {
        method: 'GET',
        headers: { 'mcp-session-id': id, 'mcp-protocol-version': '2025-11-25', accept: 'text/event-stream' },
      });
      expect([
        stream.status,
        stream.headers.get('allow'),
        (stream.body as { error?: { code?: number } }).error?.code,
      ]).toEqual([405, 'POST, DELETE', -32000]);
    }
    const unknown = await probe(f.baseUrl, {
      method: 'GET',
      headers: {
        'mcp-session-id': '00000000-0000-4000-8000-000000000000',
        'mcp-protocol-version': '2025-11-25',
        accept: 'text/event-stream',
      },
    });
    expect(unknown.status).toBe(404);
    expect((await list(f, id)).status).toBe(200);
    await e.close();
    await f.close();
  });

  const openSessionsGauge = async (t: TestApp) => {
    const res = await fetch(`${t.baseUrl}/metrics`, { headers: { authorization: `Bearer ${SCRAPE_TOKEN}` } });
    return Number(/^passport_mcp_sessions_open (\d+)$/m.exec(await res.text())?.[1]);
  };

  it("two sessions in all (one on each instance), the third refused anywhere; an idle session ends everywhere; each instance counts the fleet's", async () => {
    await redis.clearState();
    const caps = {
      MCP_MAX_SESSIONS: '2',
      MCP_MAX_SESSIONS_PER_ADDRESS: '2',
      MCP_SESSION_TTL_MS: '1500',
      METRICS_TOKEN: SCRAPE_TOKEN,
    };
    const portE = await freePort();
    e = await startInstance(portE, portE, caps);
    f = await startInstance(await freePort(), portE, caps);
    const first = await initialize(e);
    const second = await initialize(f);
    expect([first.status, second.status]).toEqual([200, 200]);
    for (const t of [e, f]) expect((await initialize(t)).status).toBe(429);
    const firstId = first.headers.get('mcp-session-id') as string;
    const secondId = second.headers.get('mcp-session-id') as string;
    expect([await openSessionsGauge(e), await openSessionsGauge(f)]).toEqual([2, 2]);
    expect((await list(f, firstId)).status).toBe(200);
    // Kept alive by use on the other instance; the second one stays idle past the TTL.
    await new Promise((r) => setTimeout(r, 900));
    expect((await list(f, firstId)).status).toBe(200);
    await new Promise((r) => setTimeout(r, 900));
    expect((await list(e, firstId)).status).toBe(200);
    for (const t of [e, f]) expect((await list(t, secondId)).status).toBe(404);
    expect([await openSessionsGauge(e), await openSessionsGauge(f)]).toEqual([1, 1]);
    // Its slot is free again, fleet-wide.
    expect((await initialize(e)).status).toBe(200);
  });

  // Found by a probe: a fixed Retry-After of 60 s at the address cap, where the wait was the session TTL
  // (since a fleet chaos probe, the reclaim time: the address's own idle session gives its slot);
  // and initializes answered 503 while Redis stalled still made sessions once it answered, which the
  // client never learned of and which held its address at the cap.
  it('the address cap says when its oldest session may be reclaimed; initializes refused in a stall leave no session', async () => {
    await e?.close();
    await f?.close();
    await redis.clearState();
    const caps = {
      MCP_MAX_SESSIONS: '10',
      MCP_MAX_SESSIONS_PER_ADDRESS: '2',
      MCP_SESSION_TTL_MS: '120000',
      MCP_SESSION_RECLAIM_IDLE_MS: '90000',
    };
    const port = await freePort();
    e = await startInstance(port, port, caps);
    redis.pause();
    try {
      for (let i = 0; i < 2; i++) expect((await initialize(e)).status).toBe(503);
    } finally {
      redis.resume();
    }
    // The queued admits ran once Redis answered, and the removes queued behind them undid them.
    await new Promise((r) => setTimeout(r, 500));
    const admitted = [await initialize(e), await initialize(e)];
    expect(admitted.map((r) => r.status)).toEqual([200, 200]);
    const capped = await initialize(e);
    expect(capped.status).toBe(429);
    const retryAfter = Number(capped.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(80);
    expect(retryAfter).toBeLessThanOrEqual(90);
  });
});

describe('the per-address public bucket is shared', () => {
  let c: TestApp;
  let d: TestApp;
  afterAll(async () => {
    await c?.close();
    await d?.close();
    await redis.clearState(); // the drained 127.0.0.1 bucket is the other instances' bucket too
  });

  it('capacity 4 per address across two instances: the 5th request anywhere is 429', async () => {
    const tiny = { RATE_LIMIT_CAPACITY: '4', RATE_LIMIT_REFILL_PER_MINUTE: '1' };
    const portC = await freePort();
    c = await startInstance(portC, portC, tiny);
    d = await startInstance(await freePort(), portC, tiny);
    // Other tests' requests from 127.0.0.1 used the same bucket with a larger capacity: start empty-handed.
    await redis.clearState();
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
    const used = holaLine(a, { sender: tokenId, signer: key.signer });
    expect((await postJson(a.baseUrl, '/api/identity/verify', { hola: used })).body.verified).toBe(true);
    await redis.kill();

    const line = holaLine(a, { sender: tokenId, signer: key.signer });
    const verify = await postJson(b.baseUrl, '/api/identity/verify', { hola: line });
    expect(verify.status).toBe(503);
    expect(verify.body.error.code).toBe('REPLAY_STORE_UNAVAILABLE');
    expect(verify.body.verified).toBeUndefined();
    // Down: nobody knows when it is back, so no Retry-After is promised.
    expect(verify.headers.get('retry-after')).toBeNull();

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
    const mcpDown = await probe(b.baseUrl, {
      headers: {
        'mcp-session-id': '00000000-0000-4000-8000-000000000000',
        'mcp-protocol-version': '2025-11-25',
      },
      body: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
    });
    expect(mcpDown.status).toBe(503);
    // Public routes keep working on in-process buckets.
    expect((await fetch(`${b.baseUrl}/api/login/timestamp`)).status).toBe(200);

    await redis.restart();
    // Each instance reconnects on its own backoff: until it has, its verify is the unreachable store's 503,
    // which names no time to come back (CI once checked B's before it had reconnected).
    for (const t of [a, b]) await waitFor(async () => (await me(t, jwt)).status !== 503, 10_000);
    // Nothing persists in this Redis: the session is gone, so the token is refused as unknown (not 503).
    expect((await me(a, jwt)).status).toBe(401);
    // Found by a probe: the used line was forgotten with the data, and verified a second time. The loss
    // is noticed: no replay record is made until lines used before it are stale (REDIS_LOSS_HOLD_MS).
    for (const t of [a, b]) {
      // The hold's end is known (REDIS_LOSS_HOLD_MS 5 s here): clients are told when to come back.
      expectRecordingHeld(await postJson(t.baseUrl, '/api/identity/verify', { hola: used }), 5);
    }
    const heldLogin = await login(a.baseUrl, { identifier: tokenId, key });
    if (heldLogin.status === 503) {
      // (A hold this short may end before this request: then the login succeeds, checked below.)
      expect(heldLogin.body.error.code).toBe('SERVICE_UNAVAILABLE');
      expect(heldLogin.body.error.details.reason).toBe('replay_store_unavailable');
      expect(Number(heldLogin.headers.get('retry-after'))).toBe(
        heldLogin.body.error.details.retryAfterSeconds,
      );
    }
    // (Health answers are reused for up to 1 s: the one from the outage may come first.)
    for (const t of [a, b])
      await waitFor(async () => {
        const health = (await (await fetch(`${t.baseUrl}/health`)).json()) as any;
        return health.status === 'degraded' && JSON.stringify(health).includes('redis lost replay records');
      }, 2500);
    let again = await login(b.baseUrl, { identifier: tokenId, key });
    await waitFor(async () => {
      if (again.status === 503) again = await login(b.baseUrl, { identifier: tokenId, key });
      return again.status !== 503;
    }, 10_000);
    expect(again.status).toBe(200);
    expect((await me(a, again.body.jwt_token)).status).toBe(200);
    const fresh = holaLine(a, { sender: tokenId, signer: key.signer });
    expect((await postJson(b.baseUrl, '/api/identity/verify', { hola: fresh })).body.verified).toBe(true);
    await waitFor(
      async () => ((await (await fetch(`${a.baseUrl}/health`)).json()) as any).status === 'healthy',
      20_000,
    );
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
