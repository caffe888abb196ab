/**
 * Server CPU per request of plain GET routes, to see where the app's distance from a bare Fastify route
 * goes: bare Fastify (`/bare`, and `/bare-root` sending the app's GET / bytes), Nest on Fastify alone
 * (`/nest`, `/nest-root` the same bytes through a controller as the app answers them), and the built app's
 * `GET /health` and `GET /`. Each server runs as PROCESSES separate processes (default 2): identical
 * processes of one build have differed by 5–25 % in CPU per request on these VMs for a whole run (code
 * placement, JIT decisions), so one process per variant cannot tell a 2 µs change from that lottery.
 * Every round loads each target once with wrk (1 thread, 50 connections, SECONDS each), the order turning
 * every round; on a machine with 2 or more cores the servers are pinned to CPU 1 and wrk to CPU 0, so
 * the figure is CPU time per request (/proc, user and system), which another process's load moves less
 * than requests per second. Prints per target the median over processes and rounds, and each process's
 * median.
 *
 *   npx tsc -b tsconfig.build.json && SWC_NODE_PROJECT=tsconfig.json \
 *     node --import @swc-node/register/esm-register scripts/route-cpu.ts [seconds=3] [rounds=4]
 *   (PROCESSES=n, STORE=memory|sqlite: the app's store, default memory)
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { BARE_SERVER_SOURCE } from '../bench/support/bare-server.js';
import { type BuiltApp, freePort, ROOT, startBuiltApp, waitFor } from '../bench/support/built-app.js';
import { median } from '../bench/support/median.js';

const seconds = Number(process.argv[2] ?? 3);
const rounds = Number(process.argv[3] ?? 4);
const processes = Number(process.env.PROCESSES ?? 2);
const store = process.env.STORE ?? 'memory';
const pinned = availableParallelism() >= 2;

interface Target {
  readonly name: string;
  readonly process: number;
  readonly pid: number;
  readonly url: string;
}

/** User and system CPU of a process, in µs (clock ticks of 10 ms). */
function cpuUs(pid: number): { user: number; system: number } {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return { user: Number(fields[11]) * 10_000, system: Number(fields[12]) * 10_000 };
}

function startChild(args: string[], env: Record<string, string>): ChildProcess {
  const command = pinned ? 'taskset' : process.execPath;
  const argv = pinned ? ['-c', '1', process.execPath, ...args] : args;
  return spawn(command, argv, { cwd: ROOT, stdio: 'inherit', env: { ...process.env, ...env } });
}

async function main(): Promise<void> {
  if (pinned) process.env.BENCH_SERVER_CPUS = '1';
  const apps: BuiltApp[] = [];
  const children: ChildProcess[] = [];
  const targets: Target[] = [];
  try {
    for (let p = 0; p < processes; p++) apps.push(await startBuiltApp({ STORE: store }));
    const rootBody = await (await fetch(`${apps[0].base}/`)).text();
    for (let p = 0; p < processes; p++) {
      const barePort = await freePort();
      const bare = startChild(['--input-type=module', '-e', BARE_SERVER_SOURCE], {
        PORT: String(barePort),
        ROOT_BODY: rootBody,
      });
      const nestPort = await freePort();
      const nest = startChild(
        [
          '--import',
          '@swc-node/register/esm-register',
          path.join(ROOT, 'bench/support/nest-alone.server.ts'),
        ],
        { PORT: String(nestPort), ROOT_BODY: rootBody, SWC_NODE_PROJECT: 'tsconfig.json' },
      );
      children.push(bare, nest);
      const bareBase = `http://127.0.0.1:${barePort}`;
      const nestBase = `http://127.0.0.1:${nestPort}`;
      await waitFor(`${bareBase}/bare`);
      await waitFor(`${nestBase}/nest`);
      // taskset execs node, so the child's pid is the server's.
      targets.push(
        { name: 'bare Fastify GET /bare', process: p, pid: bare.pid!, url: `${bareBase}/bare` },
        {
          name: "bare Fastify GET /bare-root (GET /'s bytes)",
          process: p,
          pid: bare.pid!,
          url: `${bareBase}/bare-root`,
        },
        { name: 'Nest alone GET /nest', process: p, pid: nest.pid!, url: `${nestBase}/nest` },
        {
          name: "Nest alone GET /nest-root (GET /'s bytes)",
          process: p,
          pid: nest.pid!,
          url: `${nestBase}/nest-root`,
        },
        { name: 'app GET /health', process: p, pid: apps[p].pid, url: `${apps[p].base}/health` },
        { name: 'app GET /', process: p, pid: apps[p].pid, url: `${apps[p].base}/` },
      );
    }
    const samples = new Map<Target, { total: number[]; user: number[] }>();
    for (let round = 0; round < rounds; round++) {
      const order = round % 2 === 0 ? targets : [...targets].reverse();
      for (const target of order) {
        const before = cpuUs(target.pid);
        const wrk = ['wrk', '-t1', '-c50', `-d${seconds}s`, target.url];
        const out = execFileSync(pinned ? 'taskset' : wrk[0], pinned ? ['-c', '0', ...wrk] : wrk.slice(1), {
          encoding: 'utf8',
        });
        const after = cpuUs(target.pid);
        const requests = Number(/(\d+) requests in/.exec(out)?.[1] ?? 0);
        if (requests === 0) throw new Error(`no requests answered by ${target.url}`);
        const entry = samples.get(target) ?? { total: [], user: [] };
        entry.total.push((after.user + after.system - before.user - before.system) / requests);
        entry.user.push((after.user - before.user) / requests);
        samples.set(target, entry);
      }
    }
    console.log(
      `\nServer CPU per request (µs), wrk 50 connections, ${seconds} s × ${rounds} rounds, ${processes} processes per server` +
        `${pinned ? ', servers on CPU 1, wrk on CPU 0' : ''}; app STORE=${store}\n`,
    );
    console.log('| target | median (all) | user | per process |');
    console.log('|---|---|---|---|');
    for (const name of [...new Set(targets.map((t) => t.name))]) {
      const mine = targets.filter((t) => t.name === name).map((t) => samples.get(t)!);
      const all = mine.flatMap((s) => s.total);
      const user = mine.flatMap((s) => s.user);
      console.log(
        `| ${name} | ${median(all).toFixed(1)} | ${median(user).toFixed(1)} | ${mine.map((s) => median(s.total).toFixed(1)).join(' / ')} |`,
      );
    }
  } finally {
    for (const child of children) child.kill('SIGTERM');
    for (const app of apps) await app.stop();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
