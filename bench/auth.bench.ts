/**
 * The JWT tier's figures, measured in one run against the built app on each store (memory, sqlite,
 * redis on a redis-server the bench starts; sessions and used challenges are written as in production):
 * - login/s: POST /api/login with pre-signed, never-repeated challenges (150 passports × 300 seconds of
 *   the challenge window) sent by wrk, each a full login (chain, owner signature, family signature, challenge
 *   record, session, EdDSA JWT), in LOGIN_ROUNDS runs (default 3 of LOGIN_SECONDS = 2 s) with a 1 s
 *   sample of the raw verify rate before each and after the last (the ratio uses their median);
 * - GET /api/holanonce16ts (JWT) beside GET /api/login/timestamp (public, a body of similar size):
 *   the JWT tier's overhead (target ≤ 8 %; on Redis ≤ 15 %), the median of the rounds' ratios of
 *   alternating 1 s slices (SECONDS rounds, default 9);
 * - GET /api/me/identity (JWT, a chain read behind the cache);
 * - chain reads per 1000 authorised requests, from /api/metrics (target ≤ 100);
 * - the raw node:crypto Ed25519 verify rate of this machine (the samples around the login rounds).
 *
 *   npm run bench -- auth          (or, after a build: npx tsx bench/auth.bench.ts [seconds] [connections])
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { encodeBase64Url } from '@passport/core';
import {
  loginBenchPassport as login,
  mintBenchPassports,
  rawVerifyRate,
  ROOT,
  startBuiltApp,
  type BenchPassport,
} from './support/built-app.js';
import { startRedisServer } from '../test/support/redis-server.js';
import { interleaved, sliceClient, type SliceFigures } from './support/interleaved.js';
import { median, medianRatio } from './support/median.js';
import { recordSuite, type RateFigure } from './support/results.js';
import { parseWrk } from './support/wrk-output.js';

/** Rounds of alternating 1 s slices for the JWT tier (odd: the median of the rounds' ratios is one round's). */
const seconds = Number(process.argv[2] ?? 9);
const connections = Number(process.argv[3] ?? 50);
// Each round's share of the bodies (PASSPORTS × CHALLENGE_SECONDS ÷ LOGIN_ROUNDS) must outnumber the
// logins a round can make (about 4000/s on SQLite, 7300/s on memory with a raw verify rate of 15 600/s):
// wrk divides by the whole duration even when STOP_AT_END stops it early, so a round that used them all
// up reads as a cap (150 passports, 15 000 bodies a round, capped the memory store's rounds).
const PASSPORTS = 300;
const CHALLENGE_SECONDS = 300;
/** The login runs (each with its share of the bodies) and the raw verify samples between them. */
const LOGIN_ROUNDS = Number(process.env.LOGIN_ROUNDS ?? 3);
const LOGIN_SECONDS = Number(process.env.LOGIN_SECONDS ?? 2);
if (!Number.isInteger(LOGIN_ROUNDS) || LOGIN_ROUNDS < 1 || !(LOGIN_SECONDS >= 1))
  throw new Error('LOGIN_ROUNDS must be a positive integer and LOGIN_SECONDS at least 1');

type Figures = SliceFigures;

/** One login body per passport for each second of the accepted challenge window, each signed by its owner. */
function loginBodies(passports: readonly BenchPassport[]): string[] {
  const now = Math.floor(Date.now() / 1000);
  const bodies: string[] = [];
  for (let offset = 0; offset < CHALLENGE_SECONDS; offset++) {
    // From 280 s in the past to 19 s in the future: all inside the accepted challenge window.
    const timestamp_iso = new Date((now - 280 + offset) * 1000).toISOString();
    for (const p of passports) {
      const signature = encodeBase64Url(p.signer.sign(new TextEncoder().encode(p.tokenId + timestamp_iso)));
      bodies.push(
        JSON.stringify({ passportid: p.tokenId, timestamp_iso, passportid_base64url_signature: signature }),
      );
    }
  }
  return bodies;
}

async function metrics(base: string, jwt: string): Promise<{ chainReads: number; requests: number }> {
  const body = (await (
    await fetch(`${base}/api/metrics`, { headers: { authorization: `Bearer ${jwt}` } })
  ).json()) as {
    chain: { reads: number };
    requests: { total: number };
  };
  return { chainReads: body.chain.reads, requests: body.requests.total };
}

interface StoreFigures {
  readonly rawVerifyPerSecond: number;
  readonly login: RateFigure;
  readonly publicRoute: RateFigure;
  readonly jwtRoute: RateFigure;
  readonly meIdentity: RateFigure;
  readonly jwtTierOverhead: number;
  readonly chainReadsPer1000: number;
}

async function main(): Promise<void> {
  const redis = await startRedisServer();
  const stores: Record<string, StoreFigures> = {};
  try {
    for (const store of ['memory', 'sqlite', 'redis']) {
      stores[store] = await benchStore(
        store,
        store === 'redis' ? { STORE: 'redis', REDIS_URL: redis.url } : { STORE: store },
      );
    }
  } finally {
    await redis.stop();
  }
  recordSuite('auth', {
    rawVerifyPerSecond: Math.round(stores.sqlite.rawVerifyPerSecond),
    // Each store's jwtTierOverhead is the median of the rounds' ratios.
    ratios: 'median-of-rounds',
    loginRounds: LOGIN_ROUNDS,
    loginSeconds: LOGIN_SECONDS,
    client: sliceClient(),
    connections,
    seconds,
    stores,
  });
}

/** The server process's CPU time so far (user + system, every thread), from /proc. */
function serverCpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

const rate = (f: { rps: number; p50: number; p99: number }): RateFigure => ({
  perSecond: Math.round(f.rps),
  p50Ms: f.p50,
  p99Ms: f.p99,
});

async function benchStore(store: string, env: Record<string, string>): Promise<StoreFigures> {
  const app = await startBuiltApp(env);
  try {
    const passports = await mintBenchPassports(app, PASSPORTS);
    // The JWT runs use passports of their own: the login run consumes every challenge second of the others.
    const [user] = await mintBenchPassports(app, 1);
    const [admin] = await mintBenchPassports(app, 1, {
      permissioned_routes: JSON.stringify({ entities: { methods: { '/api/metrics': '60' } } }),
    });

    // Logins: every body is used once (a reused challenge would be refused). wrk (C) sends them: the
    // client shares the machine's two cores with the server, and autocannon (JavaScript) cost a login
    // about a third of the server's own CPU (~130 µs of client CPU per login against wrk's ~30).
    // LOGIN_ROUNDS runs of LOGIN_SECONDS each, with a 1 s sample of the raw verify rate before each and
    // after the last: the ratio's raw rate is their median, taken in the same minute as the logins (one
    // 2 s sample after the other routes had moved by ±10 % between runs minutes apart).
    const bodies = loginBodies(passports);
    const perRound = Math.floor(bodies.length / LOGIN_ROUNDS);
    const rawSamples: number[] = [];
    let loginSeconds = 0;
    let loginTotal = 0;
    let loginOk = 0;
    const loginP50s: number[] = [];
    let loginP99 = 0;
    const loginCpuBefore = serverCpuMs(app.pid);
    for (let round = 0; round < LOGIN_ROUNDS; round++) {
      rawSamples.push(rawVerifyRate(1000));
      // The oldest challenges first, so that each round's are still inside the accepted window when it runs.
      const bodiesFile = path.join(app.dataDir, `login-bodies-${round}.jsonl`);
      writeFileSync(bodiesFile, `${bodies.slice(round * perRound, (round + 1) * perRound).join('\n')}\n`);
      const run = parseWrk(
        execFileSync(
          'wrk',
          [
            '-t1',
            `-c${connections}`,
            `-d${LOGIN_SECONDS}s`,
            '--latency',
            '-s',
            path.join(ROOT, 'bench/support/verify-lines.lua'),
            app.base,
          ],
          {
            env: { ...process.env, LINES_FILE: bodiesFile, POST_PATH: '/api/login', STOP_AT_END: '1' },
            encoding: 'utf8',
          },
        ),
      );
      if (run.total >= perRound)
        console.warn(
          `a login round used all ${perRound} of its bodies: its rate is only a floor (raise PASSPORTS)`,
        );
      loginSeconds += run.seconds;
      loginTotal += run.total;
      // Only logins that got a token count (past the last body, at most one reused challenge per connection).
      loginOk += run.total - run.non2xx;
      loginP50s.push(run.p50);
      loginP99 = Math.max(loginP99, run.p99);
    }
    const loginCpuMs = serverCpuMs(app.pid) - loginCpuBefore;
    rawSamples.push(rawVerifyRate(1000));
    const loginRate = loginOk / loginSeconds;
    const loginRun = { total: loginTotal, p50: median(loginP50s), p99: loginP99 };

    const userJwt = await login(app.base, user);
    const adminJwt = await login(app.base, admin);
    const auth = { authorization: `Bearer ${userJwt}` };

    // The tier's overhead compares two routes, so they are measured in alternating 1 s slices: drift
    // in the machine's load then hits both alike (sequential runs differed by ±15 % from run to run).
    const [publicRoute, nonce] = await interleaved(
      [
        [`${app.base}/api/login/timestamp`, {}],
        [`${app.base}/api/holanonce16ts`, auth],
      ],
      { seconds, connections },
    );
    const before = await metrics(app.base, adminJwt);
    // One route in `seconds` 1 s slices after a 1 s warm-up (counted in the chain reads and the requests alike).
    const [identity] = await interleaved([[`${app.base}/api/me/identity`, auth]], { seconds, connections });
    const after = await metrics(app.base, adminJwt);
    // The login's raw rate: the samples around its rounds.
    const raw = median(rawSamples);

    const authorised = after.requests - before.requests;
    const readsPer1000 = (1000 * (after.chainReads - before.chainReads)) / Math.max(1, authorised);
    const row = (name: string, f: Figures) =>
      console.log(
        `| ${name} | ${Math.round(f.rps)} | ${f.p99} | ${Math.round(f.bytes)} | ${f.ok} of ${f.total} | ${(f.rps / raw).toFixed(2)} |`,
      );

    console.log(
      `\nNode ${process.version}; ${connections} connections; ${seconds} s per route; STORE=${store}\n`,
    );
    console.log('| route | req/s | p99 ms | bytes/response | 2xx | ratio to raw Ed25519 verify |');
    console.log('|---|---|---|---|---|---|');
    console.log(
      `| POST /api/login (full login; wrk) | ${Math.round(loginRate)} | ${loginRun.p99} | – | ${loginOk} of ${loginRun.total} | ${(loginRate / raw).toFixed(2)} |`,
    );
    console.log(
      `| (server CPU per login that got a token, thread pool included: ${((loginCpuMs * 1000) / Math.max(1, loginOk)).toFixed(0)} µs, the time of ${((loginCpuMs * 1000 * raw) / 1e6 / Math.max(1, loginOk)).toFixed(2)} raw verifies) | | | | | |`,
    );
    row('GET /api/login/timestamp (public)', publicRoute);
    row('GET /api/holanonce16ts (JWT)', nonce);
    row('GET /api/me/identity (JWT)', identity);
    console.log(`| raw node:crypto Ed25519 verify (one thread) | ${Math.round(raw)} | – | – | – | 1.00 |`);
    console.log(
      `\nJWT tier overhead (public ÷ JWT route − 1, the median of ${seconds} rounds' ratios of alternating 1 s slices): ${((medianRatio(publicRoute, nonce) - 1) * 100).toFixed(1)} % (target ≤ ${store === 'redis' ? 15 : 8} %; all slices together: ${((publicRoute.rps / nonce.rps - 1) * 100).toFixed(1)} %)`,
    );
    console.log(
      `Chain reads per 1000 authorised requests: ${readsPer1000.toFixed(1)} (${after.chainReads - before.chainReads} reads over ${authorised} requests; target ≤ 100)`,
    );
    return {
      rawVerifyPerSecond: Math.round(raw),
      login: { perSecond: Math.round(loginRate), p50Ms: loginRun.p50, p99Ms: loginRun.p99 },
      publicRoute: rate(publicRoute),
      jwtRoute: rate(nonce),
      meIdentity: rate(identity),
      jwtTierOverhead: Math.round((medianRatio(publicRoute, nonce) - 1) * 1000) / 1000,
      chainReadsPer1000: Math.round(readsPer1000 * 10) / 10,
    };
  } finally {
    await app.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
