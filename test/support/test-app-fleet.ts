/**
 * Instances of the app on one real redis-server (STORE=redis), sharing a DATA_DIR and a public base URL
 * (the first instance's): a fleet behind a balancer, as the fleet e2e suites need it.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startRedisServer, type RedisServer } from './redis-server.js';
import { freePort, startTestApp, type TestApp } from './test-app.js';

export interface TestAppFleet {
  readonly redis: RedisServer;
  readonly instances: TestApp[];
  /** The URL every instance announces (PUBLIC_BASE_URL); its host is the one MCP requests must name. */
  readonly publicBaseUrl: string;
  close(): Promise<void>;
}

export async function startTestAppFleet(
  count: number,
  env: Record<string, string> = {},
): Promise<TestAppFleet> {
  const redis = await startRedisServer();
  const dataDir = await mkdtemp(path.join(tmpdir(), 'passport-fleet-'));
  const ports = [await freePort()];
  while (ports.length < count) ports.push(await freePort());
  const publicBaseUrl = `http://127.0.0.1:${ports[0]}`;
  const instances: TestApp[] = [];
  const close = async () => {
    for (const app of instances) await app.close();
    await redis.stop();
    await rm(dataDir, { recursive: true, force: true });
  };
  try {
    for (const port of ports)
      instances.push(
        await startTestApp({
          STORE: 'redis',
          REDIS_URL: redis.url,
          DATA_DIR: dataDir,
          PORT: String(port),
          PUBLIC_BASE_URL: publicBaseUrl,
          ...env,
        }),
      );
  } catch (err) {
    await close();
    throw err;
  }
  return { redis, instances, publicBaseUrl, close };
}
