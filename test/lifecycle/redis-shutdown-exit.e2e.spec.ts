/**
 * SIGTERM to a STORE=redis server: a clean stop exits 0 (docker/README.md: "then it exits 0"). A probe
 * of rolling upgrades found about half of such stops (3 of 6, and both instances of one rolling upgrade
 * behind nginx) end with status 1 and `Error: SonicBoom destroyed` on stderr after "shutdown: closed":
 * the store's close disconnects the Redis client, whose 'close' event comes after the log stream was
 * ended (exitAfterLogFlush), and the handler's "redis connection lost, reconnecting" warning (a false
 * one at every stop) is written to the ended stream, which throws.
 */
import { startServerProcess } from '../support/server-process.js';
import { startRedisServer, type RedisServer } from '../support/redis-server.js';

let redis: RedisServer;
beforeAll(async () => {
  redis = await startRedisServer();
});
afterAll(async () => {
  await redis.stop();
});

it('a SIGTERM stop exits 0 with no stack trace and no "connection lost" warning, every time', async () => {
  const outcomes: Array<{ code: number | null; crashed: boolean; warned: boolean }> = [];
  for (let run = 0; run < 6; run++) {
    const server = await startServerProcess({ STORE: 'redis', REDIS_URL: redis.url });
    try {
      server.child.kill('SIGTERM');
      const code = await server.exited;
      const output = server.output();
      outcomes.push({
        code,
        crashed: output.includes('SonicBoom destroyed'),
        warned: output.includes('redis connection lost'),
      });
    } finally {
      await server.dispose();
    }
  }
  expect(outcomes).toEqual(Array(6).fill({ code: 0, crashed: false, warned: false }));
}, 180_000);
