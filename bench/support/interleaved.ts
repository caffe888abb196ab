/**
 * Several routes measured in alternating 1 s autocannon slices (after a 1 s warm-up each), so that drift
 * in the machine's load hits them alike: sequential 5 s runs of two routes differed by ±15 % (and a
 * route by up to 0.2 of its ratio) from run to run on the shared 2-core machine.
 */
import autocannon from 'autocannon';

export interface SliceFigures {
  readonly rps: number;
  /** The median of the slices' medians. */
  readonly p50: number;
  /** The worst slice's p99. */
  readonly p99: number;
  readonly ok: number;
  readonly total: number;
  readonly non2xx: number;
  readonly bytes: number;
}

export async function interleaved(
  routes: ReadonlyArray<readonly [url: string, headers: Record<string, string>]>,
  options: { readonly seconds: number; readonly connections: number },
): Promise<SliceFigures[]> {
  const { seconds, connections } = options;
  for (const [url, headers] of routes) await autocannon({ url, connections, duration: 1, headers });
  const sums = routes.map(() => ({ requests: 0, ok: 0, bytes: 0, p99: 0, p50s: [] as number[] }));
  for (let slice = 0; slice < seconds; slice++) {
    for (const [i, [url, headers]] of routes.entries()) {
      const r = await autocannon({ url, connections, duration: 1, headers });
      sums[i].requests += r.requests.total;
      sums[i].ok += r['2xx'];
      sums[i].bytes += r.throughput.total;
      sums[i].p99 = Math.max(sums[i].p99, r.latency.p99);
      sums[i].p50s.push(r.latency.p50);
    }
  }
  return sums.map((s) => ({
    rps: s.requests / seconds,
    p50: s.p50s.sort((a, b) => a - b)[Math.floor(s.p50s.length / 2)] ?? NaN,
    p99: s.p99,
    ok: s.ok,
    total: s.requests,
    non2xx: s.requests - s.ok,
    bytes: s.bytes / Math.max(1, s.requests),
  }));
}
