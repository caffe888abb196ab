/**
 * `POST /api/testhola` (and `/api/identity/verify`, whose verdicts the older metrics suite did not count) feeds the HOLA verification counters as `/api/identity/verify` does (the verify
 * surface: `passport_verify_total{outcome}` and `passport_verify_failure_reasons_total{reason}` on
 * `GET /metrics`): a line that passes counts as verified, a line that fails a gate after parsing (stale)
 * as rejected with its reason, and a line that does not parse as invalid. Real app over HTTP, scraped
 * with METRICS_TOKEN; counts are compared before and after each request.
 */
import { bearer, mintAndLogin, type TestKey } from '../support/passports.js';
import { parsePrometheusText } from '../support/prometheus-text.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { holaLine, postJson } from '../verify/hola-lines.js';

const TOKEN = 'scrape-token-of-the-testhola-metrics-0123456789';

describe('testhola and verify in the verification counters', () => {
  let app: TestApp;
  let post: ReturnType<typeof postJson>;
  let caller: { tokenId: string; jwt: string; key: TestKey };

  beforeAll(async () => {
    app = await startTestApp({ STORE: 'memory', METRICS_TOKEN: TOKEN });
    post = postJson(app);
    caller = await mintAndLogin(app);
  });
  afterAll(() => app.close());

  /** The verify counters now: outcome → count, and reason → count. */
  const counters = async () => {
    const res = await fetch(`${app.baseUrl}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(res.status).toBe(200);
    const families = parsePrometheusText(await res.text());
    const read = (name: string, label: string): Record<string, number> =>
      Object.fromEntries(
        (families.get(name)?.samples ?? []).map((s) => [s.labels[label] ?? '', s.value] as const),
      );
    return {
      outcome: read('passport_verify_total', 'outcome'),
      reason: read('passport_verify_failure_reasons_total', 'reason'),
    };
  };
  const delta = (after: Record<string, number>, before: Record<string, number>) =>
    Object.fromEntries(
      Object.entries(after)
        .map(([k, v]) => [k, v - (before[k] ?? 0)] as const)
        .filter(([, d]) => d !== 0),
    );
  const testhola = (hola: unknown) => post('/api/testhola', { hola }, bearer(caller.jwt));
  const line = (shiftMs = 0) => holaLine(app, { sender: caller.tokenId, signer: caller.key.signer, shiftMs });

  it('a line that passes: verified +1', async () => {
    const before = await counters();
    expect((await testhola(line())).status).toBe(200);
    const after = await counters();
    expect(delta(after.outcome, before.outcome)).toEqual({ verified: 1 });
    expect(delta(after.reason, before.reason)).toEqual({});
  });

  it('a stale line (400 HOLA_TIMESTAMP_INVALID): rejected +1, with its reason', async () => {
    const before = await counters();
    const res = await testhola(line(-10 * 60_000));
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('HOLA_TIMESTAMP_INVALID');
    const after = await counters();
    expect(delta(after.outcome, before.outcome)).toEqual({ rejected: 1 });
    expect(Object.values(delta(after.reason, before.reason))).toEqual([1]);
  });

  it('/api/identity/verify: a line that passes is verified +1; a stale one (200, verified false) rejected +1', async () => {
    const verify = (hola: string) => post('/api/identity/verify', { hola });
    let before = await counters();
    expect((await verify(line())).body.verified).toBe(true);
    let after = await counters();
    expect(delta(after.outcome, before.outcome)).toEqual({ verified: 1 });
    before = after;
    const stale = await verify(line(-10 * 60_000));
    expect(stale.status).toBe(200);
    expect(stale.body.verified).toBe(false);
    after = await counters();
    expect(delta(after.outcome, before.outcome)).toEqual({ rejected: 1 });
    expect(Object.values(delta(after.reason, before.reason))).toEqual([1]);
  });

  it('a line that does not parse (400 HOLA_VALIDATION_FAILED): invalid +1', async () => {
    const before = await counters();
    const res = await testhola('HOLA/short');
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('HOLA_VALIDATION_FAILED');
    const after = await counters();
    expect(delta(after.outcome, before.outcome)).toEqual({ invalid: 1 });
  });
});
