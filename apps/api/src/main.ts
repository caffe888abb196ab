/**
 * Entry point: validates the configuration (a bad value stops the process with one line naming the
 * variable), starts the server, and on SIGTERM/SIGINT drains it and exits 0 (platform/lifecycle/graceful-shutdown.ts).
 */
// Nothing is imported before the early stop's handlers but them: a stop asked for while the configuration
// module and its imports load (~0.3-0.9 s on a loaded machine) was node's death by the signal, exit 143.
import { type AppConfig } from './platform/config/app-config.js';
import { EarlyStop } from './platform/lifecycle/early-stop.js';
import { startFailureMessage } from './platform/lifecycle/start-failure.message.js';

let startedConfig: AppConfig | undefined;

async function main(): Promise<void> {
  // A stop asked for while starting is kept and honoured once the app stands (EarlyStop).
  const earlyStop = new EarlyStop();
  await import('reflect-metadata');
  const { ConfigError, loadConfig } = await import('./platform/config/app-config.js');
  let config;
  try {
    config = loadConfig(process.env);
    startedConfig = config;
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(1);
    }
    throw err;
  }
  // Loaded only once the configuration is valid, so a bad value fails fast and alone.
  const { startApp } = await import('./app.factory.js');
  const { exitOnShutdownSignals, exitAfterLogFlush } =
    await import('./platform/lifecycle/graceful-shutdown.js');
  const { app, url } = await startApp(config);
  const log = app.getHttpAdapter().getInstance().log;
  if (earlyStop.signal !== null) {
    // The early handlers stay until the exit: a second signal while closing is absorbed, not node's
    // death by the signal (a review: the log's flush wait widened that window to 2 s).
    log.info({ signal: earlyStop.signal }, 'stop asked for while starting: closing');
    await app.close();
    return exitAfterLogFlush(log, 0);
  }
  earlyStop.handOver(() => exitOnShutdownSignals(app, config, log));
  log.info({ url, publicBaseUrl: config.publicBaseUrl }, 'Passport Identity API listening');
}

main().catch((err: unknown) => {
  process.stderr.write(`${startFailureMessage(err, startedConfig)}\n`);
  process.exit(1);
});
