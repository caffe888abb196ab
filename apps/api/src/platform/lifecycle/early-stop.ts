/**
 * A stop asked for while the app starts (the start may wait ~2 s for a Redis that is down): kept, and
 * honoured by main.ts once the app stands, so it closes and exits 0 instead of node's death by the signal
 * (exit 143). The hand-over to the running app's handlers adds those before it removes these: with no
 * listener left for a moment, node closes the signal's watcher, and a signal libuv had caught but not yet
 * dispatched was dropped (a probe under load: a SIGTERM sent as the start ended was lost, and the process
 * ran on, ready, until a second one).
 */
export class EarlyStop {
  private asked: NodeJS.Signals | null = null;
  private readonly onSignal = (signal: NodeJS.Signals): void => {
    this.asked ??= signal;
  };

  constructor(private readonly signals: readonly NodeJS.Signals[] = ['SIGTERM', 'SIGINT']) {
    for (const signal of signals) process.on(signal, this.onSignal);
  }

  /** The first signal received since construction, or null. */
  get signal(): NodeJS.Signals | null {
    return this.asked;
  }

  /** Installs the running app's handlers (`install`), then removes the early ones. */
  handOver(install: () => void): void {
    install();
    for (const signal of this.signals) process.off(signal, this.onSignal);
  }
}
