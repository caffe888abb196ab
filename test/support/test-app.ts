/**
 * Starts the real application for end-to-end tests: a temporary DATA_DIR (the development family is
 * created there on start), 127.0.0.1 on a free port, silent logs, the real modules. `env` overrides
 * any variable (e.g. `{ STORE: 'memory', RATE_LIMIT_CAPACITY: '3' }`).
 *
 * PUBLIC_BASE_URL must name the port the server really listens on (HOLA lines, MCP host checks), and
 * configuration is fixed before listening, so a free port is picked first and then used.
 */
import 'reflect-metadata';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type NestFastifyApplication } from '@nestjs/platform-fastify';
import { startApp, type AppOptions } from '../../apps/api/src/app.factory.js';
import { loadConfig } from '../../apps/api/src/platform/config/app-config.js';

export interface TestApp {
  readonly baseUrl: string;
  readonly app: NestFastifyApplication;
  readonly dataDir: string;
  close(): Promise<void>;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** `options.clock`: a clock the test drives (e.g. the core's FixedClock) in place of the system clock. */
export async function startTestApp(
  env: Record<string, string> = {},
  options: AppOptions = {},
): Promise<TestApp> {
  // A DATA_DIR given by the caller (restart tests) belongs to the caller: used, never deleted.
  const ownsDataDir = env.DATA_DIR === undefined;
  const dataDir = env.DATA_DIR ?? (await mkdtemp(path.join(tmpdir(), 'passport-test-')));
  const port = env.PORT ?? String(await freePort());
  const config = loadConfig({
    HOST: '127.0.0.1',
    PORT: port,
    PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
    DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    ...env,
  });
  let started;
  try {
    started = await startApp(config, options);
  } catch (err) {
    if (ownsDataDir) await rm(dataDir, { recursive: true, force: true });
    throw err;
  }
  const { app, url } = started;
  return {
    baseUrl: url,
    app,
    dataDir,
    close: async () => {
      await app.close();
      if (ownsDataDir) await rm(dataDir, { recursive: true, force: true });
    },
  };
}
