/**
 * A background sweep on an unref'd interval: it never keeps the process alive, and `stop()` (called when
 * the store closes) ends it. A failing sweep is reported and retried at the next tick; it must never crash
 * the process, because the stores stay correct without it (it only bounds their size).
 */
export interface PeriodicSweep {
  stop(): void;
}

/**
 * `sweep` may be synchronous (SQLite, memory) or return a promise (Redis): a rejection is reported as a
 * throw is (an integrator's Redis sweep, passed straight in, crashed the process on an unhandled
 * rejection while Redis was down). A sweep still running when the next tick comes is not started again,
 * so a promise that never settles stops the sweeps: the adapters' Redis client times out every command.
 */
export function startPeriodicSweep(
  sweep: () => unknown,
  intervalMs: number,
  onError: (error: unknown) => void = () => undefined,
): PeriodicSweep {
  if (!(intervalMs > 0)) return { stop: () => undefined };
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    try {
      const pending = sweep();
      if (typeof (pending as PromiseLike<unknown> | null)?.then === 'function') {
        running = true;
        (pending as PromiseLike<unknown>).then(
          () => (running = false),
          (error: unknown) => {
            running = false;
            onError(error);
          },
        );
      }
    } catch (error) {
      onError(error);
    }
  }, intervalMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
