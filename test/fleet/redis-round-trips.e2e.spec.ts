/**
 * Redis commands per request on the hot paths (STORE=redis, the real app over HTTP, a real
 * redis-server watched with MONITOR): each command the app sends is a round trip it waits for, and
 * Redis's CPU is shared with the app's. The figures are pinned so that a change that adds one shows.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { bearer, mintAndLogin, mintPassport, newKey } from '../support/passports.js';
import { RedisMonitor, type MonitoredCommand } from '../support/redis-monitor.js';
import { startRedisServer, type RedisServer } from '../support/redis-server.js';
import { freePort, startTestApp, type TestApp } from '../support/test-app.js';
import { holaLine } from '../verify/hola-lines.js';

let redis: RedisServer;
let dataDir: string;
let app: TestApp;
let monitor: RedisMonitor;

beforeAll(async () => {
  redis = await startRedisServer();
  dataDir = await mkdtemp(path.join(tmpdir(), 'passport-trips-'));
  const port = await freePort();
  app = await startTestApp({
    STORE: 'redis',
    REDIS_URL: redis.url,
    DATA_DIR: dataDir,
    PORT: String(port),
    PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
  });
  monitor = await RedisMonitor.start(redis.url);
});
afterAll(async () => {
  monitor?.stop();
  await app?.close();
  await redis?.stop();
  await rm(dataDir, { recursive: true, force: true });
});

/** The commands the app sent Redis while `work` ran. */
async function commandsOf(work: () => Promise<unknown>): Promise<string[]> {
  await new Promise((resolve) => setTimeout(resolve, 50));
  await monitor.reset();
  await work();
  // Waits for anything the app sends after its reply, then until MONITOR delivered all of it.
  await new Promise((resolve) => setTimeout(resolve, 50));
  await monitor.settle();
  // Commands a script runs are listed with the source `lua`: they are not round trips.
  // A script's first use on a connection is an EVAL (its body), then EVALSHA: one round trip either way.
  return withoutWatches(monitor.commands.filter(({ source }) => source !== 'lua')).map(({ args }) =>
    args[0].toLowerCase().replace(/^evalsha$|^eval$/, 'script'),
  );
}

/**
 * `commands` without what the instance's own timers sent, not any request: every 5 s RedisEvictionWatch
 * reads INFO memory and RedisHistoryWatch its marker (MULTI, SET …{replay}:history NX, …, EXEC), in one
 * turn. A window that caught them (1 of 100 windows of the public route under CPU load) holds both; one
 * alone is left in, as is a second pair.
 */
function withoutWatches(commands: MonitoredCommand[]): MonitoredCommand[] {
  const name = (i: number) => commands[i]?.args[0]?.toLowerCase();
  const info = commands.findIndex(({ args }) => args[0].toLowerCase() === 'info' && args[1] === 'memory');
  const multi = commands.findIndex(
    (_, i) =>
      name(i) === 'multi' && name(i + 1) === 'set' && /\{replay\}:history$/.test(commands[i + 1].args[1]),
  );
  const exec = commands.findIndex((_, i) => i > multi && name(i) === 'exec');
  if (info === -1 || multi === -1 || exec === -1) return commands;
  return commands.filter((_, i) => i !== info && (i < multi || i > exec));
}

it('a verify of a fresh line costs 2 Redis commands (the public rate limit, the replay record)', async () => {
  const key = newKey();
  const { tokenId } = await mintPassport(app, { owner: key });
  const line = holaLine(app, { sender: tokenId, signer: key.signer });
  const commands = await commandsOf(async () => {
    const res = await fetch(`${app.baseUrl}/api/identity/verify`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ hola: line }),
    });
    expect(((await res.json()) as { verified: boolean }).verified).toBe(true);
  });
  expect(commands).toEqual(['script', 'script']);
});

const nonce = (jwt: string) => fetch(`${app.baseUrl}/api/holanonce16ts`, { headers: bearer(jwt) });

it('a JWT route costs 1 Redis command once its session was read: the public rate limit, which also reads the session epoch', async () => {
  const { jwt } = await mintAndLogin(app);
  // The first read of the session goes to Redis.
  expect(await commandsOf(async () => expect((await nonce(jwt)).status).toBe(200))).toEqual([
    'script',
    'script',
  ]);
  expect(await commandsOf(async () => expect((await nonce(jwt)).status).toBe(200))).toEqual(['script']);
});

it('after a change to any session (here another passport logs out) the next JWT request reads its session again', async () => {
  const { jwt } = await mintAndLogin(app);
  const other = await mintAndLogin(app);
  expect((await nonce(jwt)).status).toBe(200);
  const logout = await fetch(`${app.baseUrl}/api/logout`, {
    method: 'POST',
    headers: { ...bearer(other.jwt), 'content-type': 'application/json' },
    body: '{}',
  });
  expect(logout.status).toBe(200);
  expect(await commandsOf(async () => expect((await nonce(jwt)).status).toBe(200))).toEqual([
    'script',
    'script',
  ]);
});

it('a public route costs 1 Redis command (the public rate limit)', async () => {
  const commands = await commandsOf(async () => {
    expect((await fetch(`${app.baseUrl}/api/login/timestamp`)).status).toBe(200);
  });
  expect(commands).toEqual(['script']);
});
