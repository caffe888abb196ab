/**
 * The adapters under test, behind one harness per port, so that each behavioural suite runs unchanged
 * against the core's memory adapter, the SQLite adapter (a real database file in a temp dir) and the
 * Redis adapter (a real redis-server started for the test file, each harness under its own key prefix).
 * SQLite and Redis harnesses can also open a second connection to the same storage (a second app
 * instance) and reconnect after closing everything (a restart of the app instance).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MemoryReplayStore, type ReplayStore } from '@passport/core';
import { MemoryRateLimitStore, MemorySessionStore } from '@passport/core/testing';
import { type RateLimitStore, type ReplayStoreUsage, type SessionStore } from '@passport/core/ports';
import { SqliteDatabase } from '../../../apps/api/src/store/sqlite.database.js';
import { SqliteRateLimitStore } from '../../../apps/api/src/store/sqlite-rate-limit.store.js';
import { SqliteReplayStore } from '../../../apps/api/src/store/sqlite-replay.store.js';
import { SqliteSessionStore } from '../../../apps/api/src/store/sqlite-session.store.js';
import { Redis } from 'ioredis';
import { RedisRateLimitStore, RedisReplayStore, RedisSessionStore } from '../../../libs/passport-adapters/src/redis/index.js';
import { startRedisServer } from '../../support/redis-server.js';

export interface HarnessOptions {
  /** Row cap of the store under test. */
  readonly maxEntries?: number;
  /** Session stores only: open sessions per passport. */
  readonly maxOpenPerPassport?: number;
}

/** Stores with the adapter-specific extras the suites observe (synchronous in process, async on Redis). */
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

export interface Harness<S> {
  readonly store: S;
  /** A second store on the same storage (another app instance); null for single-process adapters. */
  openPeer(): S | null;
  /** Closes everything and opens the same storage again; null when the adapter does not persist. */
  restart(): S | null;
  /** The database file, for adapters that have one. */
  readonly file: string | null;
  close(): void;
}

export interface AdapterKind<S> {
  readonly name: 'memory' | 'sqlite' | 'redis';
  open(options?: HarnessOptions): Harness<S>;
}

function memoryKind<S>(make: (options: HarnessOptions) => S): AdapterKind<S> {
  return {
    name: 'memory',
    open(options = {}) {
      return {
        store: make(options),
        openPeer: () => null,
        restart: () => null,
        file: null,
        close: () => undefined,
      };
    },
  };
}

/** SQLite harness: every store opened on its own connection to one temp file; no background timers. */
function sqliteKind<S extends { dispose(): void }>(
  make: (db: SqliteDatabase, options: HarnessOptions) => S,
): AdapterKind<S> {
  return {
    name: 'sqlite',
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
      return {
        store: connect(),
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
let redisHarnesses = 0;

/** Redis harness: every store on its own client; each harness a fresh key prefix on the shared server. */
function redisKind<S>(make: (client: Redis, prefix: string, options: HarnessOptions) => S): AdapterKind<S> {
  return {
    name: 'redis',
    open(options = {}) {
      const prefix = `t${++redisHarnesses}:`;
      const clients: Redis[] = [];
      const connect = (): S => {
        const client = new Redis(redisServer.url, { maxRetriesPerRequest: 1 });
        clients.push(client);
        return make(client, prefix, options);
      };
      const closeAll = (): void => {
        for (const client of clients.splice(0)) client.disconnect();
      };
      return { store: connect(), openPeer: connect, restart: () => (closeAll(), connect()), file: null, close: closeAll };
    },
  };
}

const noTimer = { sweepIntervalMs: 0 };

export const replayAdapters: ReadonlyArray<AdapterKind<SweepableReplayStore>> = [
  memoryKind((o) => new MemoryReplayStore({ maxEntries: o.maxEntries })),
  sqliteKind((db, o) => new SqliteReplayStore(db, { ...noTimer, maxEntries: o.maxEntries })),
  redisKind((client, prefix, o) => new RedisReplayStore(client, { prefix, maxEntries: o.maxEntries })),
];

export const sessionAdapters: ReadonlyArray<AdapterKind<SweepableSessionStore>> = [
  memoryKind((o) => new MemorySessionStore({ maxEntries: o.maxEntries, maxOpenPerPassport: o.maxOpenPerPassport })),
  sqliteKind(
    (db, o) => new SqliteSessionStore(db, { ...noTimer, maxEntries: o.maxEntries, maxOpenPerPassport: o.maxOpenPerPassport }),
  ),
  redisKind(
    (client, prefix, o) =>
      new RedisSessionStore(client, { prefix, maxEntries: o.maxEntries, maxOpenPerPassport: o.maxOpenPerPassport }),
  ),
];

export const rateLimitAdapters: ReadonlyArray<AdapterKind<SweepableRateLimitStore>> = [
  memoryKind((o) => new MemoryRateLimitStore({ maxKeys: o.maxEntries })),
  sqliteKind((db, o) => new SqliteRateLimitStore(db, { ...noTimer, maxEntries: o.maxEntries })),
  redisKind((client, prefix, o) => new RedisRateLimitStore(client, { prefix, maxEntries: o.maxEntries })),
];
