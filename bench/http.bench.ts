/**
 * HTTP throughput of the app against a bare Fastify route, measured in the same run on the same
 * machine: `GET /health`, `GET /` of the built app (apps/api/dist, started as a child process), and
 * `GET /bare` of a minimal Fastify server (also a child process), the bare server sending `GET /`'s
 * own bytes, and `GET /nest` of Nest on Fastify alone (bench/support/nest-alone.server.ts: the frameworks'
 * own floor). autocannon (`BENCH_CLIENT=wrk`: wrk) sends alternating 1 s slices of the five routes
 * (bench/support/interleaved.ts).
 *
 *   npm run bench -- http          (or, after a build: npx tsx bench/http.bench.ts [seconds] [connections])
 *
 * The rate limit is raised out of the way (it is measured by its own tests, not here); logs are off.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { BARE_SERVER_SOURCE } from './support/bare-server.js';
import { freePort, rawVerifyRate, ROOT, startBuiltApp, waitFor } from './support/built-app.js';
import { interleaved, type SliceFigures } from './support/interleaved.js';
import { medianRatio } from './support/median.js';
import { recordSuite, type RateFigure } from './support/results.js';

/** Rounds of alternating 1 s slices (odd: the median of the rounds' ratios is one round's). */
const seconds = Number(process.argv[2] ?? 9);
const connections = Number(process.argv[3] ?? 50);

async function main(): Promise<void> {
  // The default store (sqlite), as `npm start` runs it; logs off and the public limit out of the way.
  const appProcess = await startBuiltApp();
  let bareProcess: ChildProcess | undefined;
  let nestProcess: ChildProcess | undefined;
  try {
    const barePort = await freePort();
    const app = appProcess.base;
    const rootBody = await (await fetch(`${app}/`)).text();
    bareProcess = spawn(process.execPath, ['--input-type=module', '-e', BARE_SERVER_SOURCE], {
      cwd: ROOT,
      stdio: 'inherit',
      env: { ...process.env, PORT: String(barePort), ROOT_BODY: rootBody },
    });
    const bare = `http://127.0.0.1:${barePort}`;
    const nestPort = await freePort();
    nestProcess = spawn(
      process.execPath,
      ['--import', '@swc-node/register/esm-register', path.join(ROOT, 'bench/support/nest-alone.server.ts')],
      {
        cwd: ROOT,
        stdio: 'inherit',
        env: { ...process.env, PORT: String(nestPort), SWC_NODE_PROJECT: 'tsconfig.json' },
      },
    );
    const nest = `http://127.0.0.1:${nestPort}`;
    await waitFor(`${bare}/bare`);
    await waitFor(`${nest}/nest`);

    // The three in alternating 1 s slices, so that drift in the machine's load hits them alike.
    // The fourth is a bare route that sends GET /'s bytes: how much of the gap is the body's size.
    const [bareFigures, health, root, bareRoot, nestAlone] = await interleaved(
      [
        [`${bare}/bare`, {}],
        [`${app}/health`, {}],
        [`${app}/`, {}],
        [`${bare}/bare-root`, {}],
        [`${nest}/nest`, {}],
      ],
      { seconds, connections },
    );
    const rows: Record<string, SliceFigures> = {
      'bare Fastify GET /bare': bareFigures,
      'app GET /health': health,
      'app GET /': root,
      "bare Fastify GET /bare-root (GET /'s body)": bareRoot,
      'Nest on Fastify alone, GET /nest (the bare body)': nestAlone,
    };

    const base = rows['bare Fastify GET /bare'].rps;
    console.log(
      `\nNode ${process.version}, ${rows['app GET /'].client}, ${connections} connections, ${seconds} 1 s slices per route, the routes alternating (after 1 s warm-up each)\n`,
    );
    console.log(
      "| route | req/s | p50 ms | p99 ms | bytes/response | non-2xx | ratio to bare (all slices) | median of the rounds' ratios |",
    );
    console.log('|---|---|---|---|---|---|---|---|');
    for (const [name, r] of Object.entries(rows)) {
      console.log(
        `| ${name} | ${Math.round(r.rps)} | ${r.p50} | ${r.p99} | ${Math.round(r.bytes)} | ${r.non2xx} | ${(r.rps / base).toFixed(2)} | ${medianRatio(r, bareFigures).toFixed(2)} |`,
      );
    }
    console.log(`\napp GET / ÷ a bare route sending the same bytes: ${(root.rps / bareRoot.rps).toFixed(2)}`);
    console.log(
      `app GET /health ÷ Nest on Fastify alone: ${medianRatio(health, nestAlone).toFixed(2)} (median of the rounds' ratios)`,
    );
    const figure = (r: SliceFigures): RateFigure & { non2xx: number } => ({
      perSecond: Math.round(r.rps),
      p50Ms: r.p50,
      p99Ms: r.p99,
      non2xx: r.non2xx,
    });
    recordSuite('http', {
      rawVerifyPerSecond: Math.round(rawVerifyRate()),
      connections,
      seconds,
      store: 'sqlite',
      client: rows['app GET /'].client,
      bare: figure(rows['bare Fastify GET /bare']),
      health: figure(rows['app GET /health']),
      root: figure(rows['app GET /']),
      bareRoot: figure(bareRoot),
      nestAlone: figure(nestAlone),
      // The named figure: each route ÷ the bare route, the median of the rounds' ratios.
      toBare: {
        health: medianRatio(health, bareFigures),
        root: medianRatio(root, bareFigures),
        nestAlone: medianRatio(nestAlone, bareFigures),
      },
    });
  } finally {
    bareProcess?.kill('SIGTERM');
    nestProcess?.kill('SIGTERM');
    await appProcess.stop();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
