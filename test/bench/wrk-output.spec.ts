/**
 * The wrk output parser of the benches (bench/support/wrk-output.ts), on outputs
 * of Debian's wrk 4.1.0 (`wrk -t1 -c4 -d1s --latency`) against a local server. No timing is asserted.
 */
const { parseWrk } = await import('../../bench/support/wrk-output.js');

const allNon2xx = `Running 1s test @ http://127.0.0.1:43991/x
  1 threads and 4 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency   280.74us  688.71us  11.11ms   93.33%
    Req/Sec    33.67k    16.33k   49.06k    72.73%
  Latency Distribution
     50%   95.00us
     75%  167.00us
     90%  483.00us
     99%    3.48ms
  36757 requests in 1.10s, 4.70MB read
  Non-2xx or 3xx responses: 36757
Requests/sec:  33414.42
Transfer/sec:      4.27MB
`;

const withSocketErrors = `Running 1s test @ http://127.0.0.1:43991/
  1 threads and 4 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency   116.50us  290.90us   4.56ms   96.88%
    Req/Sec    56.20k    18.39k   70.38k    81.82%
  Latency Distribution
     50%   57.00us
     75%   88.00us
     90%  163.00us
     99%    1.80ms
  61315 requests in 1.10s, 7.43MB read
  Socket errors: connect 0, read 3, write 0, timeout 12
Requests/sec:  55773.46
Transfer/sec:      6.76MB
`;

describe('parseWrk', () => {
  it('reads the rate, responses, the run’s own duration, bytes and the latency percentiles in milliseconds', () => {
    const slice = parseWrk(withSocketErrors);
    expect(slice.rps).toBeCloseTo(55773.46, 6);
    expect(slice.total).toBe(61315);
    // wrk's "-d1s" ran 1.10 s: the rate is requests over that, not over the second asked for.
    expect(slice.seconds).toBeCloseTo(1.1, 6);
    expect(slice.bytes).toBeCloseTo(7.43 * 1024 * 1024, 0);
    expect(slice.p50).toBeCloseTo(0.057, 6);
    expect(slice.p99).toBeCloseTo(1.8, 6);
  });

  it('counts non-2xx responses and socket errors (0 when wrk prints no such line)', () => {
    expect(parseWrk(allNon2xx)).toMatchObject({ total: 36757, non2xx: 36757, socketErrors: 0 });
    expect(parseWrk(withSocketErrors)).toMatchObject({ non2xx: 0, socketErrors: 15 });
  });

  it('refuses output without the latency distribution or the totals (wrk failed or ran without --latency)', () => {
    expect(() => parseWrk(withSocketErrors.replace(/ {5}99%.*\n/, ''))).toThrow(/99%/);
    expect(() => parseWrk('unable to connect to 127.0.0.1:1 Connection refused\n')).toThrow();
  });
});
