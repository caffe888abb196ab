/**
 * What one `POST /api/identity/verify` costs on STORE=redis, store calls only: the public rate-limit
 * take (with the fleet session epoch) and the replay record with the per-sender quota, as the app
 * makes them, `CONCURRENCY` at a time (as 50 wrk connections would). Prints the client's CPU (this
 * process: ioredis, the adapters) and redis-server's CPU (/proc) per verify, and per command the calls
 * and µs per call (INFO commandstats).
 *
 * A/B: each argument is a directory holding a build of the Redis adapters (`dist/redis` of
 * @passport/adapters, e.g. a copy of the one before a change placed beside it in
 * libs/passport-adapters/dist, so it loads as ES modules); the variants run in alternating rounds
 * on one redis-server (flushed before each run), and the medians are printed at the end. Without
 * arguments it measures the current build.
 *
 *   npx tsc -b tsconfig.build.json && SWC_NODE_PROJECT=tsconfig.json \
 *     node --import @swc-node/register/esm-register scripts/redis-verify-cost.ts [dir...]
 * Environment: ROUNDS (3), VERIFIES per run (20000), CONCURRENCY (50), PREFILL replay records before
 * each run (0), so the replay index has a production-like size; MODE `take` or `record` makes only that
 * call (commandstats lump both scripts' EVALSHA together).
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { startRedisServer } from '../test/support/redis-server.js';
import { ROOT } from '../bench/support/built-app.js';

type RedisModule = typeof import('@passport/adapters/redis');

const rounds = Number(process.env.ROUNDS ?? 3);
const verifies = Number(process.env.VERIFIES ?? 20_000);
const concurrency = Number(process.env.CONCURRENCY ?? 50);
const prefill = Number(process.env.PREFILL ?? 0);
/** Which store calls a verify makes here: both (the default), or only the take or the record. */
const mode = process.env.MODE ?? 'both';
const dirs = process.argv.slice(2).length
  ? process.argv.slice(2)
  : [path.join(ROOT, 'libs/passport-adapters/dist/redis')];

const cpuMsOf = (pid: number): number => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
};

async function main(): Promise<void> {
  const redis = await startRedisServer();
  const cli = (...args: string[]) =>
    execFileSync('redis-cli', ['-p', String(redis.port), ...args], { encoding: 'utf8' });
  const variants = await Promise.all(
    dirs.map(async (dir) => ({
      dir,
      mod: (await import(pathToFileURL(path.join(path.resolve(dir), 'index.js')).href)) as RedisModule,
    })),
  );
  const results = new Map<string, { client: number[]; server: number[]; stats: string }>();
  try {
    for (let round = 0; round < rounds; round++) {
      for (const { dir, mod } of variants) {
        await redis.flush();
        const client = mod.createRedisClient(redis.url);
        await mod.whenConnected(client, 2000);
        const epoch = new mod.FleetSessionEpoch();
        const rateLimit = new mod.FallbackRateLimitStore(
          new mod.RedisRateLimitStore(client, { namespace: 'public', sessionEpoch: epoch }),
          { take: () => Promise.reject(new Error('fell back')) },
        );
        // As the app wires it: the record invocations check the data-loss marker, hold and generation.
        const history = new mod.RedisHistoryWatch(client);
        await history.check();
        const replay = new mod.RedisReplayStore(client, { maxEntries: 100_000_000, history });
        const policy = { capacity: 10_000_000, refillPerMs: 10_000_000 / 60_000 };
        const owner = 'abcdefghijkl';
        const quota = { owner, maxPerOwner: 100_000_000 };
        const nonce = () => randomBytes(16).toString('hex').toUpperCase();
        for (let i = 0; i < prefill; i += 1000) {
          const now = Date.now();
          await Promise.all(
            Array.from({ length: 1000 }, () =>
              replay.recordIfAbsent(`${owner}|${nonce()}`, now, now + 86_401_000 + 30_000, quota),
            ),
          );
        }
        const keys = Array.from({ length: verifies }, () => `${owner}|${nonce()}`);
        cli('CONFIG', 'RESETSTAT');
        let next = 0;
        const serverBefore = cpuMsOf(redis.pid!);
        const clientBefore = process.cpuUsage();
        const worker = async (): Promise<void> => {
          while (next < keys.length) {
            const key = keys[next++];
            const now = Date.now();
            if (mode !== 'record') {
              const take = await rateLimit.take('public:127.0.0.1', policy, now);
              if (!take.allowed) throw new Error('refused');
            }
            if (mode !== 'take') {
              const outcome = await replay.recordIfAbsent(key, now, now + 86_401_000 + 30_000, quota);
              if (!outcome.recorded) throw new Error('not recorded');
            }
          }
        };
        await Promise.all(Array.from({ length: concurrency }, worker));
        const clientCpu = process.cpuUsage(clientBefore);
        const server = ((cpuMsOf(redis.pid!) - serverBefore) * 1000) / verifies;
        const clientUs = (clientCpu.user + clientCpu.system) / verifies;
        const stats = cli('INFO', 'commandstats');
        history.stop();
        client.disconnect();
        const entry = results.get(dir) ?? { client: [], server: [], stats: '' };
        entry.client.push(clientUs);
        entry.server.push(server);
        entry.stats = stats;
        results.set(dir, entry);
        console.log(
          `round ${round + 1} ${dir}: client ${clientUs.toFixed(1)} µs, redis-server ${server.toFixed(1)} µs per verify`,
        );
      }
    }
  } finally {
    await redis.stop();
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  for (const [dir, { client, server, stats }] of results) {
    console.log(
      `\n${dir}: median client ${median(client).toFixed(1)} µs + redis-server ${median(server).toFixed(1)} µs = ` +
        `${(median(client) + median(server)).toFixed(1)} µs per verify (${client.length} runs)`,
    );
    for (const [, name, calls, usec, perCall] of stats.matchAll(
      /cmdstat_(\S+?):calls=(\d+),usec=(\d+),usec_per_call=([\d.]+)/g,
    )) {
      if (name.startsWith('config')) continue;
      console.log(
        `  ${name}: ${(Number(calls) / verifies).toFixed(2)} calls/verify, ${perCall} µs/call, ${(Number(usec) / verifies).toFixed(1)} µs/verify`,
      );
    }
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
