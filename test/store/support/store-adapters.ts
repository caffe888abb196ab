/**
 * The adapters this repo ships, behind the harnesses of the core's port contract suites
 * (@passport/core/testing), so that each contract runs against the core's memory adapter, the SQLite
 * adapter (a real database file in a temp dir) and the Redis adapter (a real redis-server started for
 * the test file, each harness under its own key prefix).
 * SQLite and Redis harnesses can also open a second connection to the same storage (a second app
 * instance) and reopen it after closing everything (a restart).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MemoryReplayStore, type ReplayStore } from '@passport/core';
import {
  type ContractStoreOptions,
  MemoryRateLimitStore,
  MemorySessionStore,
  type RateLimitStoreHarness,
  type ReplayStoreHarness,
  type SessionStoreHarness,
} from '@passport/core/testing';
import { type RateLimitStore, type ReplayStoreUsage, type SessionStore } from '@passport/core/ports';
import {
  SqliteDatabase,
  SqliteRateLimitStore,
  SqliteReplayStore,
  SqliteSessionStore,
} from '@passport/adapters/sqlite';
import { RedisRateLimitStore, RedisReplayStore, RedisSessionStore } from '@passport/adapters/redis';
import { Redis } from 'ioredis';
import { startRedisServer } from '../../support/redis-server.js';
import { type AdapterKind, type Inspect, redisKind } from './redis-kind.js';

/** Stores with the adapter-specific extras the harnesses expose (synchronous in process, async on Redis). */
export type SweepableReplayStore = ReplayStore & {
  sweep(nowMs: number): number | Promise<number>;
  readonly size: number | Promise<number>;
  usage(): ReplayStoreUsage | Promise<ReplayStoreUsage>;
};
export type SweepableSessionStore = SessionStore & { readonly size: number | Promise<number> };
export type SweepableRateLimitStore = RateLimitStore & {
  sweep(nowMs: number): number | Promise<number>;
  readonly size: number | Promise<number>;
};

export { type AdapterKind, type Harness } from './redis-kind.js';

function memoryKind<S, H>(
  make: (options: ContractStoreOptions) => S,
  inspect: Inspect<S, H>,
): AdapterKind<S, H> {
  return {
    name: 'memory',
    sharedStorage: false,
    open(options = {}) {
      const store = make(options);
      return {
        ...inspect(store),
        store,
        openPeer: () => null,
        restart: () => null,
        file: null,
        close: () => undefined,
      };
    },
  };
}

/** SQLite harness: every store opened on its own connection to one temp file; no background timers. */
function sqliteKind<S extends { dispose(): void }, H>(
  make: (db: SqliteDatabase, options: ContractStoreOptions) => S,
  inspect: Inspect<S, H>,
): AdapterKind<S, H> {
  return {
    name: 'sqlite',
    sharedStorage: true,
    open(options = {}) {
      const dir = mkdtempSync(join(tmpdir(), 'passport-store-'));
      const file = join(dir, 'passport.db');
      const open: Array<{ db: SqliteDatabase; store: S }> = [];
      const connect = (): S => {
        const db = SqliteDatabase.open(file);
        const store = make(db, options);
        open.push({ db, store });
        return store;
      };
      const closeAll = (): void => {
        for (const { db, store } of open.splice(0)) {
          store.dispose();
          db.close();
        }
      };
      const store = connect();
      return {
        ...inspect(store),
        store,
        openPeer: connect,
        restart: () => {
          closeAll();
          return connect();
        },
        file,
        close: () => {
          closeAll();
          rmSync(dir, { recursive: true, force: true });
        },
      };
    },
  };
}

// One redis-server per test file that imports this module, stopped after its last test.
const redisServer = await startRedisServer();
afterAll(() => redisServer.stop());

/** Redis harness on the file's redis-server: every store on its own client, each harness its own prefix. */
const onServer = () => new Redis(redisServer.url, { maxRetriesPerRequest: 1 });

const noTimer = { sweepIntervalMs: 0 };

const inspectReplay: Inspect<SweepableReplayStore, ReplayStoreHarness> = (store) => ({
  size: () => store.size,
  sweep: (nowMs) => store.sweep(nowMs),
  usage: () => store.usage(),
});
const inspectSessions: Inspect<SweepableSessionStore, SessionStoreHarness> = (store) => ({
  size: () => store.size,
});
const inspectRateLimit: Inspect<SweepableRateLimitStore, RateLimitStoreHarness> = (store) => ({
  size: () => store.size,
  sweep: (nowMs) => store.sweep(nowMs),
});

export const replayAdapters: ReadonlyArray<AdapterKind<SweepableReplayStore, ReplayStoreHarness>> = [
  memoryKind((o) => new MemoryReplayStore({ maxEntries: o.maxEntries }), inspectReplay),
  sqliteKind<SqliteReplayStore, ReplayStoreHarness>(
    // As for Redis below: the contract counts time on the caller's clock alone; the grace after expiry
    // is tested in replay-store.spec.ts.
    (db, o) => new SqliteReplayStore(db, { ...noTimer, maxEntries: o.maxEntries, expiredGraceMs: 0 }),
    inspectReplay,
  ),
  redisKind(
    onServer,
    // The contract counts time on the caller's clock alone; the margin for fleet clock skew is tested
    // in redis-clock-skew.spec.ts.
    (client, prefix, o) =>
      new RedisReplayStore(client, { prefix, maxEntries: o.maxEntries, clockSkewMarginMs: 0 }),
    inspectReplay,
  ),
];

export const sessionAdapters: ReadonlyArray<AdapterKind<SweepableSessionStore, SessionStoreHarness>> = [
  memoryKind(
    (o) => new MemorySessionStore({ maxEntries: o.maxEntries, maxOpenPerPassport: o.maxOpenPerPassport }),
    inspectSessions,
  ),
  sqliteKind<SqliteSessionStore, SessionStoreHarness>(
    (db, o) =>
      new SqliteSessionStore(db, {
        ...noTimer,
        maxEntries: o.maxEntries,
        maxOpenPerPassport: o.maxOpenPerPassport,
      }),
    inspectSessions,
  ),
  redisKind(
    onServer,
    (client, prefix, o) =>
      new RedisSessionStore(client, {
        prefix,
        maxEntries: o.maxEntries,
        maxOpenPerPassport: o.maxOpenPerPassport,
      }),
    inspectSessions,
  ),
];

export const rateLimitAdapters: ReadonlyArray<AdapterKind<SweepableRateLimitStore, RateLimitStoreHarness>> = [
  memoryKind((o) => new MemoryRateLimitStore({ maxKeys: o.maxEntries }), inspectRateLimit),
  sqliteKind<SqliteRateLimitStore, RateLimitStoreHarness>(
    (db, o) => new SqliteRateLimitStore(db, { ...noTimer, maxEntries: o.maxEntries }),
    inspectRateLimit,
  ),
  redisKind(
    onServer,
    (client, prefix, o) => new RedisRateLimitStore(client, { prefix, maxEntries: o.maxEntries }),
    inspectRateLimit,
  ),
];
