/**
 * One redis-server for a suite of loss tests, started before the suite and stopped after it, and the
 * fleet's instances on it (a loss watch and a replay store on a connection of their own, as the server
 * wires them); every connection and watch made through it is closed with it.
 */
import { Redis } from 'ioredis';
import { RedisHistoryWatch, RedisReplayStore } from '@passport/adapters/redis';
import { startRedisServer, type RedisServer } from '../../support/redis-server.js';

export interface RedisLossFleet {
  /** The running server (after the suite's start). */
  readonly server: RedisServer;
  /** A new connection, closed with the suite. */
  client(): Redis;
  /** Stops `watch` with the suite. */
  track(watch: RedisHistoryWatch): RedisHistoryWatch;
  /** An instance of the fleet: the losses its watch reports are pushed to `losses`. */
  instance(
    prefix: string,
    holdMs: number,
  ): { client: Redis; watch: RedisHistoryWatch; store: RedisReplayStore; losses: number[] };
}

/** Call at a suite's top level: registers the suite's start and stop. */
export function redisLossFleet(): RedisLossFleet {
  let server: RedisServer | undefined;
  const clients: Redis[] = [];
  const watches: RedisHistoryWatch[] = [];
  beforeAll(async () => {
    server = await startRedisServer();
  });
  afterAll(async () => {
    for (const watch of watches) watch.stop();
    for (const client of clients) client.disconnect();
    await server?.stop();
  });
  const fleet: RedisLossFleet = {
    get server() {
      if (!server) throw new Error('redis-server is not started yet (use it inside a test)');
      return server;
    },
    client() {
      const client = new Redis(fleet.server.url);
      clients.push(client);
      return client;
    },
    track(watch) {
      watches.push(watch);
      return watch;
    },
    instance(prefix, holdMs) {
      const client = fleet.client();
      const losses: number[] = [];
      const watch = fleet.track(
        new RedisHistoryWatch(client, { prefix, holdMs, onLoss: (at) => losses.push(at) }),
      );
      const store = new RedisReplayStore(client, { prefix, clockSkewMarginMs: 0, history: watch });
      return { client, watch, store, losses };
    },
  };
  return fleet;
}
