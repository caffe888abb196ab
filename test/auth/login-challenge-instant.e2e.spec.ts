/**
 * GET /api/login/timestamp at a clock that is not on a whole second: the challenge is the floor of the
 * server time (docs/protocol.md §3), never rounded up into a second that has not begun yet, and both
 * fields name that one instant. The real app over HTTP, time driven by the core's FixedClock.
 */
import { FixedClock } from '@passport/core/testing';
import { contractClient } from '../support/contract-fetch.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

describe('GET /api/login/timestamp takes the floor of the server time', () => {
  const second = 1_776_595_620;
  let app: TestApp;
  let clock: FixedClock;
  let call: ReturnType<typeof contractClient>;

  beforeAll(async () => {
    clock = new FixedClock(second * 1000);
    app = await startTestApp({ STORE: 'memory' }, { clock });
    call = contractClient(app.baseUrl);
  });
  afterAll(() => app.close());

  it.each([0, 1, 499, 500, 999])('%i ms into a second: that second, ".000Z"', async (ms) => {
    clock.set(second * 1000 + ms);
    const res = await call('/api/login/timestamp');
    expect(res.status).toBe(200);
    expect(res.body.timestamp).toBe(second);
    expect(res.body.timestamp_iso).toBe('2026-04-19T10:47:00.000Z');
  });
});
