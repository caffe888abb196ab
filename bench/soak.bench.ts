/**
 * Soak: the built app on one store (SOAK_STORE, default sqlite, as `npm start` runs it) under mixed
 * traffic on loopback for SOAK_SECONDS (default 600), its memory sampled every SOAK_SAMPLE_SECONDS
 * (default 5): RSS (/proc) and V8 heap used (the app's own Prometheus figure).
 *
 * Traffic, each kind paced to a fixed rate by a few workers (a bounded load, not a saturation test):
 * fresh valid HOLA lines on POST /api/identity/verify (200/s), GET / (100/s), GET /api/me/identity
 * with a JWT (100/s), a full login + GET /api/me/identity + logout (5/s, 20 passports in turn), and an
 * MCP session opened (initialize) and ended (DELETE) (2/s).
 *
 * Pass/fail (exit code 1 on failure): after the warm-up (the first fifth of the run, at most 60 s), the
 * samples are split into thirds; the RSS growth is the median of the last third minus the median of the
 * first, and must stay ≤ SOAK_MAX_RSS_GROWTH_MB (default 48 MiB); the heap growth is the lowest heap
 * of the last third minus the lowest of the first (the floor after collections, not the sawtooth), and
 * must stay ≤ SOAK_MAX_HEAP_GROWTH_MB (default 16 MiB). Every traffic kind must also have succeeded.
 * The result goes into bench/results/latest.json (section `soak`).
 *
 *   npm run bench -- soak                 (SOAK_SECONDS=180 npm run bench -- soak for 3 minutes)
 */
import {
  loginBenchPassport,
  mintBenchPassports,
  postBenchLogin,
  rssMb,
  startBuiltApp,
  type BenchPassport,
  type BuiltApp,
} from './support/built-app.js';
import { recordSuite } from './support/results.js';
import { verifyLoad } from './support/verify-load.js';
import { startRedisServer, type RedisServer } from '../test/support/redis-server.js';
import { median } from './support/median.js';

const durationSeconds = Number(process.env.SOAK_SECONDS ?? 600);
const sampleSeconds = Number(process.env.SOAK_SAMPLE_SECONDS ?? 5);
const store = process.env.SOAK_STORE ?? 'sqlite';
const maxRssGrowthMb = Number(process.env.SOAK_MAX_RSS_GROWTH_MB ?? 48);
const maxHeapGrowthMb = Number(process.env.SOAK_MAX_HEAP_GROWTH_MB ?? 16);
const warmUpSeconds = Math.min(60, durationSeconds / 5);
const LOGIN_PASSPORTS = 20;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface KindStats {
  ok: number;
  failed: number;
  statuses: Record<string, number>;
}

/**
 * Runs `op` at `perSecond` in total with `workers` concurrent loops until `endAt`; a worker that falls
 * behind does not catch up in a burst (the load stays bounded).
 */
async function paced(
  stats: KindStats,
  perSecond: number,
  workers: number,
  endAt: number,
  op: () => Promise<number>,
): Promise<void> {
  const intervalMs = (1000 * workers) / perSecond;
  await Promise.all(
    Array.from({ length: workers }, async (_, w) => {
      let next = Date.now() + (w * intervalMs) / workers;
      while (Date.now() < endAt) {
        const wait = next - Date.now();
        if (wait > 0) await sleep(wait);
        next = Math.max(next + intervalMs, Date.now());
        let status: number;
        try {
          status = await op();
        } catch {
          status = 0; // connection error
        }
        stats.statuses[status] = (stats.statuses[status] ?? 0) + 1;
        if (status >= 200 && status < 300) stats.ok++;
        else stats.failed++;
      }
    }),
  );
}

async function heapUsedMb(app: BuiltApp, adminJwt: string): Promise<number> {
  const text = await (
    await fetch(`${app.base}/api/metrics`, {
      headers: { authorization: `Bearer ${adminJwt}`, accept: 'text/plain' },
    })
  ).text();
  const bytes = Number(/^nodejs_heap_size_used_bytes\s+([\d.e+]+)/m.exec(text)?.[1] ?? NaN);
  return Math.round((bytes / 1024 / 1024) * 10) / 10;
}

async function main(): Promise<void> {
  let redis: RedisServer | undefined;
  if (store === 'redis') redis = await startRedisServer();
  const app = await startBuiltApp(
    store === 'redis' ? { STORE: 'redis', REDIS_URL: redis!.url } : { STORE: store },
  );
  try {
    const load = await verifyLoad(app);
    const loginPassports = await mintBenchPassports(app, LOGIN_PASSPORTS);
    const [user] = await mintBenchPassports(app, 1);
    const [admin] = await mintBenchPassports(app, 1, {
      permissioned_routes: JSON.stringify({ entities: { methods: { '/api/metrics': '60' } } }),
    });
    const userJwt = await loginBenchPassport(app.base, user);
    const adminJwt = await loginBenchPassport(app.base, admin);

    const kinds = ['verify', 'root', 'me', 'loginMeLogout', 'mcpSession'] as const;
    const stats = Object.fromEntries(kinds.map((k) => [k, { ok: 0, failed: 0, statuses: {} }])) as Record<
      (typeof kinds)[number],
      KindStats
    >;
    const startedAt = Date.now();
    const endAt = startedAt + durationSeconds * 1000;

    let loginTurn = 0;
    const lastLoginSecond = new Map<BenchPassport, number>();
    const loginMeLogout = async (): Promise<number> => {
      const p = loginPassports[loginTurn++ % loginPassports.length];
      const challenge = (await (await fetch(`${app.base}/api/login/timestamp`)).json()) as {
        timestamp_iso: string;
      };
      // A challenge is single use: never sign the same second twice for one passport.
      const second = Date.parse(challenge.timestamp_iso);
      if (lastLoginSecond.get(p) === second) return 299; // skipped, not a failure (counted apart)
      lastLoginSecond.set(p, second);
      const login = await postBenchLogin(app.base, p, challenge.timestamp_iso);
      const body = (await login.json()) as { jwt_token?: string };
      if (!body.jwt_token) return login.status === 200 ? 500 : login.status;
      const auth = { authorization: `Bearer ${body.jwt_token}` };
      const me = await fetch(`${app.base}/api/me/identity`, { headers: auth });
      await me.arrayBuffer();
      if (me.status !== 200) return me.status;
      const logout = await fetch(`${app.base}/api/logout`, { method: 'POST', headers: auth });
      await logout.arrayBuffer();
      return logout.status;
    };
    const mcpSession = async (): Promise<number> => {
      const init = await fetch(`${app.base}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: {
            protocolVersion: '2025-11-25',
            capabilities: {},
            clientInfo: { name: 'soak', version: '0' },
          },
        }),
      });
      await init.text();
      const id = init.headers.get('mcp-session-id');
      if (init.status !== 200 || !id) return init.status === 200 ? 500 : init.status;
      const end = await fetch(`${app.base}/mcp`, {
        method: 'DELETE',
        headers: { 'mcp-session-id': id, 'mcp-protocol-version': '2025-11-25' },
      });
      await end.arrayBuffer();
      return end.status;
    };
    const get = async (path: string, headers: Record<string, string> = {}) => {
      const res = await fetch(`${app.base}${path}`, { headers });
      await res.arrayBuffer();
      return res.status;
    };

    // Lines are signed in batches a little ahead of use (each is sent once, while fresh).
    let lines: string[] = [];
    const verify = async () => {
      if (lines.length === 0) lines = load.makeLines(200);
      const res = await fetch(`${app.base}/api/identity/verify`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: lines.pop()!,
      });
      const body = (await res.json()) as { verified?: boolean };
      return res.status === 200 && body.verified !== true ? 422 : res.status;
    };

    const samples: { t: number; rssMb: number; heapUsedMb: number }[] = [];
    const sampler = (async () => {
      while (Date.now() < endAt) {
        samples.push({
          t: Math.round((Date.now() - startedAt) / 1000),
          rssMb: rssMb(app.pid),
          heapUsedMb: await heapUsedMb(app, adminJwt),
        });
        const last = samples.at(-1)!;
        console.log(`t=${last.t}s rss=${last.rssMb} MiB heapUsed=${last.heapUsedMb} MiB`);
        await sleep(sampleSeconds * 1000);
      }
    })();
    await Promise.all([
      paced(stats.verify, 200, 4, endAt, verify),
      paced(stats.root, 100, 2, endAt, () => get('/')),
      paced(stats.me, 100, 2, endAt, () => get('/api/me/identity', { authorization: `Bearer ${userJwt}` })),
      paced(stats.loginMeLogout, 5, 1, endAt, loginMeLogout),
      paced(stats.mcpSession, 2, 1, endAt, mcpSession),
      sampler,
    ]);
    const elapsedSeconds = (Date.now() - startedAt) / 1000;

    const measured = samples.filter((s) => s.t >= warmUpSeconds);
    const third = Math.max(1, Math.floor(measured.length / 3));
    const first = measured.slice(0, third);
    const last = measured.slice(-third);
    const rssGrowthMb =
      Math.round((median(last.map((s) => s.rssMb)) - median(first.map((s) => s.rssMb))) * 10) / 10;
    const heapGrowthMb =
      Math.round(
        (Math.min(...last.map((s) => s.heapUsedMb)) - Math.min(...first.map((s) => s.heapUsedMb))) * 10,
      ) / 10;
    // Skipped logins (a second already used by that passport) are neither a success nor a failure.
    const skipped = stats.loginMeLogout.statuses['299'] ?? 0;
    stats.loginMeLogout.failed -= skipped;
    const idle = kinds.filter((k) => stats[k].ok === 0);
    const problems = [
      ...(rssGrowthMb > maxRssGrowthMb ? [`RSS grew ${rssGrowthMb} MiB (bound ${maxRssGrowthMb})`] : []),
      ...(heapGrowthMb > maxHeapGrowthMb
        ? [`heap floor grew ${heapGrowthMb} MiB (bound ${maxHeapGrowthMb})`]
        : []),
      ...(measured.length < 3 ? ['too few samples after the warm-up'] : []),
      ...idle.map((k) => `no successful ${k} request`),
    ];
    const passed = problems.length === 0;

    console.log(
      `\nSoak, STORE=${store}, ${Math.round(elapsedSeconds)} s (warm-up ${warmUpSeconds} s), ${samples.length} samples`,
    );
    console.log('| traffic | ok | failed | per second | statuses |');
    console.log('|---|---|---|---|---|');
    for (const k of kinds)
      console.log(
        `| ${k} | ${stats[k].ok} | ${stats[k].failed} | ${(stats[k].ok / elapsedSeconds).toFixed(1)} | ${JSON.stringify(stats[k].statuses)} |`,
      );
    console.log(
      `RSS ${samples[0]?.rssMb} MiB at start, ${samples.at(-1)?.rssMb} MiB at the end; growth after warm-up ${rssGrowthMb} MiB (bound ${maxRssGrowthMb}); heap floor growth ${heapGrowthMb} MiB (bound ${maxHeapGrowthMb})`,
    );
    console.log(passed ? 'PASS' : `FAIL: ${problems.join('; ')}`);

    recordSuite('soak', {
      store,
      seconds: Math.round(elapsedSeconds),
      warmUpSeconds,
      sampleSeconds,
      bounds: { maxRssGrowthMb, maxHeapGrowthMb },
      rssGrowthMb,
      heapFloorGrowthMb: heapGrowthMb,
      rssStartMb: samples[0]?.rssMb,
      rssEndMb: samples.at(-1)?.rssMb,
      rssMaxMb: Math.max(...samples.map((s) => s.rssMb)),
      passed,
      problems,
      traffic: Object.fromEntries(
        kinds.map((k) => [
          k,
          { ...stats[k], perSecond: Math.round((stats[k].ok / elapsedSeconds) * 10) / 10 },
        ]),
      ),
      samples,
    });
    if (!passed) process.exitCode = 1;
  } finally {
    await app.stop();
    await redis?.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
