/**
 * Shared pieces of the HTTP benchmarks: start the built app as a child process (so the load generator
 * in this process does not share its event loop), mint passports into its ledger, and measure the raw
 * Ed25519 verify rate that endpoint figures are compared with in the same run.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import {
  createPublicKey,
  generateKeyPairSync,
  randomBytes,
  sign as cryptoSign,
  verify as cryptoVerify,
} from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  encodeBase64Url,
  parseNearCredentials,
  randomFaceTokenId,
  signFamilyMetadata,
  type Signer,
} from '@passport/core';
import { cryptoRandomInt } from '@passport/core/token-id';
import { implicitAccountId } from '@passport/core/codecs';
import { createNodeSigner } from '@passport/core/node';
import { updateLedgerFile } from '@passport/adapters/ledger';

export const ROOT = path.resolve(new URL('../..', import.meta.url).pathname);

export function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

export async function waitFor(url: string, timeoutMs = 30_000): Promise<void> {
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

export interface BuiltApp {
  readonly base: string;
  readonly dataDir: string;
  /** The server's process id (serve.sh and taskset exec node, so it is node's). */
  readonly pid: number;
  stop(): Promise<void>;
}

/**
 * Starts `apps/api/dist/main.js` on a free port with a fresh DATA_DIR, silent logs and the public
 * rate limit out of the way. `env` overrides (e.g. `STORE: 'memory'`). BENCH_NODE_ARGS, e.g.
 * "--cpu-prof --cpu-prof-dir=/tmp/prof", profiles the server.
 */
export async function startBuiltApp(env: Record<string, string> = {}): Promise<BuiltApp> {
  if (!existsSync(path.join(ROOT, 'apps/api/dist/main.js')))
    throw new Error('build first: npx tsc -b tsconfig.build.json');
  const dataDir = mkdtempSync(path.join(tmpdir(), 'passport-bench-'));
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const nodeArgs = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);
  // Started as `npm start` starts it (scripts/serve.sh sizes the thread pool), without the build.
  // BENCH_SERVER_CPUS (e.g. "0") pins the server, thread pool included, with taskset.
  const cpus = process.env.BENCH_SERVER_CPUS;
  const serve = ['scripts/serve.sh', ...nodeArgs];
  const child: ChildProcess = spawn(
    cpus ? 'taskset' : 'bash',
    cpus ? ['-c', cpus, 'bash', ...serve] : serve,
    {
      cwd: ROOT,
      stdio: 'inherit',
      env: {
        ...process.env,
        PORT: String(port),
        HOST: '127.0.0.1',
        PUBLIC_BASE_URL: base,
        DATA_DIR: dataDir,
        LOG_LEVEL: 'silent',
        RATE_LIMIT_CAPACITY: '10000000',
        RATE_LIMIT_REFILL_PER_MINUTE: '10000000',
        // The benches send every line from one passport: its replay quota must not stop them.
        REPLAY_MAX_PER_SENDER: '100000000',
        // Nor may the store's cap (memory's default is 100,000): a full store answers 503, which is cheap
        // and would inflate the figure.
        REPLAY_MAX_RECORDS: '100000000',
        ...env,
      },
    },
  );
  try {
    await waitFor(`${base}/health`);
  } catch (error) {
    child.kill('SIGTERM');
    throw error;
  }
  return {
    base,
    dataDir,
    pid: child.pid!,
    async stop() {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited; // lets a --cpu-prof profile be written
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export interface BenchPassport {
  readonly tokenId: string;
  readonly seed: Uint8Array;
  readonly signer: Signer;
  readonly accountId: string;
}

/** Mints passports owned by fresh implicit accounts, signed into the app's development family. */
export async function mintBenchPassports(
  app: BuiltApp,
  count: number,
  extra: Record<string, string> = {},
): Promise<BenchPassport[]> {
  const family = createNodeSigner(
    parseNearCredentials(readFileSync(path.join(app.dataDir, 'keys', 'family-root.json'), 'utf8')).secretSeed,
  );
  const ledgerFile = path.join(app.dataDir, 'ledger.json');
  const ledger = JSON.parse(readFileSync(ledgerFile, 'utf8')) as {
    passports: { metadata: Record<string, string> }[];
  };
  const serviceProviderId = ledger.passports.find((p) => p.metadata.serviceprovider_id)!.metadata
    .serviceprovider_id;
  const minted = Array.from({ length: count }, () => {
    const seed = new Uint8Array(randomBytes(32));
    const signer = createNodeSigner(seed);
    const tokenId = randomFaceTokenId(cryptoRandomInt);
    const metadata: Record<string, string> = {
      serviceprovider_id: serviceProviderId,
      subjectuniqueidentifier_url: app.base,
      not_before: '',
      not_after: '',
      ...extra,
    };
    metadata.serviceprovider_signature = signFamilyMetadata(metadata, tokenId, family);
    return { passport: { tokenId, seed, signer, accountId: implicitAccountId(signer.publicKey) }, metadata };
  });
  await updateLedgerFile(ledgerFile, (doc) => ({
    ...doc,
    passports: [
      ...doc.passports,
      ...minted.map((m) => ({
        token_id: m.passport.tokenId,
        owner_id: m.passport.accountId,
        metadata: m.metadata,
      })),
    ],
  }));
  return minted.map((m) => m.passport);
}

/** `POST /api/login` for a bench passport with the challenge it signs (`timestamp_iso` from the API). */
export function postBenchLogin(base: string, p: BenchPassport, timestampIso: string): Promise<Response> {
  const signature = encodeBase64Url(p.signer.sign(new TextEncoder().encode(p.tokenId + timestampIso)));
  return fetch(`${base}/api/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      passportid: p.tokenId,
      timestamp_iso: timestampIso,
      passportid_base64url_signature: signature,
    }),
  });
}

/** Logs a bench passport in through the API (challenge, signature, login) and returns its JWT. */
export async function loginBenchPassport(base: string, p: BenchPassport): Promise<string> {
  const challenge = (await (await fetch(`${base}/api/login/timestamp`)).json()) as { timestamp_iso: string };
  const res = await postBenchLogin(base, p, challenge.timestamp_iso);
  const body = (await res.json()) as { jwt_token?: string };
  if (!body.jwt_token) throw new Error(`login failed: ${JSON.stringify(body)}`);
  return body.jwt_token;
}

/** A passport allowed to read GET /api/metrics, logged in; returns a reader of the JSON figures. */
export async function metricsReader(app: BuiltApp): Promise<() => Promise<Record<string, any>>> {
  const [admin] = await mintBenchPassports(app, 1, {
    permissioned_routes: JSON.stringify({ entities: { methods: { '/api/metrics': '60' } } }),
  });
  const jwt = await loginBenchPassport(app.base, admin);
  return async () =>
    (await (
      await fetch(`${app.base}/api/metrics`, { headers: { authorization: `Bearer ${jwt}` } })
    ).json()) as Record<string, any>;
}

/** Resident memory of process `pid` in MiB (Linux: VmRSS of /proc/<pid>/status). */
export function rssMb(pid: number): number {
  const kb = Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN);
  return Math.round((kb / 1024) * 10) / 10;
}

/** Raw node:crypto Ed25519 verifies per second on this thread (cached KeyObject, 64 rotating ~120-byte messages). */
export function rawVerifyRate(durationMs = 2000): number {
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
