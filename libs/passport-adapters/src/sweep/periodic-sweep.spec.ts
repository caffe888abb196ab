/**
 * The background sweep: a synchronous throw and an asynchronous rejection are both reported, never
 * left to crash the process (an integrator's Redis sweep, passed straight in, ended the process on an
 * unhandled rejection while Redis was down); a sweep still running is not started again.
 */
import { startPeriodicSweep } from './periodic-sweep.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('startPeriodicSweep', () => {
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => unhandled.push(reason);
  beforeEach(() => {
    unhandled.length = 0;
    process.on('unhandledRejection', onUnhandled);
  });
  afterEach(() => {
    process.off('unhandledRejection', onUnhandled);
  });

  it('reports a rejected sweep to onError, with no unhandled rejection, and goes on sweeping', async () => {
    const errors: unknown[] = [];
    let calls = 0;
    const sweep = startPeriodicSweep(
      () => {
        calls++;
        return Promise.reject(new Error('Redis is down'));
      },
      10,
      (error) => errors.push(error),
    );
    // Until a second sweep ran (a fixed 80 ms saw one on a loaded machine, in a full run beside a helper).
    const deadline = Date.now() + 5000;
    while (calls < 2 && Date.now() < deadline) await sleep(10);
    sweep.stop();
    await sleep(20);
    expect(calls).toBeGreaterThanOrEqual(2);
    expect(errors).toHaveLength(calls);
    expect((errors[0] as Error).message).toBe('Redis is down');
    expect(unhandled).toEqual([]);
  });

  it('reports a synchronous throw the same way', async () => {
    const errors: unknown[] = [];
    const sweep = startPeriodicSweep(
      () => {
        throw new Error('closed');
      },
      10,
      (error) => errors.push(error),
    );
    await sleep(50);
    sweep.stop();
    expect(errors.length).toBeGreaterThanOrEqual(2);
  });

  it('does not start a sweep while the last one still runs', async () => {
    let running = 0;
    let most = 0;
    let calls = 0;
    const sweep = startPeriodicSweep(async () => {
      calls++;
      running++;
      most = Math.max(most, running);
      await sleep(45);
      running--;
    }, 10);
    await sleep(150);
    sweep.stop();
    await sleep(60);
    expect(most).toBe(1);
    expect(calls).toBeGreaterThanOrEqual(2);
    expect(calls).toBeLessThanOrEqual(4);
  });
});
