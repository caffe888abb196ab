/**
 * Profiles the built app under wrk: starts apps/api/dist with `node --cpu-prof` (the benches'
 * startBuiltApp, on a free port), loads one route with wrk (50 connections) for SECONDS, stops the server (which writes the
 * profile) and prints its top self-time frames (scripts/cpu-profile-top.mjs; TOP=n rows) and the server's
 * CPU time per request (/proc, thread pool included), a figure other load on the machine moves less than
 * requests per second, and the main thread's share of it (the event loop's µs per request). PROFILE=0 measures without the profiler. Routes: health, root, public (GET
 * /api/login/timestamp), nonce (GET /api/holanonce16ts with a JWT), me (GET /api/me/identity), login
 * (POST /api/login with fresh pre-signed challenges), verify (POST /api/identity/verify with fresh valid
 * HOLA lines, bench/support/verify-load.ts). STORE=redis starts a redis-server (test/support) and also
 * prints its CPU time per request and, per command, calls and µs per call (INFO commandstats).
 *
 *   npx tsc -b tsconfig.build.json && SWC_NODE_PROJECT=tsconfig.json \
 *     node --import @swc-node/register/esm-register scripts/profile-app.ts <route> [STORE] [seconds]
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { encodeBase64Url } from '@passport/core';
import {
  loginBenchPassport,
  mintBenchPassports,
  rawVerifyRate,
  ROOT,
  startBuiltApp,
} from '../bench/support/built-app.js';
import { verifyLoad } from '../bench/support/verify-load.js';
import { startRedisServer } from '../test/support/redis-server.js';

const route = process.argv[2] ?? 'health';
const store = process.argv[3] ?? 'memory';
const seconds = Number(process.argv[4] ?? 8);
const profile = process.env.PROFILE !== '0';

async function main(): Promise<void> {
  const profDir = mkdtempSync(path.join(tmpdir(), 'passport-cpuprof-'));
  if (profile) process.env.BENCH_NODE_ARGS = `--cpu-prof --cpu-prof-dir=${profDir}`;
  const redis = store === 'redis' ? await startRedisServer() : undefined;
  const app = await startBuiltApp(redis ? { STORE: store, REDIS_URL: redis.url } : { STORE: store });
  const { base } = app;
  // The server's CPU time (user + system, thread pool included) over the wrk run: per request, it is a
  // figure that other load on the machine does not move much, unlike requests per second.
  // The main thread's own CPU time (the event loop: the ceiling of one process's throughput) is the
  // same fields of its task entry; the rest is libuv's thread pool, V8's helpers and the GC threads.
  const cpuMsOfStat = (stat: string) => {
    const fields = readFileSync(stat, 'utf8').split(') ')[1].split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  };
  const cpuMsOf = (pid: number) => cpuMsOfStat(`/proc/${pid}/stat`);
  const cpuMs = () => cpuMsOf(app.pid);
  const loopCpuMs = () => cpuMsOfStat(`/proc/${app.pid}/task/${app.pid}/stat`);
  const redisCpuMs = () => (redis?.pid ? cpuMsOf(redis.pid) : 0);
  const redisCli = (...args: string[]) =>
    redis ? execFileSync('redis-cli', ['-p', String(redis.port), ...args], { encoding: 'utf8' }) : '';
  // Read and write system calls of the server (sockets included): per request, how well writes batch.
  const syscalls = () => {
    const io = readFileSync(`/proc/${app.pid}/io`, 'utf8');
    return [Number(/syscr: (\d+)/.exec(io)?.[1]), Number(/syscw: (\d+)/.exec(io)?.[1])];
  };
  let syscallsBefore = [0, 0];
  let syscallsUsed = [0, 0];
  let cpuBefore = 0;
  let redisCpuBefore = 0;
  let redisCpuUsed = 0;
  let loopCpuBefore = 0;
  const wrk = (extra: string[], url: string, env: Record<string, string> = {}) => {
    redisCli('CONFIG', 'RESETSTAT');
    cpuBefore = cpuMs();
    redisCpuBefore = redisCpuMs();
    syscallsBefore = syscalls();
    loopCpuBefore = loopCpuMs();
    const text = execFileSync('wrk', ['-t1', '-c50', `-d${seconds}s`, '--latency', ...extra, url], {
      encoding: 'utf8',
      env: { ...process.env, ...env },
    });
    cpuUsed = cpuMs() - cpuBefore;
    loopCpuUsed = loopCpuMs() - loopCpuBefore;
    syscallsUsed = syscalls().map((n, i) => n - syscallsBefore[i]);
    redisCpuUsed = redisCpuMs() - redisCpuBefore;
    return text;
  };
  let cpuUsed = 0;
  let loopCpuUsed = 0;
  let commandStats = '';
  let out: string;
  try {
    if (route === 'health' || route === 'root' || route === 'public') {
      const url = { health: '/health', root: '/', public: '/api/login/timestamp' }[route];
      out = wrk([], `${base}${url}`);
    } else if (route === 'nonce' || route === 'me') {
      const [user] = await mintBenchPassports(app, 1);
      const jwt = await loginBenchPassport(base, user);
      out = wrk(
        ['-H', `Authorization: Bearer ${jwt}`],
        `${base}${route === 'nonce' ? '/api/holanonce16ts' : '/api/me/identity'}`,
      );
    } else if (route === 'login') {
      const passports = await mintBenchPassports(app, 200);
      const now = Math.floor(Date.now() / 1000);
      const lines: string[] = [];
      for (let offset = 0; offset < 290; offset++) {
        const timestamp_iso = new Date((now - 270 + offset) * 1000).toISOString();
        for (const p of passports) {
          const signature = encodeBase64Url(
            p.signer.sign(new TextEncoder().encode(p.tokenId + timestamp_iso)),
          );
          lines.push(
            JSON.stringify({
              passportid: p.tokenId,
              timestamp_iso,
              passportid_base64url_signature: signature,
            }),
          );
        }
      }
      const file = path.join(profDir, 'login-bodies.txt');
      writeFileSync(file, lines.join('\n') + '\n');
      out = wrk(['-s', path.join(ROOT, 'bench/support/verify-lines.lua')], base, {
        LINES_FILE: file,
        POST_PATH: '/api/login',
      });
    } else if (route === 'verify') {
      const load = await verifyLoad(app);
      load.run(load.makeLines(3000), 1); // warm-up
      // One fresh line per request (verify-lines.lua starts over at the end of the file: replays, which
      // would skew every figure): 1.6 × what the raw verify rate could serve, as the verify bench sends.
      const lines = load.makeLines(Math.max(20_000, Math.ceil(rawVerifyRate(1000) * seconds * 1.6)));
      writeFileSync(path.join(profDir, 'verify-lines.jsonl'), `${lines.join('\n')}\n`);
      out = wrk(['-s', path.join(ROOT, 'bench/support/verify-lines.lua')], base, {
        LINES_FILE: path.join(profDir, 'verify-lines.jsonl'),
      });
    } else throw new Error(`unknown route ${route}`);
    commandStats = redisCli('INFO', 'commandstats') + redisCli('INFO', 'stats');
  } finally {
    await app.stop(); // the profile is written as the server exits
    await redis?.stop();
  }
  console.log(
    out
      .split('\n')
      .filter((l) => /Requests\/sec|Non-2xx|Latency {2}/.test(l))
      .join('\n'),
  );
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? 0);
  const requests = Number(/(\d+) requests in/.exec(out)?.[1] ?? 0);
  const cpuStart = process.cpuUsage();
  const raw = rawVerifyRate();
  const rawCpu = process.cpuUsage(cpuStart);
  // Raw verifies per CPU second of this thread (the rate loop runs 2.3 s including its warm-up).
  const rawPerCpuSecond = (raw * 2.3) / ((rawCpu.user + rawCpu.system) / 1e6);
  const usPerRequest = (cpuUsed * 1000) / Math.max(1, requests);
  console.log(
    `${route} ${store}: ${Math.round(rps)} req/s (raw Ed25519 verify ${Math.round(raw)}/s, ratio ${(rps / raw).toFixed(2)}); ` +
      `server CPU ${usPerRequest.toFixed(1)} µs/request = ${(1e6 / usPerRequest / rawPerCpuSecond).toFixed(2)} × raw verify per CPU second; ` +
      `event loop ${((loopCpuUsed * 1000) / Math.max(1, requests)).toFixed(1)} µs/request`,
  );
  console.log(
    `server system calls per request: ${(syscallsUsed[0] / Math.max(1, requests)).toFixed(2)} reads, ` +
      `${(syscallsUsed[1] / Math.max(1, requests)).toFixed(2)} writes`,
  );
  if (redis) {
    const redisUs = (redisCpuUsed * 1000) / Math.max(1, requests);
    console.log(
      `redis-server CPU ${redisUs.toFixed(1)} µs/request; app + redis ${(usPerRequest + redisUs).toFixed(1)} µs/request`,
    );
    // How many commands each of Redis's socket reads / writes carried (pipelining across requests).
    const stat = (name: string) => Number(new RegExp(`${name}:(\\d+)`).exec(commandStats)?.[1] ?? 0);
    console.log(
      `  redis reads ${(stat('total_reads_processed') / Math.max(1, requests)).toFixed(2)}, writes ` +
        `${(stat('total_writes_processed') / Math.max(1, requests)).toFixed(2)} per request`,
    );
    // cmdstat_evalsha:calls=…,usec=…,usec_per_call=… → calls per request and µs per call.
    for (const match of commandStats.matchAll(
      /cmdstat_(\w+(?:\|\w+)?):calls=(\d+),usec=(\d+),usec_per_call=([\d.]+)/g,
    )) {
      const [, name, calls, usec, perCall] = match;
      console.log(
        `  ${name}: ${(Number(calls) / Math.max(1, requests)).toFixed(2)} calls/request, ${perCall} µs/call, ` +
          `${(Number(usec) / Math.max(1, requests)).toFixed(1)} µs/request`,
      );
    }
  }
  if (profile) {
    const file = readdirSync(profDir).find((f) => f.endsWith('.cpuprofile'));
    if (file) {
      const kept = `/tmp/passport-${route}-${store}-${Date.now()}.cpuprofile`;
      execFileSync('cp', [path.join(profDir, file), kept]);
      console.log(
        execFileSync(
          process.execPath,
          [
            path.join(ROOT, 'scripts/cpu-profile-top.mjs'),
            kept,
            process.env.TOP ?? '30',
            `--last=${seconds}`,
          ],
          { encoding: 'utf8' },
        ),
      );
    }
  }
  rmSync(profDir, { recursive: true, force: true });
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
