/**
 * HTTP throughput of the app against a bare Fastify route, measured in the same run on the same
 * machine: `GET /health`, `GET /` of the built app (apps/api/dist, started as a child process), and
 * `GET /bare` of a minimal Fastify server (also a child process). autocannon runs in this process.
 *
 *   npx tsc -b tsconfig.build.json && npx tsx bench/http.bench.ts [seconds=5] [connections=50]
 *
 * The rate limit is raised out of the way (it is measured by its own tests, not here); logs are off.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';

const ROOT = path.resolve(new URL('..', import.meta.url).pathname);
const seconds = Number(process.argv[2] ?? 5);
const connections = Number(process.argv[3] ?? 50);

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

async function waitFor(url: string, timeoutMs = 30_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      /* not up yet */
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${url} did not come up`);
}

const BARE_SERVER = `
import Fastify from 'fastify';
const app = Fastify({ logger: false });
app.get('/bare', async () => ({ status: 'ok', service: 'bare' }));
await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
`;

async function measure(url: string): Promise<{ rps: number; p50: number; p99: number; non2xx: number }> {
  await autocannon({ url, connections, duration: 1 }); // warm-up
  const result = await autocannon({ url, connections, duration: seconds });
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
  };
}

async function main(): Promise<void> {
  if (!existsSync(path.join(ROOT, 'apps/api/dist/main.js')))
    throw new Error('build first: npx tsc -b tsconfig.build.json');
  const dataDir = mkdtempSync(path.join(tmpdir(), 'passport-bench-'));
  const children: ChildProcess[] = [];
  try {
    const appPort = await freePort();
    const barePort = await freePort();
    children.push(
      spawn(process.execPath, ['apps/api/dist/main.js'], {
        cwd: ROOT,
        stdio: 'inherit',
        env: {
          ...process.env,
          PORT: String(appPort),
          HOST: '127.0.0.1',
          DATA_DIR: dataDir,
          STORE: 'memory',
          LOG_LEVEL: 'silent',
          RATE_LIMIT_CAPACITY: '10000000',
          RATE_LIMIT_REFILL_PER_MINUTE: '10000000',
        },
      }),
      spawn(process.execPath, ['--input-type=module', '-e', BARE_SERVER], {
        cwd: ROOT,
        stdio: 'inherit',
        env: { ...process.env, PORT: String(barePort) },
      }),
    );
    const app = `http://127.0.0.1:${appPort}`;
    const bare = `http://127.0.0.1:${barePort}`;
    await waitFor(`${app}/health`);
    await waitFor(`${bare}/bare`);

    const rows: Record<string, Awaited<ReturnType<typeof measure>>> = {};
    rows['bare Fastify GET /bare'] = await measure(`${bare}/bare`);
    rows['app GET /health'] = await measure(`${app}/health`);
    rows['app GET /'] = await measure(`${app}/`);

    const base = rows['bare Fastify GET /bare'].rps;
    console.log(
      `\nNode ${process.version}, ${connections} connections, ${seconds} s per route (after 1 s warm-up)\n`,
    );
    console.log('| route | req/s | p50 ms | p99 ms | non-2xx | ratio to bare |');
    console.log('|---|---|---|---|---|---|');
    for (const [name, r] of Object.entries(rows)) {
      console.log(
        `| ${name} | ${Math.round(r.rps)} | ${r.p50} | ${r.p99} | ${r.non2xx} | ${(r.rps / base).toFixed(2)} |`,
      );
    }
  } finally {
    for (const child of children) child.kill('SIGTERM');
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
