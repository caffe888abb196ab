/**
 * Where a plain GET route's server CPU goes, kernel included, for the app and for Nest on Fastify alone
 * (and the bare Fastify route): Linux `perf` samples each server under wrk (call graphs, JIT frames named
 * through `--perf-basic-prof`), and each sample is charged to the nearest JavaScript frame's package or
 * Node module (a system call to the JS that made it), or to "native" when no JS frame is on the stack
 * (the event loop, the HTTP parser, the garbage collector). The figures are µs per request: the sample
 * share times the server's CPU per request (/proc, user and system) over the same window. A second table
 * gives named kernel paths inclusive: the response's `writev`, and within it `sock_def_readable`, the
 * wake-up of the client reading the answer (in a VM its cross-CPU interrupt is dear, and a client that
 * has more often gone to sleep between answers costs the server more per answer).
 * Servers on CPU 1, wrk on CPU 0 (2 cores or more). perf's own overhead is in every figure alike.
 * NEST_BUSY_US=n adds a target: Nest alone with n µs of busy CPU in each answer (bench/support/
 * nest-alone.server.ts BUSY_US), a slower server doing nothing else differently.
 *
 *   npx tsc -b tsconfig.build.json && SWC_NODE_PROJECT=tsconfig.json \
 *     node --import @swc-node/register/esm-register scripts/route-perf.ts [seconds=5]
 *   (STORE=memory|sqlite: the app's store, default memory; needs `perf` and permission to use it)
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import path from 'node:path';
import { BARE_SERVER_SOURCE } from '../bench/support/bare-server.js';
import { freePort, ROOT, startBuiltApp, waitFor } from '../bench/support/built-app.js';

const seconds = Number(process.argv[2] ?? 5);
const store = process.env.STORE ?? 'memory';
const pinned = availableParallelism() >= 2;
/** The kernel paths shown inclusive (any frame of the sample's stack). */
const KERNEL_PATHS = ['__GI___writev', 'sock_def_readable', 'read', 'epoll_pwait'];

interface Target {
  readonly name: string;
  readonly pid: number;
  readonly url: string;
}

interface Measured {
  readonly cpuUsPerRequest: number;
  readonly userUsPerRequest: number;
  /** Each sample's stack, leaf first. */
  readonly stacks: string[][];
}

/** User and system CPU of a process, in µs (clock ticks of 10 ms). */
function cpuUs(pid: number): { user: number; system: number } {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return { user: Number(fields[11]) * 10_000, system: Number(fields[12]) * 10_000 };
}

function wrk(url: string, duration: number): string {
  const args = ['-t1', '-c50', `-d${duration}s`, url];
  return execFileSync(pinned ? 'taskset' : 'wrk', pinned ? ['-c', '0', 'wrk', ...args] : args, {
    encoding: 'utf8',
  });
}

/** perf script's text (`-F ip,sym`): one block per sample, one frame per line, leaf first. */
function parseStacks(text: string): string[][] {
  return text
    .split('\n\n')
    .map((block) =>
      block
        .trim()
        .split('\n')
        .map((line) => line.trim().replace(/^[0-9a-f]+ /, ''))
        .filter(Boolean),
    )
    .filter((stack) => stack.length > 0);
}

async function measure(target: Target, dir: string): Promise<Measured> {
  wrk(target.url, 2);
  const data = path.join(dir, `${target.pid}.data`);
  const perf = spawn(
    'perf',
    ['record', '-F', '2999', '-g', '-p', String(target.pid), '-o', data, '--', 'sleep', String(seconds + 1)],
    { stdio: 'ignore' },
  );
  await new Promise((r) => setTimeout(r, 300));
  const before = cpuUs(target.pid);
  const out = wrk(target.url, seconds);
  const after = cpuUs(target.pid);
  await new Promise((resolve) => perf.once('exit', resolve));
  const requests = Number(/(\d+) requests in/.exec(out)?.[1] ?? 0);
  if (requests === 0) throw new Error(`no requests answered by ${target.url}`);
  const script = execFileSync('perf', ['script', '-i', data, '-F', 'ip,sym'], {
    encoding: 'utf8',
    maxBuffer: 1 << 30,
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  return {
    cpuUsPerRequest: (after.user + after.system - before.user - before.system) / requests,
    userUsPerRequest: (after.user - before.user) / requests,
    stacks: parseStacks(script),
  };
}

/** The package or Node module of a sample's nearest JS frame, else "kernel (no JS frame)" or "native". */
function bucketOf(stack: readonly string[]): string {
  for (const frame of stack) {
    if (!frame.startsWith('JS:')) continue;
    const match = /node_modules\/((?:@[^/]+\/)?[^/]+)|(apps\/[^/]+|libs\/[^/]+)|(node:[a-z_/]+)/.exec(frame);
    return match ? (match[1] ?? match[2] ?? match[3]) : 'JS (other)';
  }
  return stack.some((f) => f.startsWith('entry_SYSCALL') || f === 'do_syscall_64')
    ? 'kernel (no JS frame)'
    : 'native (no JS frame)';
}

function perRequest(measured: Measured, count: (stack: string[]) => boolean): number {
  return (measured.stacks.filter(count).length / measured.stacks.length) * measured.cpuUsPerRequest;
}

async function main(): Promise<void> {
  execFileSync('perf', ['--version'], { stdio: 'ignore' });
  if (pinned) process.env.BENCH_SERVER_CPUS = '1';
  const dir = mkdtempSync(path.join(tmpdir(), 'passport-route-perf-'));
  // --perf-basic-prof also starts V8's log, a file per process in the working directory unless named.
  const perfArgs = ['--perf-basic-prof', '--no-logfile-per-isolate', `--logfile=${path.join(dir, 'v8.log')}`];
  process.env.BENCH_NODE_ARGS = perfArgs.join(' ');
  const children: ChildProcess[] = [];
  const app = await startBuiltApp({ STORE: store });
  try {
    const rootBody = await (await fetch(`${app.base}/`)).text();
    const start = (args: string[], env: Record<string, string>): ChildProcess => {
      const argv = [...perfArgs, ...args];
      const child = spawn(
        pinned ? 'taskset' : process.execPath,
        pinned ? ['-c', '1', process.execPath, ...argv] : argv,
        {
          cwd: ROOT,
          stdio: 'inherit',
          env: { ...process.env, ...env },
        },
      );
      children.push(child);
      return child;
    };
    const barePort = await freePort();
    const bare = start(['--input-type=module', '-e', BARE_SERVER_SOURCE], {
      PORT: String(barePort),
      ROOT_BODY: rootBody,
    });
    const nestPort = await freePort();
    const nest = start(
      ['--import', '@swc-node/register/esm-register', 'bench/support/nest-alone.server.ts'],
      {
        PORT: String(nestPort),
        ROOT_BODY: rootBody,
        SWC_NODE_PROJECT: 'tsconfig.json',
      },
    );
    await waitFor(`http://127.0.0.1:${barePort}/bare`);
    await waitFor(`http://127.0.0.1:${nestPort}/nest`);
    const busyUs = Number(process.env.NEST_BUSY_US ?? 0);
    const busyPort = await freePort();
    const busy =
      busyUs > 0
        ? start(['--import', '@swc-node/register/esm-register', 'bench/support/nest-alone.server.ts'], {
            PORT: String(busyPort),
            ROOT_BODY: rootBody,
            BUSY_US: String(busyUs),
            SWC_NODE_PROJECT: 'tsconfig.json',
          })
        : undefined;
    if (busy) await waitFor(`http://127.0.0.1:${busyPort}/nest`);
    const targets: Target[] = [
      { name: 'bare /bare-root', pid: bare.pid!, url: `http://127.0.0.1:${barePort}/bare-root` },
      { name: 'Nest alone /nest-root', pid: nest.pid!, url: `http://127.0.0.1:${nestPort}/nest-root` },
      { name: 'app /health', pid: app.pid, url: `${app.base}/health` },
      { name: 'app /', pid: app.pid, url: `${app.base}/` },
      ...(busy
        ? [
            {
              name: `Nest alone + ${busyUs} µs busy`,
              pid: busy.pid!,
              url: `http://127.0.0.1:${busyPort}/nest-root`,
            },
          ]
        : []),
    ];
    const results = new Map<Target, Measured>();
    for (const target of targets) results.set(target, await measure(target, dir));

    const header = `| | ${targets.map((t) => t.name).join(' | ')} |`;
    const rule = `|---|${targets.map(() => '---').join('|')}|`;
    console.log(
      `\nServer CPU per request (µs) by the nearest JS frame's package (STORE=${store}, ${seconds} s each)\n`,
    );
    console.log(header);
    console.log(rule);
    console.log(
      `| **total** | ${targets.map((t) => results.get(t)!.cpuUsPerRequest.toFixed(1)).join(' | ')} |`,
    );
    console.log(`| user | ${targets.map((t) => results.get(t)!.userUsPerRequest.toFixed(1)).join(' | ')} |`);
    console.log(
      `| system | ${targets.map((t) => (results.get(t)!.cpuUsPerRequest - results.get(t)!.userUsPerRequest).toFixed(1)).join(' | ')} |`,
    );
    const buckets = new Map<string, number>();
    for (const target of targets)
      for (const stack of results.get(target)!.stacks) buckets.set(bucketOf(stack), 0);
    const rows = [...buckets.keys()].map((bucket) => ({
      bucket,
      values: targets.map((t) => perRequest(results.get(t)!, (s) => bucketOf(s) === bucket)),
    }));
    rows.sort((a, b) => b.values[2] - a.values[2]);
    for (const { bucket, values } of rows)
      if (Math.max(...values) >= 0.1)
        console.log(`| ${bucket} | ${values.map((v) => v.toFixed(2)).join(' | ')} |`);
    console.log('\nKernel paths, inclusive (µs per request)\n');
    console.log(header);
    console.log(rule);
    for (const name of KERNEL_PATHS)
      console.log(
        `| ${name} | ${targets.map((t) => perRequest(results.get(t)!, (s) => s.includes(name)).toFixed(2)).join(' | ')} |`,
      );
  } finally {
    const pids = [app.pid, ...children.map((c) => c.pid)];
    for (const child of children) child.kill('SIGTERM');
    await app.stop();
    rmSync(dir, { recursive: true, force: true });
    // --perf-basic-prof's symbol maps (one per process, in /tmp): kept by Node after exit.
    for (const pid of pids) rmSync(`/tmp/perf-${pid}.map`, { force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
