/**
 * Work for the moment a draining instance stops accepting connections: features whose responses never
 * finish on their own (an MCP session's event stream) end them then, so the drain completes as soon as
 * the requests in flight do instead of waiting `DRAIN_TIMEOUT_MS` to cut them (a probe: one idle SDK
 * client made every SIGTERM take the whole 10 s). Not before: while the instance still accepts
 * (`DRAIN_DELAY_MS`) a client would reconnect its stream here.
 */
import { Injectable, Logger } from '@nestjs/common';

@Injectable()
export class DrainListeners {
  private readonly logger = new Logger('Lifecycle');
  private readonly listeners: Array<() => void> = [];

  /** Registers `listener`, called once when the server has stopped accepting connections. */
  onStoppedAccepting(listener: () => void): void {
    this.listeners.push(listener);
  }

  /** Calls every listener; one that throws is logged and the others still run (the drain must go on). */
  stoppedAccepting(): void {
    for (const listener of this.listeners) {
      try {
        listener();
      } catch (err) {
        this.logger.warn(`a drain listener failed: ${(err as Error).message}`);
      }
    }
  }
}
