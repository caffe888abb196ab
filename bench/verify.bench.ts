/**
 * Throughput of `POST /api/identity/verify` for valid lines against the physical limit measured in the
 * same run: the raw node:crypto Ed25519 verify rate (cached KeyObject, one thread). The built app runs
 * as a child process (its own core; STORE=memory, logs off, the public rate limit out of the way);
 * wrk (Debian's package; scripts/bench.sh installs it) sends pre-built fresh lines, each once, and the
 * server's own metrics count how many verified (every one should).
 *
 *   npm run bench -- verify        (or, after a build: npx tsx bench/verify.bench.ts [seconds] [connections] [lines])
 *
 * Target (engineering anchors §4.3): verify req/s ≥ 0.6 × raw verifies/s on one core; p99 at 50 connections.
 */
import { randomBytes } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { buildHolaLine } from '@passport/core';
import { metricsReader, mintBenchPassports, rawVerifyRate, ROOT, startBuiltApp } from './support/built-app.js';

const seconds = Number(process.argv[2] ?? 5);
const connections = Number(process.argv[3] ?? 50);
/** Enough distinct lines that none is sent twice within the run. */
const lineCount = Number(process.argv[4] ?? 40_000);

async function main(): Promise<void> {
  const app = await startBuiltApp({ STORE: 'memory' });
  try {
    const base = app.base;
    const [{ tokenId, signer }] = await mintBenchPassports(app, 1);

    const serviceHost = new URL(base).host;
    const makeLines = (n: number) =>
      Array.from({ length: n }, () =>
        JSON.stringify({
          hola: buildHolaLine({
            senderTokenId: tokenId,
            timestamp: new Date().toISOString(),
            nonceHex: randomBytes(16).toString('hex').toUpperCase(),
            serviceHost,
            signer,
          }),
        }),
      );
    const check = await fetch(`${base}/api/identity/verify`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: makeLines(1)[0],
    });
    const checked = (await check.json()) as { verified: boolean; failureReasons: string[] };
    if (!checked.verified) throw new Error(`a fresh line did not verify: ${JSON.stringify(checked)}`);

    // wrk (C) is the load generator: autocannon in this Node process saturated before the server did.
    // Each line is sent once (the Lua script walks the file); the server's own metrics count how many
    // verified, so no response body is parsed here.
    const readMetrics = await metricsReader(app);
    const linesFile = path.join(app.dataDir, 'lines.jsonl');
    const run = (lines: string[], seconds: number) => {
      writeFileSync(linesFile, `${lines.join('\n')}\n`);
      const out = execFileSync(
        'wrk',
        ['-t1', `-c${connections}`, `-d${seconds}s`, '--latency', '-s', path.join(ROOT, 'bench/support/verify-lines.lua'), base],
        { env: { ...process.env, LINES_FILE: linesFile } },
      ).toString();
      const number = (pattern: RegExp) => Number(pattern.exec(out)?.[1] ?? NaN);
      const ms = (label: string) => {
        const match = new RegExp(`${label}\\s+([\\d.]+)(us|ms|s)`).exec(out);
        return match ? Number(match[1]) * { us: 0.001, ms: 1, s: 1000 }[match[2] as 'us' | 'ms' | 's'] : NaN;
      };
      return { rps: number(/Requests\/sec:\s+([\d.]+)/), total: number(/(\d+) requests in/), p50: ms('50%'), p99: ms('99%') };
    };

    run(makeLines(3000), 1); // warm-up (JIT, key-object cache, chain cache)
    const before = (await readMetrics()).verify;
    const lines = makeLines(lineCount);
    const result = run(lines, seconds);
    const after = (await readMetrics()).verify;
    const raw = rawVerifyRate();
    const verified = after.verified - before.verified;
    const rejected = after.rejected - before.rejected;
    if (result.total > lines.length) console.warn(`more requests (${result.total}) than lines: raise the line count`);

    console.log(`\nNode ${process.version}; wrk, ${connections} connections, ${seconds} s; ${lines.length} distinct fresh lines (after a warm-up)\n`);
    console.log('| figure | value |');
    console.log('|---|---|');
    console.log(`| raw node:crypto Ed25519 verify (this process, cached KeyObject) | ${Math.round(raw)} /s |`);
    console.log(`| POST /api/identity/verify, valid line | ${Math.round(result.rps)} req/s |`);
    console.log(`| ratio verify / raw | ${(result.rps / raw).toFixed(2)} (target ≥ 0.60) |`);
    console.log(`| latency p50 / p99 | ${result.p50} / ${result.p99} ms |`);
    console.log(`| verified by the server (metrics) | ${verified} verified, ${rejected} rejected, of ${result.total} requests |`);
  } finally {
    await app.stop();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
