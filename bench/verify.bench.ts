/**
 * Throughput of `POST /api/identity/verify` for valid lines against the physical limit measured in the
 * same run: the raw node:crypto Ed25519 verify rate (cached KeyObject, one thread). The built app runs
 * as a child process (its own core; STORE=memory, logs off, the public rate limit out of the way);
 * autocannon runs here with pre-built fresh lines, one per request (`amount` = the number of lines, so
 * none is ever sent twice and every answer should be `verified: true`, which is counted).
 *
 *   npm run bench -- verify        (or, after a build: npx tsx bench/verify.bench.ts [lines] [connections])
 *
 * Target (engineering anchors §4.3): verify req/s ≥ 0.6 × raw verifies/s on one core; p99 at 50 connections.
 */
import { randomBytes } from 'node:crypto';
import autocannon from 'autocannon';
import { buildHolaLine } from '@passport/core';
import { mintBenchPassports, rawVerifyRate, startBuiltApp } from './support/built-app.js';

const lineCount = Number(process.argv[2] ?? 30_000);
const connections = Number(process.argv[3] ?? 50);

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

    const run = async (bodies: string[]) => {
      let next = 0;
      let verified = 0;
      const result = await autocannon({
        url: base,
        connections,
        amount: bodies.length,
        requests: [
          {
            method: 'POST',
            path: '/api/identity/verify',
            headers: { 'content-type': 'application/json' },
            setupRequest: (req) => ({ ...req, body: bodies[next++ % bodies.length] }),
            onResponse: (_status, body) => {
              if (body.includes('"verified":true')) verified++;
            },
          },
        ],
      });
      return { result, verified };
    };

    await run(makeLines(3000)); // warm-up (JIT, key-object cache, chain cache)
    const bodies = makeLines(lineCount);
    const { result, verified } = await run(bodies);
    const raw = rawVerifyRate();

    const rps = result.requests.average;
    console.log(
      `\nNode ${process.version}; ${connections} connections; ${bodies.length} distinct fresh lines (after 3000 warm-up)\n`,
    );
    console.log('| figure | value |');
    console.log('|---|---|');
    console.log(
      `| raw node:crypto Ed25519 verify (this process, cached KeyObject) | ${Math.round(raw)} /s |`,
    );
    console.log(`| POST /api/identity/verify, valid line | ${Math.round(rps)} req/s |`);
    console.log(`| ratio verify / raw | ${(rps / raw).toFixed(2)} (target ≥ 0.60) |`);
    console.log(
      `| latency p50 / p99 / max | ${result.latency.p50} / ${result.latency.p99} / ${result.latency.max} ms |`,
    );
    console.log(
      `| responses verified:true | ${verified} of ${result.requests.total} (non-2xx ${result.non2xx}, errors ${result.errors}) |`,
    );
  } finally {
    await app.stop();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
