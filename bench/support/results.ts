/**
 * Benchmark figures as data: every suite that `npm run bench` runs writes its section into
 * `bench/results/latest.json` (a suite that did not run this time keeps its earlier section, with its
 * own date and commit), and the named figures that the issues set goals for are derived from the
 * sections present. `scripts/bench-history.mjs` appends a row of them to docs/benchmarks.md.
 *
 * Each section is written as soon as its suite finishes, so an interrupted run keeps what it measured.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import path from 'node:path';

const ROOT = path.resolve(new URL('../..', import.meta.url).pathname);
export const LATEST_FILE = process.env.BENCH_RESULTS_FILE ?? path.join(ROOT, 'bench/results/latest.json');

/** A measured rate with the latency of the requests behind it (ms), when there are requests. */
export interface RateFigure {
  readonly perSecond: number;
  readonly p50Ms?: number;
  readonly p99Ms?: number;
}

/** When, where and on what a section was measured. */
export interface RunStamp {
  readonly measuredAt: string;
  readonly commit: string;
  readonly node: string;
  readonly cpus: number;
  /** 1-minute load average when the suite finished: a loaded shared machine moves every figure. */
  readonly loadAverage1m: number;
}

export interface SuiteSection extends RunStamp {
  /** The raw node:crypto Ed25519 verify rate measured in the same run (verify, http and auth suites). */
  readonly rawVerifyPerSecond?: number;
  readonly [figure: string]: unknown;
}

/** One named figure: its value, the latency behind it, and the run it comes from. */
export interface NamedFigure {
  readonly value: number;
  readonly p50Ms?: number;
  readonly p99Ms?: number;
  readonly suite: string;
  readonly measuredAt: string;
  readonly commit: string;
  readonly note?: string;
}

export interface LatestResults {
  readonly updatedAt: string;
  readonly commit: string;
  readonly node: string;
  readonly cpus: number;
  /** The raw verify rate of the verify suite's run (each ratio uses the raw rate of its own run). */
  readonly rawVerifyPerSecond?: number;
  readonly figures: Record<string, NamedFigure>;
  readonly suites: Record<string, SuiteSection>;
}

/** The checked-out commit (short), with `+dirty` when the work tree has uncommitted changes. */
export function currentCommit(): string {
  try {
    const sha = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT }).toString().trim();
    // The results file itself does not count: every suite rewrites it.
    const dirty = execFileSync(
      'git',
      ['status', '--porcelain', '--untracked-files=no', '--', '.', ':(exclude)bench/results'],
      { cwd: ROOT },
    )
      .toString()
      .trim();
    return dirty ? `${sha}+dirty` : sha;
  } catch {
    return 'unknown';
  }
}

export function runStamp(): RunStamp {
  return {
    measuredAt: new Date().toISOString(),
    commit: currentCommit(),
    node: process.version,
    cpus: availableParallelism(),
    loadAverage1m: Math.round(loadavg()[0] * 100) / 100,
  };
}

function readLatest(): Partial<LatestResults> {
  if (!existsSync(LATEST_FILE)) return {};
  try {
    return JSON.parse(readFileSync(LATEST_FILE, 'utf8')) as Partial<LatestResults>;
  } catch {
    return {}; // an unreadable file is replaced, not merged
  }
}

/** Writes (or replaces) `suite`'s section and re-derives the named figures; returns the new document. */
export function recordSuite(suite: string, figures: Record<string, unknown>): LatestResults {
  const previous = readLatest();
  const stamp = runStamp();
  const suites = { ...(previous.suites ?? {}), [suite]: { ...stamp, ...figures } as SuiteSection };
  const latest: LatestResults = {
    updatedAt: stamp.measuredAt,
    commit: stamp.commit,
    node: stamp.node,
    cpus: stamp.cpus,
    rawVerifyPerSecond: suites.verify?.rawVerifyPerSecond,
    figures: deriveFigures(suites),
    suites,
  };
  mkdirSync(path.dirname(LATEST_FILE), { recursive: true });
  const temporary = `${LATEST_FILE}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(latest, null, 2)}\n`);
  renameSync(temporary, LATEST_FILE);
  console.log(`\nwrote the ${suite} section of ${path.relative(ROOT, LATEST_FILE)}`);
  return latest;
}

const round = (n: number, digits = 3) => Math.round(n * 10 ** digits) / 10 ** digits;

/** The named figures, from whichever sections are present. */
export function deriveFigures(suites: Record<string, SuiteSection>): Record<string, NamedFigure> {
  const out: Record<string, NamedFigure> = {};
  const from = (suite: string, section: SuiteSection) => ({
    suite,
    measuredAt: section.measuredAt,
    commit: section.commit,
  });

  const verify = suites.verify as (SuiteSection & { stores?: Record<string, RateFigure> }) | undefined;
  if (verify?.rawVerifyPerSecond && verify.stores) {
    const raw = verify.rawVerifyPerSecond;
    const names: Record<string, string> = {
      sqlite: 'verifyDefaultStoreToRawVerify',
      memory: 'verifyMemoryStoreToRawVerify',
      redis: 'verifyRedisStoreToRawVerify',
    };
    for (const [store, name] of Object.entries(names)) {
      const f = verify.stores[store];
      if (!f) continue;
      out[name] = {
        value: round(f.perSecond / raw),
        p50Ms: f.p50Ms,
        p99Ms: f.p99Ms,
        ...from('verify', verify),
        note: `POST /api/identity/verify, fresh valid lines, STORE=${store}, npm start's thread pool`,
      };
    }
  }

  const http = suites.http as
    | (SuiteSection & {
        bare?: RateFigure;
        health?: RateFigure;
        root?: RateFigure;
        client?: string;
        toBare?: { health: number; root: number };
      })
    | undefined;
  if (http?.bare && http.health && http.root) {
    // Sections since 2026-11-23 12:30 record the median of the rounds' ratios; older ones the rates only.
    const toBare = http.toBare ?? {
      health: http.health.perSecond / http.bare.perSecond,
      root: http.root.perSecond / http.bare.perSecond,
    };
    const lower = toBare.health <= toBare.root ? 'health' : 'root';
    const f = http[lower]!;
    out.appGetToBareFastify = {
      value: round(toBare[lower]),
      p50Ms: f.p50Ms,
      p99Ms: f.p99Ms,
      ...from('http', http),
      // A section without a client was sent by autocannon (sections record it since 2026-11-23).
      note: `the lower of GET / and GET /health (${lower === 'health' ? 'GET /health' : 'GET /'}) ÷ bare Fastify${http.toBare ? " (median of the rounds' ratios)" : ''}, default store, sent by ${http.client ?? 'autocannon'}`,
    };
  }

  const auth = suites.auth as
    | (SuiteSection & {
        client?: string;
        /** `median-of-rounds` when `jwtTierOverhead` is the median of the rounds' ratios (from 2026-11-23 12:30). */
        ratios?: string;
        stores?: Record<
          string,
          {
            rawVerifyPerSecond: number;
            login: RateFigure;
            publicRoute: RateFigure;
            jwtRoute: RateFigure;
            jwtTierOverhead?: number;
          }
        >;
      })
    | undefined;
  if (auth?.stores) {
    const suffix: Record<string, string> = { sqlite: '', memory: 'Memory', redis: 'Redis' };
    for (const [store, s] of Object.entries(auth.stores)) {
      if (suffix[store] === undefined) continue;
      out[`loginToRawVerify${suffix[store]}`] = {
        value: round(s.login.perSecond / s.rawVerifyPerSecond),
        p50Ms: s.login.p50Ms,
        p99Ms: s.login.p99Ms,
        ...from('auth', auth),
        note: `POST /api/login (full login, sent by wrk since 2026-11-23; autocannon before) ÷ raw verify, STORE=${store}`,
      };
      out[`jwtTierOverhead${suffix[store]}`] = {
        value: round(
          auth.ratios === 'median-of-rounds' && s.jwtTierOverhead !== undefined
            ? s.jwtTierOverhead
            : s.publicRoute.perSecond / s.jwtRoute.perSecond - 1,
        ),
        p50Ms: s.jwtRoute.p50Ms,
        p99Ms: s.jwtRoute.p99Ms,
        ...from('auth', auth),
        note: `GET /api/login/timestamp ÷ GET /api/holanonce16ts (JWT) − 1, interleaved slices sent by ${auth.client ?? 'autocannon'}${auth.ratios === 'median-of-rounds' ? " (median of the rounds' ratios)" : ''}, STORE=${store}; latency of the JWT route`,
      };
    }
  }
  return out;
}
