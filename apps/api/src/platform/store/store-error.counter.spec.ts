import { PassportError } from '@passport/core/errors';
import { RecordingPausedError, SessionCapacityError } from '@passport/core/ports';
import { countingStoreErrors } from './store-error.counter.js';

/** A stand-in store whose methods fail the way real adapters do (sync throw, rejected promise). */
class FailingStore {
  constructor(private readonly error: unknown) {}
  syncOp(): never {
    throw this.error;
  }
  async asyncOp(): Promise<never> {
    throw this.error;
  }
  ok(): number {
    return 1;
  }
  getSync(): never {
    throw this.error;
  }
}

describe('countingStoreErrors', () => {
  const run = async (error: unknown): Promise<string[]> => {
    const counted: string[] = [];
    const store = countingStoreErrors(new FailingStore(error), 'replay', (s, op) =>
      counted.push(`${s}.${op}`),
    );
    expect(() => store.syncOp()).toThrow();
    await expect(store.asyncOp()).rejects.toBe(error);
    expect(store.ok()).toBe(1);
    expect(() => store.getSync()).toThrow();
    return counted;
  };

  it('counts failures, sync and async, and passes the error on unchanged', async () => {
    expect(await run(new Error('disk I/O error'))).toEqual(['replay.syncOp', 'replay.asyncOp', 'replay.get']);
  });

  it('counts a synchronous variant (getSync) under its operation (get)', async () => {
    expect(await run(new Error('disk I/O error'))).toContain('replay.get');
  });

  it('does not count refusals by policy (full store, sender quota, sessions at capacity)', async () => {
    expect(await run(new PassportError('REPLAY_STORE_FULL'))).toEqual([]);
    expect(await run(new PassportError('REPLAY_QUOTA_EXCEEDED'))).toEqual([]);
    expect(await run(new SessionCapacityError(10))).toEqual([]);
    // Nor a decided pause (the hold after a loss of replay records): a probe saw its refusals alert as
    // store failures.
    expect(await run(new RecordingPausedError('held', 1000))).toEqual([]);
  });
});
