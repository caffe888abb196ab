/**
 * Several routes measured in alternating 1 s slices (after a 1 s warm-up each), so that drift in the
 * machine's load hits them alike: sequential 5 s runs of two routes differed by ±15 % (and a route by up
 * to 0.2 of its ratio) from run to run on the shared 2-core machine. The order turns round every round
 * (A B, B A, A B, …), so that neither route is always the one measured right after the other; and a
 * figure comparing two routes is the median of the rounds' own ratios (`medianRatio`), which one
 * disturbed slice does not move: in a quiet run with the routes always in one order, the JWT tier's
 * overhead read +16.4, −14.2 and −2.1 % on three stores whose JWT path differs by one session read.
 *
 * The slices are sent by autocannon (JavaScript, in this process), the client the http and JWT-tier
 * figures and their goals were first measured with; `BENCH_CLIENT=wrk` sends them with wrk (C; Debian's
 * package, which scripts/bench.sh installs). The client shares the two cores with the servers, so its
 * cost per response is part of every figure: autocannon's is several times wrk's, which narrows the
 * distance between a bare route and the app (`GET /` ÷ bare was 0.42 with wrk in a quiet run, the bare
 * route at 51 000 requests/s, and 0.56 with autocannon in the next quiet run, the bare route at 38 000).
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import autocannon from 'autocannon';
import { parseWrk } from './wrk-output.js';
import { median } from './median.js';

export interface SliceFigures {
  readonly rps: number;
  /** The median of the slices' medians. */
  readonly p50: number;
  /** The worst slice's p99. */
  readonly p99: number;
  readonly ok: number;
  readonly total: number;
  readonly non2xx: number;
  /** Bytes read per response (headers and body). */
  readonly bytes: number;
  /** The client that sent the slices. */
  readonly client: SliceClient;
  /** Requests per second of each round's slice, in round order. */
  readonly sliceRates: readonly number[];
}

export type SliceClient = 'wrk' | 'autocannon';

interface Slice {
  readonly requests: number;
  readonly seconds: number;
  readonly ok: number;
  readonly bytes: number;
  readonly p50: number;
  readonly p99: number;
}

type Route = readonly [url: string, headers: Record<string, string>];

const run = promisify(execFile);

/** The client named by BENCH_CLIENT (default autocannon). */
export function sliceClient(): SliceClient {
  const name = process.env.BENCH_CLIENT ?? 'autocannon';
  if (name !== 'wrk' && name !== 'autocannon')
    throw new Error(`BENCH_CLIENT must be wrk or autocannon, not ${name}`);
  return name;
}

async function wrkSlice([url, headers]: Route, connections: number): Promise<Slice> {
  const headerArgs = Object.entries(headers).flatMap(([name, value]) => ['-H', `${name}: ${value}`]);
  const { stdout } = await run('wrk', ['-t1', `-c${connections}`, '-d1s', '--latency', ...headerArgs, url]);
  const f = parseWrk(stdout);
  if (f.socketErrors > 0) console.warn(`wrk: ${f.socketErrors} socket errors in a 1 s slice of ${url}`);
  return {
    requests: f.total,
    seconds: f.seconds,
    // wrk's total counts completed responses only (a socket error is not one of them).
    ok: f.total - f.non2xx,
    bytes: f.bytes,
    p50: f.p50,
    p99: f.p99,
  };
}

async function autocannonSlice([url, headers]: Route, connections: number): Promise<Slice> {
  const r = await autocannon({ url, connections, duration: 1, headers });
  return {
    requests: r.requests.total,
    seconds: r.duration, // seconds (autocannon rounds to 10 ms)
    ok: r['2xx'],
    bytes: r.throughput.total,
    p50: r.latency.p50,
    p99: r.latency.p99,
  };
}

export async function interleaved(
  routes: readonly Route[],
  options: { readonly seconds: number; readonly connections: number; readonly client?: SliceClient },
): Promise<SliceFigures[]> {
  const { seconds, connections } = options;
  const client = options.client ?? sliceClient();
  const slice = client === 'wrk' ? wrkSlice : autocannonSlice;
  for (const route of routes) await slice(route, connections);
  const sums = routes.map(() => ({
    requests: 0,
    seconds: 0,
    ok: 0,
    bytes: 0,
    p99: 0,
    p50s: [] as number[],
    rates: [] as number[],
  }));
  const order = [...routes.keys()];
  for (let n = 0; n < seconds; n++) {
    for (const i of n % 2 === 0 ? order : [...order].reverse()) {
      const s = await slice(routes[i], connections);
      sums[i].rates.push(s.requests / s.seconds);
      sums[i].requests += s.requests;
      sums[i].seconds += s.seconds;
      sums[i].ok += s.ok;
      sums[i].bytes += s.bytes;
      sums[i].p99 = Math.max(sums[i].p99, s.p99);
      sums[i].p50s.push(s.p50);
    }
  }
  return sums.map((s) => ({
    rps: s.requests / s.seconds,
    p50: s.p50s.length > 0 ? median(s.p50s) : NaN,
    p99: s.p99,
    ok: s.ok,
    total: s.requests,
    non2xx: s.requests - s.ok,
    bytes: s.bytes / Math.max(1, s.requests),
    client,
    sliceRates: s.rates,
  }));
}
