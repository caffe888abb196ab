/**
 * The figures of one `wrk --latency` run, read from its printed summary (Debian's wrk 4.1). A summary
 * without them (wrk failed, or ran without `--latency`) throws: a figure must not become NaN quietly.
 */
export interface WrkFigures {
  /** wrk's own "Requests/sec". */
  readonly rps: number;
  /** Responses read. */
  readonly total: number;
  /** How long the run really took (`-d1s` runs about 1.1 s). */
  readonly seconds: number;
  /** Responses that were not 2xx or 3xx. */
  readonly non2xx: number;
  /** Requests that got no response (connect, read, write errors and timeouts). */
  readonly socketErrors: number;
  /** Bytes read, headers and bodies. */
  readonly bytes: number;
  /** Latency percentiles, milliseconds. */
  readonly p50: number;
  readonly p99: number;
}

const UNIT_MS = { us: 0.001, ms: 1, s: 1000 } as const;
const UNIT_BYTES = { B: 1, KB: 1024, MB: 1024 ** 2, GB: 1024 ** 3 } as const;

export function parseWrk(out: string): WrkFigures {
  const latency = (label: string) => {
    const match = new RegExp(`^\\s*${label}\\s+([\\d.]+)(us|ms|s)$`, 'm').exec(out);
    if (!match) throw new Error(`wrk printed no ${label} latency:\n${out}`);
    return Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS];
  };
  const totals = /(\d+) requests in ([\d.]+)(ms|s|m), ([\d.]+)(B|KB|MB|GB) read/.exec(out);
  const rps = /Requests\/sec:\s+([\d.]+)/.exec(out);
  if (!totals || !rps) throw new Error(`wrk printed no totals:\n${out}`);
  const errors = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out);
  const unitSeconds = { ms: 0.001, s: 1, m: 60 }[totals[3] as 'ms' | 's' | 'm'];
  return {
    rps: Number(rps[1]),
    total: Number(totals[1]),
    seconds: Number(totals[2]) * unitSeconds,
    non2xx: Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(out)?.[1] ?? 0),
    socketErrors: errors ? errors.slice(1).reduce((sum, n) => sum + Number(n), 0) : 0,
    bytes: Number(totals[4]) * UNIT_BYTES[totals[5] as keyof typeof UNIT_BYTES],
    p50: latency('50%'),
    p99: latency('99%'),
  };
}
