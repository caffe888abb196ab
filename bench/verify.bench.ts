/**
 * Throughput of `POST /api/identity/verify` for valid lines against the physical limit measured in the
 * same run: the raw node:crypto Ed25519 verify rate (cached KeyObject, one thread). The built app runs
 * as a child process (its own core; STORE=memory, logs off, the public rate limit out of the way);
 * autocannon runs here with pre-built fresh lines, one per request (`amount` = the number of lines, so
 * none is ever sent twice and every answer should be `verified: true`, which is counted).
 *
 *   npx tsc -b tsconfig.build.json && npx tsx bench/verify.bench.ts [lines=30000] [connections=50]
 *
 * Target (engineering anchors §4.3): verify req/s ≥ 0.6 × raw verifies/s on one core; p99 at 50 connections.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import {
  createPublicKey,
  randomBytes,
  verify as cryptoVerify,
  sign as cryptoSign,
  generateKeyPairSync,
} from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import {
  buildHolaLine,
  implicitAccountId,
  parseNearCredentials,
  randomFaceTokenId,
  cryptoRandomInt,
  signFamilyMetadata,
} from '@passport/core';
import { createNodeSigner } from '@passport/core/node';
import { updateLedgerFile } from '../apps/api/src/chain/ledger/ledger-file.js';

const ROOT = path.resolve(new URL('..', import.meta.url).pathname);
const lineCount = Number(process.argv[2] ?? 30_000);
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

/** Raw node:crypto Ed25519 verifies per second on this thread (cached KeyObject, 64 rotating ~120-byte messages). */
function rawVerifyRate(durationMs = 2000): number {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const key = createPublicKey({
    key: publicKey.export({ type: 'spki', format: 'der' }),
    format: 'der',
    type: 'spki',
  });
  const messages = Array.from({ length: 64 }, () => randomBytes(120));
  const signatures = messages.map((m) => cryptoSign(null, m, privateKey));
  const run = (ms: number) => {
    let n = 0;
    const end = performance.now() + ms;
    while (performance.now() < end) {
      for (let i = 0; i < 64; i++)
        if (!cryptoVerify(null, messages[i], key, signatures[i])) throw new Error('bad');
      n += 64;
    }
    return (n * 1000) / ms;
  };
  run(300); // warm-up
  return run(durationMs);
}

async function main(): Promise<void> {
  if (!existsSync(path.join(ROOT, 'apps/api/dist/main.js')))
    throw new Error('build first: npx tsc -b tsconfig.build.json');
  const dataDir = mkdtempSync(path.join(tmpdir(), 'passport-bench-verify-'));
  let child: ChildProcess | undefined;
  try {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    // BENCH_NODE_ARGS, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof", profiles the server.
    const nodeArgs = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);
    child = spawn(process.execPath, [...nodeArgs, 'apps/api/dist/main.js'], {
      cwd: ROOT,
      stdio: 'inherit',
      env: {
        ...process.env,
        PORT: String(port),
        HOST: '127.0.0.1',
        PUBLIC_BASE_URL: base,
        DATA_DIR: dataDir,
        STORE: 'memory',
        LOG_LEVEL: 'silent',
        RATE_LIMIT_CAPACITY: '10000000',
        RATE_LIMIT_REFILL_PER_MINUTE: '10000000',
      },
    });
    await waitFor(`${base}/health`);

    // One passport owned by an implicit account, signed into the development family.
    const seed = new Uint8Array(randomBytes(32));
    const signer = createNodeSigner(seed);
    const tokenId = randomFaceTokenId(cryptoRandomInt);
    const familyKey = parseNearCredentials(
      readFileSync(path.join(dataDir, 'keys', 'family-root.json'), 'utf8'),
    );
    const ledgerFile = path.join(dataDir, 'ledger.json');
    const ledger = JSON.parse(readFileSync(ledgerFile, 'utf8')) as {
      passports: { metadata: Record<string, string> }[];
    };
    const metadata: Record<string, string> = {
      token_id: tokenId,
      serviceprovider_id: ledger.passports.find((p) => p.metadata.serviceprovider_id)!.metadata
        .serviceprovider_id,
      not_before: '',
      not_after: '',
    };
    metadata.serviceprovider_signature = signFamilyMetadata(metadata, createNodeSigner(familyKey.secretSeed));
    await updateLedgerFile(ledgerFile, (doc) => ({
      ...doc,
      passports: [
        ...doc.passports,
        { token_id: tokenId, owner_id: implicitAccountId(signer.publicKey), metadata },
      ],
    }));

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
    if (child) {
      const exited = new Promise((resolve) => child!.once('exit', resolve));
      child.kill('SIGTERM');
      await exited; // lets a --cpu-prof profile be written
    }
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
