/**
 * Graceful shutdown on SIGTERM (and SIGINT), so an instance can leave a fleet without losing requests:
 * 1. `GET /health/ready` answers 503 at once; for `DRAIN_DELAY_MS` the instance still accepts new
 *    connections, so balancers and orchestrators that poll readiness stop sending traffic first;
 * 2. it stops accepting connections, ends MCP event streams (they never finish on their own), and lets
 *    in-flight requests finish, closing each keep-alive connection as soon as it is idle; after
 *    `DRAIN_TIMEOUT_MS` the connections still open are cut;
 * 3. the application closes: MCP transports and sessions, stores, sweeps (Nest's shutdown hooks);
 * 4. the process exits 0.
 */
import { type Server } from 'node:http';
import { type NestFastifyApplication } from '@nestjs/platform-fastify';
import { exitAfterLogFlush } from '../logging/exit-after-log-flush.js';
import { DrainListeners } from './drain-listeners.js';
import { Readiness } from './readiness.js';

/** For main.ts's stop during start, which loads this module already. */
export { exitAfterLogFlush };

export interface DrainOptions {
  readonly drainDelayMs: number;
  readonly drainTimeoutMs: number;
}

export interface ShutdownLog {
  info(fields: Record<string, unknown>, message: string): void;
  warn(fields: Record<string, unknown>, message: string): void;
}

/** How often idle keep-alive connections are closed while draining. */
const IDLE_SWEEP_MS = 20;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Drains and closes the app; resolves when everything is closed (never rejects for a cut connection). */
export async function drainAndClose(
  app: NestFastifyApplication,
  options: DrainOptions,
  log: ShutdownLog,
): Promise<void> {
  app.get(Readiness).markDraining();
  log.info(
    { drainDelayMs: options.drainDelayMs, drainTimeoutMs: options.drainTimeoutMs },
    'shutdown: draining',
  );
  if (options.drainDelayMs > 0) await sleep(options.drainDelayMs);

  const server = app.getHttpServer() as Server;
  const allClosed = new Promise<void>((resolve) => server.close(() => resolve()));
  app.get(DrainListeners).stoppedAccepting();
  server.closeIdleConnections();
  const sweep = setInterval(() => server.closeIdleConnections(), IDLE_SWEEP_MS);
  let timer: NodeJS.Timeout | undefined;
  const drained = await Promise.race([
    allClosed.then(() => true),
    new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), options.drainTimeoutMs))),
  ]);
  clearInterval(sweep);
  clearTimeout(timer);
  if (!drained) {
    log.warn(
      { drainTimeoutMs: options.drainTimeoutMs },
      'shutdown: drain timeout, closing the remaining connections',
    );
    server.closeAllConnections();
  }
  await app.close();
  log.info({ drained }, 'shutdown: closed');
}

/**
 * Installs the signal handlers: the first SIGTERM or SIGINT starts the shutdown, which ends the process
 * with 0 (1 if closing the app failed); further signals are ignored while it runs.
 */
export function exitOnShutdownSignals(
  app: NestFastifyApplication,
  options: DrainOptions,
  log: ShutdownLog,
): void {
  let started = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (started) return;
    started = true;
    log.info({ signal }, 'shutdown: signal received');
    drainAndClose(app, options, log).then(
      () => exitAfterLogFlush(log, 0),
      (err: unknown) => {
        log.warn({ err }, 'shutdown: closing failed');
        exitAfterLogFlush(log, 1);
      },
    );
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
}
