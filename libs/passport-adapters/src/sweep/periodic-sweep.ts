/**
 * A background sweep on an unref'd interval: it never keeps the process alive, and `stop()` (called when
 * the store closes) ends it. A failing sweep is reported and retried at the next tick; it must never crash
 * the process, because the stores stay correct without it (it only bounds their size).
 */
export interface PeriodicSweep {
  stop(): void;
}

export function startPeriodicSweep(
  sweep: () => void,
  intervalMs: number,
  onError: (error: unknown) => void = () => undefined,
): PeriodicSweep {
  if (!(intervalMs > 0)) return { stop: () => undefined };
  const timer = setInterval(() => {
    try {
      sweep();
    } catch (error) {
      onError(error);
    }
  }, intervalMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
