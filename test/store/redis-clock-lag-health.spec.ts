/**
 * Fleet chaos probe (1.13.0): an instance 25 s behind Redis's clock (FAKETIME=-25s, within
 * REDIS_CLOCK_AGREEMENT_MS) reported `healthy` and ready while it answered every fresh HOLA line made on a
 * true clock `timestamp_stale_or_future` (2404 of 2404 through the edge; HOLA_FUTURE_SKEW_MS defaults to
 * 0) and refused its peers' JWTs 401 INVALIDATED_TOKEN (`not_yet_valid`, 527 of 1039: the nbf tolerance is
 * 5 s). Health names a lag only beyond 30 s, the login challenge's future allowance, though lines are
 * refused by a lag of about a second and tokens by one of 5 s. These cases pin that a lag large enough to
 * refuse true-clock lines and peers' tokens is named in health.
 */
import { clockSkewText } from '../../libs/passport-adapters/src/redis/redis-clock-report.js';

describe('health names a clock lag that refuses true-clock lines and peers tokens (fleet chaos probe)', () => {
  it('a lead within 30 s stays unnamed (lines on true clocks keep most of their window there)', () => {
    expect(clockSkewText(10_000, 0)).toBeUndefined();
  });

  it('a lag of 25 s is named: fresh lines made on true clocks are future there', () => {
    expect(clockSkewText(0, 25_000)).toEqual(expect.stringContaining('behind'));
  });

  it('a lag of 6 s is named: peers tokens are not valid yet there (nbf tolerance 5 s)', () => {
    expect(clockSkewText(0, 6_000)).toEqual(expect.stringContaining('behind'));
  });
});
