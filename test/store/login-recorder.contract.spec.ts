/**
 * The LoginRecorder contract (@passport/core/testing) against every recorder this repo ships: SQLite's
 * one transaction (a real file, a second connection as the peer), the memory family's composition
 * with an undo, and the plain composition `sequentialLoginRecorder` on memory and on Redis (a real
 * redis-server), which leaves a challenge used when its session is refused.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MemoryReplayStore, sequentialLoginRecorder } from '@passport/core';
import { type LoginRecorder, type SessionStore } from '@passport/core/ports';
import {
  describeLoginRecorderContract,
  type LoginRecorderAdapter,
  type LoginRecorderHarness,
  MemorySessionStore,
  singleProcessHarness,
} from '@passport/core/testing';
import {
  SqliteDatabase,
  SqliteLoginRecorder,
  SqliteReplayStore,
  SqliteSessionStore,
} from '@passport/adapters/sqlite';
import { RedisReplayStore, RedisSessionStore } from '@passport/adapters/redis';
import { Redis } from 'ioredis';
import { startRedisServer } from '../support/redis-server.js';

const framework = { describe, it, expect, beforeEach, afterEach };
const noTimer = { sweepIntervalMs: 0 };

/** `sessions` with a switch that makes its writes fail, as a store that is down does. */
function failable(sessions: SessionStore): { readonly store: SessionStore; fail(failing: boolean): void } {
  let failing = false;
  const store = new Proxy(sessions, {
    get(target, property, receiver) {
      if (property === 'create' && failing) return () => Promise.reject(new Error('session store down'));
      const value: unknown = Reflect.get(target, property, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return { store, fail: (next) => (failing = next) };
}

/** The memory family: one process; with `undo`, the record a refused session made is forgotten. */
const memory = (name: string, undo: boolean): LoginRecorderAdapter => ({
  name,
  atomic: undo,
  sharedStorage: false,
  open(options = {}): LoginRecorderHarness {
    const replay = new MemoryReplayStore();
    const sessions = new MemorySessionStore({ maxEntries: options.maxEntries });
    const writes = failable(sessions);
    const recorder = sequentialLoginRecorder(
      replay,
      writes.store,
      undo ? (key) => replay.forget(key) : undefined,
    );
    return singleProcessHarness(recorder, { sessions, failSessions: writes.fail });
  },
});

const sqlite: LoginRecorderAdapter = {
  name: 'sqlite',
  atomic: true,
  sharedStorage: true,
  open(options = {}): LoginRecorderHarness {
    const dir = mkdtempSync(join(tmpdir(), 'passport-login-contract-'));
    const file = join(dir, 'passport.db');
    const open: Array<() => void> = [];
    const connect = () => {
      const db = SqliteDatabase.open(file);
      const replay = new SqliteReplayStore(db, noTimer);
      const sessions = new SqliteSessionStore(db, { ...noTimer, maxEntries: options.maxEntries });
      const recorder = new SqliteLoginRecorder(db, replay, sessions);
      open.push(() => {
        recorder.dispose();
        replay.dispose();
        sessions.dispose();
        db.close();
      });
      return { recorder, sessions };
    };
    const first = connect();
    return {
      store: first.recorder,
      sessions: first.sessions,
      openPeer: (): LoginRecorder => connect().recorder,
      restart: () => null,
      close: () => {
        for (const close of open.splice(0)) close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  },
};

const redisServer = await startRedisServer();
afterAll(() => redisServer.stop());
let prefixes = 0;

const redis: LoginRecorderAdapter = {
  name: 'redis',
  atomic: false,
  sharedStorage: true,
  open(options = {}): LoginRecorderHarness {
    const prefix = `login${++prefixes}:`;
    const clients: Redis[] = [];
    const connect = () => {
      const client = new Redis(redisServer.url, { maxRetriesPerRequest: 1 });
      clients.push(client);
      const replay = new RedisReplayStore(client, { prefix, clockSkewMarginMs: 0 });
      const sessions = new RedisSessionStore(client, { prefix, maxEntries: options.maxEntries });
      const writes = failable(sessions);
      return { recorder: sequentialLoginRecorder(replay, writes.store), sessions, fail: writes.fail };
    };
    const first = connect();
    return {
      store: first.recorder,
      sessions: first.sessions,
      failSessions: first.fail,
      openPeer: (): LoginRecorder => connect().recorder,
      restart: () => null,
      close: () => {
        for (const client of clients.splice(0)) client.disconnect();
      },
    };
  },
};

for (const adapter of [
  sqlite,
  memory('memory, with the undo of STORE=memory', true),
  memory('sequentialLoginRecorder without an undo, on memory', false),
  redis,
])
  describeLoginRecorderContract(framework, adapter);
