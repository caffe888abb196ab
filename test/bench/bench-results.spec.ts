/**
 * The benchmark results file (bench/support/results.ts) and its history script, on made-up figures:
 * which named figures are derived from which sections, that a suite's section replaces only its own,
 * and the row and README table scripts/bench-history.mjs writes. No timing is asserted here.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const dir = mkdtempSync(path.join(tmpdir(), 'bench-results-'));
const file = path.join(dir, 'latest.json');
process.env.BENCH_RESULTS_FILE = file;
const { deriveFigures, recordSuite } = await import('../../bench/support/results.js');
const { median, medianRatio } = await import('../../bench/support/median.js');

afterAll(() => rmSync(dir, { recursive: true, force: true }));

const stamp = {
  measuredAt: '2026-11-23T00:00:00.000Z',
  commit: 'abc1234',
  node: 'v20',
  cpus: 2,
  loadAverage1m: 1,
};

describe('named benchmark figures', () => {
  it('verify ratios per store use the verify run’s own raw rate, with that run’s latency', () => {
    const figures = deriveFigures({
      verify: {
        ...stamp,
        rawVerifyPerSecond: 8000,
        stores: {
          sqlite: { perSecond: 6000, p50Ms: 10, p99Ms: 30 },
          memory: { perSecond: 7200, p50Ms: 8, p99Ms: 20 },
          redis: { perSecond: 6400, p50Ms: 9, p99Ms: 25 },
        },
      },
    });
    expect(figures.verifyDefaultStoreToRawVerify).toMatchObject({
      value: 0.75,
      p50Ms: 10,
      p99Ms: 30,
      suite: 'verify',
      commit: 'abc1234',
    });
    expect(figures.verifyMemoryStoreToRawVerify.value).toBe(0.9);
    expect(figures.verifyRedisStoreToRawVerify.value).toBe(0.8);
    expect(figures.appGetToBareFastify).toBeUndefined();
  });

  it('appGetToBareFastify is the lower of GET / and GET /health', () => {
    const http = (root: number, health: number) =>
      deriveFigures({
        http: {
          ...stamp,
          bare: { perSecond: 20000 },
          root: { perSecond: root, p50Ms: 1, p99Ms: 2 },
          health: { perSecond: health, p50Ms: 3, p99Ms: 4 },
        },
      }).appGetToBareFastify;
    expect(http(10000, 5000)).toMatchObject({ value: 0.25, p50Ms: 3, p99Ms: 4 });
    expect(http(4000, 5000)).toMatchObject({ value: 0.2, p50Ms: 1, p99Ms: 2 });
  });

  it('a section with the rounds’ median ratios (toBare) gives those, not the ratio of the rates', () => {
    const figure = deriveFigures({
      http: {
        ...stamp,
        bare: { perSecond: 20000 },
        root: { perSecond: 10000, p50Ms: 1, p99Ms: 2 },
        health: { perSecond: 12000, p50Ms: 3, p99Ms: 4 },
        toBare: { root: 0.62, health: 0.58 },
      },
    }).appGetToBareFastify;
    expect(figure).toMatchObject({ value: 0.58, p50Ms: 3, p99Ms: 4 });
    expect(figure.note).toContain('median of the rounds');
  });

  it('login and JWT tier figures per store; the default store’s carry no suffix', () => {
    const store = (login: number, publicRps: number, jwtRps: number) => ({
      rawVerifyPerSecond: 8000,
      login: { perSecond: login, p50Ms: 40, p99Ms: 90 },
      publicRoute: { perSecond: publicRps },
      jwtRoute: { perSecond: jwtRps, p50Ms: 5, p99Ms: 12 },
    });
    const figures = deriveFigures({
      auth: { ...stamp, stores: { sqlite: store(800, 6000, 5000), redis: store(1600, 5750, 5000) } },
    });
    expect(figures.loginToRawVerify).toMatchObject({ value: 0.1, p50Ms: 40, p99Ms: 90 });
    expect(figures.jwtTierOverhead).toMatchObject({ value: 0.2, p50Ms: 5, p99Ms: 12 });
    expect(figures.loginToRawVerifyRedis.value).toBe(0.2);
    expect(figures.jwtTierOverheadRedis.value).toBe(0.15);
    expect(figures.jwtTierOverheadMemory).toBeUndefined();
  });

  it('an auth section of median ratios gives each store’s recorded overhead; an older one the rates’ ratio', () => {
    const store = { ...{ rawVerifyPerSecond: 8000, login: { perSecond: 800 } }, jwtTierOverhead: 0.031 };
    const routes = { publicRoute: { perSecond: 6000 }, jwtRoute: { perSecond: 5000 } };
    const median = deriveFigures({
      auth: { ...stamp, ratios: 'median-of-rounds', stores: { sqlite: { ...store, ...routes } } },
    });
    expect(median.jwtTierOverhead.value).toBe(0.031);
    expect(median.jwtTierOverhead.note).toContain('median of the rounds');
    const older = deriveFigures({ auth: { ...stamp, stores: { sqlite: { ...store, ...routes } } } });
    expect(older.jwtTierOverhead.value).toBe(0.2);
    expect(older.jwtTierOverhead.note).not.toContain('median');
  });
});

describe('interleaved slices', () => {
  const figures = (sliceRates: number[]) => ({ sliceRates });

  it('medianRatio is the median of the rounds’ own ratios, so one disturbed round does not move it', () => {
    // Round 2 of the first route was cut by a burst of other load.
    expect(medianRatio(figures([900, 1000, 300, 950, 1000]), figures([1000, 1000, 1000, 1000, 1000]))).toBe(
      0.95,
    );
    expect(medianRatio(figures([10, 30]), figures([10, 10]))).toBe(2);
  });

  it('median takes the middle value, or the mean of the two middle values for an even count', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(() => median([])).toThrow(/no samples/);
  });

  it('medianRatio refuses rounds that do not pair up', () => {
    expect(() => medianRatio(figures([1, 2]), figures([1]))).toThrow(/same number of rounds/);
    expect(() => medianRatio(figures([]), figures([]))).toThrow(/at least one/);
  });
});

describe('bench/results/latest.json', () => {
  it('a suite replaces its own section and keeps the others with their own stamps', () => {
    recordSuite('http', { bare: { perSecond: 100 }, root: { perSecond: 50 }, health: { perSecond: 40 } });
    const first = JSON.parse(readFileSync(file, 'utf8'));
    recordSuite('verify', {
      rawVerifyPerSecond: 1000,
      stores: { sqlite: { perSecond: 500, p50Ms: 1, p99Ms: 2 } },
    });
    const second = JSON.parse(readFileSync(file, 'utf8'));
    expect(second.suites.http).toEqual(first.suites.http);
    expect(second.rawVerifyPerSecond).toBe(1000);
    expect(second.figures.appGetToBareFastify.value).toBe(0.4);
    expect(second.figures.verifyDefaultStoreToRawVerify.value).toBe(0.5);
    expect(second.node).toBe(process.version);
  });

  it('bench-history prints a history row and the README table from it', () => {
    const out = execFileSync(process.execPath, [path.resolve('scripts/bench-history.mjs'), '--dry-run'], {
      env: { ...process.env, BENCH_RESULTS_FILE: file },
    }).toString();
    const [row] = out.split('\n');
    expect(row.split('|').map((cell) => cell.trim())).toEqual(
      expect.arrayContaining(['1000', '0.50', '0.40']),
    );
    expect(out).toContain('| verify ÷ raw verify, default store (SQLite) | 0.50 | ≥ 0.9 | 1 / 2 |');
  });
});
