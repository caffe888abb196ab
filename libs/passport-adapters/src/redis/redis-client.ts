/**
 * The Redis connection every `STORE=redis` adapter uses (ioredis: typed, maintained, Lua scripts
 * registered once and sent as EVALSHA with a transparent EVAL fallback after a server restart, and the
 * same client API for Redis Cluster).
 *
 * Commands issued in one turn of the event loop are sent together (auto-pipelining; script calls on a
 * socket corked for the turn, see defineScript).
 *
 * Failure behaviour is decided here: no offline queue (a command while disconnected fails at once
 * instead of waiting for a reconnect), one attempt per command, and a per-command timeout, so a slow or
 * dead Redis costs a request at most `commandTimeoutMs`. The client keeps reconnecting in the background
 * (capped backoff), so a returning Redis is used again without a restart. A connection that gives no
 * data for four command timeouts (at least 2 s) while commands wait is dropped and made again: ioredis
 * keeps a command that timed out until its reply comes, so a Redis that stopped answering without
 * closing the connection (paused, a network cut) grew the client's queue without bound (a probe: about
 * 6 000 commands and 14 MB a minute, all of them long failed).
 */
import { createHash } from 'node:crypto';
import { printableText } from '@passport/core/codecs';
import { type Cluster, Redis } from 'ioredis';

/**
 * What the adapters take: one Redis, or a Redis Cluster (ioredis's `Cluster`). Every script declares
 * keys under its store's one hash tag, so a Cluster client sends it to the master of that slot.
 */
export type RedisConnection = Redis | Cluster;

export interface RedisClientOptions {
  /** Milliseconds one command may take before it fails (default 500). */
  readonly commandTimeoutMs?: number | undefined;
  /** Milliseconds to establish a connection (default 2000). */
  readonly connectTimeoutMs?: number | undefined;
}

export const DEFAULT_REDIS_COMMAND_TIMEOUT_MS = 500;

/** How long a connection may give no data while commands wait before it is dropped (ms). */
export function silentConnectionTimeoutMs(commandTimeoutMs: number): number {
  return Math.max(4 * commandTimeoutMs, 2000);
}

export function createRedisClient(url: string, options: RedisClientOptions = {}): Redis {
  const commandTimeout = options.commandTimeoutMs ?? DEFAULT_REDIS_COMMAND_TIMEOUT_MS;
  const client = new Redis(url, {
    commandTimeout,
    socketTimeout: silentConnectionTimeoutMs(commandTimeout),
    connectTimeout: options.connectTimeoutMs ?? 2000,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    // Reconnect forever, at most every second: recovery needs no restart.
    retryStrategy: (attempt: number) => Math.min(50 * attempt, 1000),
    lazyConnect: false,
    // Commands issued in one turn of the event loop go out in one write (and Redis answers them in
    // one): under load, far fewer system calls and context switches on both sides for the same
    // commands, in the same order.
    enableAutoPipelining: true,
  });
  // ioredis clears its silent-connection timer only when data arrives, never when the connection
  // closes: armed on a connection that Redis then reset (a restart with commands waiting), it fired on the
  // reconnected one up to 2 s later and dropped it, failing its commands (a review). Cleared on close.
  client.on('close', () => {
    const internal = client as unknown as { socketTimeoutTimer?: NodeJS.Timeout };
    if (internal.socketTimeoutTimer === undefined) return;
    clearTimeout(internal.socketTimeoutTimer);
    internal.socketTimeoutTimer = undefined;
  });
  // Errors surface on the commands that fail; an unhandled 'error' event would crash the process.
  // One is fatal: ioredis selects the URL's database on each connection and reports a refusal only
  // here, then goes on with database 0, where fleets kept apart by database index would share replay
  // records and sessions. The client fails closed instead (every command fails: verify and the JWT
  // routes answer 503) and says why. A command sent in the same round trip as the refused SELECT may
  // still have reached database 0.
  const database = new URL(url).pathname.slice(1) || '0';
  // Why the connection is down, for the operator (health and the log): an operator who gave a wrong
  // password, a CA the client does not trust or a plaintext port for rediss:// saw only "redis
  // unavailable". ioredis's messages name no secret (a refused AUTH's arguments are on the error's
  // `command`, never in its message). Forgotten once the connection is ready.
  client.on('error', (error: Error) => {
    connectionErrors.set(client, printableText(error.message, MAX_CONNECTION_ERROR_LENGTH));
  });
  client.on('ready', () => connectionErrors.delete(client));
  client.on('error', (error: Error) => {
    // Any refusal of the SELECT (an index out of range, an ACL user without SELECT: NOPERM, a proxy
    // that forbids it) leaves the connection on database 0.
    const command = (error as Error & { command?: { name?: string } }).command;
    if (command?.name !== 'select' && !/DB index is out of range|invalid DB index/i.test(error.message))
      return;
    problems.set(
      client,
      `the server refused database ${database} of the Redis URL (${error.message}); fix REDIS_URL`,
    );
    client.disconnect();
  });
  return client;
}

const problems = new WeakMap<Redis, string>();
const connectionErrors = new WeakMap<Redis, string>();
const MAX_CONNECTION_ERROR_LENGTH = 200;

/**
 * What the connection of a client made by createRedisClient last failed with (`WRONGPASS …`, `connect
 * ECONNREFUSED …`, `self-signed certificate in certificate chain`) while it is not ready, or undefined.
 */
export function redisConnectionError(client: Redis): string | undefined {
  return connectionErrors.get(client);
}

/** Why a client made by createRedisClient stopped for good (a refused database index), or undefined. */
export function redisClientProblem(client: Redis): string | undefined {
  return problems.get(client);
}

/**
 * A Lua script registered on a client (sent as EVALSHA; ioredis sends the body as EVAL on a connection's
 * first use and again after NOSCRIPT).
 *
 * Script calls skip ioredis's auto-pipelining (a Pipeline, a queued closure and two more promises per
 * call, and every call's arguments copied once more) and are written to the socket at once, while it is
 * corked for the rest of the event-loop turn: the script calls of one turn still leave in one write (one
 * system call, one read for Redis), in the order they were made. Commands not sent through a script
 * keep auto-pipelining, which writes them at the end of the turn: a script call made after such a
 * command in the same turn reaches Redis before it. No caller depends on that order today (the plain
 * commands are reads: ZCARD, PING); a caller that writes with a plain command and then runs a script
 * that must see the write has to await the write first. With 50 concurrent verifies this cut the
 * client's CPU per verify by about a third.
 */
export function defineScript(
  client: RedisConnection,
  name: string,
  numberOfKeys: number,
  lua: string,
): (...args: Array<string | number>) => Promise<unknown> {
  const command = registerScriptCommand(client, name, lua, numberOfKeys);
  return (...args) => {
    corkForThisTurn(client);
    return command.apply(client, args);
  };
}

/**
 * Registers `lua` on `client` as a command kept out of auto-pipelining and returns it (bound to nothing:
 * call it with the client as `this`). Without `numberOfKeys` each call passes its key count first.
 */
export function registerScriptCommand(
  client: RedisConnection,
  name: string,
  lua: string,
  numberOfKeys?: number,
): (...args: Array<string | number>) => Promise<unknown> {
  // Stores build their fixed keys and caps into their scripts, so two stores on one client may define
  // different scripts under one name: the name on the client is made unique per script text.
  const unique = `${name}:${createHash('sha1').update(lua).digest('hex').slice(0, 12)}`;
  client.defineCommand(unique, numberOfKeys === undefined ? { lua } : { numberOfKeys, lua });
  // A new array: ioredis's default options share one empty list among all clients.
  const ignored = client.options.autoPipeliningIgnoredCommands ?? [];
  if (!ignored.includes(unique)) client.options.autoPipeliningIgnoredCommands = [...ignored, unique];
  return (client as unknown as Record<string, (...a: Array<string | number>) => Promise<unknown>>)[unique];
}

/** The sockets corked until the end of this event-loop turn (uncorked together by one setImmediate). */
const corkedSockets = new Set<NonNullable<Redis['stream']>>();
/** Work to run at the end of this turn before the sockets are uncorked (batched scripts' flushes). */
const endOfTurnTasks: Array<() => void> = [];
let endOfTurnScheduled = false;

function scheduleEndOfTurn(): void {
  if (endOfTurnScheduled) return;
  endOfTurnScheduled = true;
  setImmediate(endOfTurn);
}

/** Corks `client`'s socket until the end of this turn (no-op when it is already corked or not writable). */
export function corkForThisTurn(client: RedisConnection): void {
  // A Cluster has a connection per node and none of its own: nothing to cork.
  const socket = 'stream' in client ? client.stream : undefined;
  if (!socket || corkedSockets.has(socket) || !socket.writable) return;
  scheduleEndOfTurn();
  corkedSockets.add(socket);
  socket.cork();
}

/**
 * Runs `task` at the end of this event-loop turn (setImmediate), before the corked sockets are
 * uncorked: what it writes to a corked socket leaves in the same write as the turn's other calls.
 */
export function atEndOfTurn(task: () => void): void {
  scheduleEndOfTurn();
  endOfTurnTasks.push(task);
}

function endOfTurn(): void {
  // Tasks first (they may cork more sockets: still part of this run), then every socket uncorked on
  // its own: were a task or an uncork ever to throw (none is known to), no other socket may stay corked
  // and later turns must still cork and uncork.
  const tasks = endOfTurnTasks.splice(0);
  for (const task of tasks) {
    try {
      task();
    } catch {
      // A task reports its own failures to its callers; the others still run.
    }
  }
  const sockets = [...corkedSockets];
  corkedSockets.clear();
  for (const socket of sockets) {
    try {
      socket.uncork();
    } catch {
      // That socket's commands fail with it (per-command timeout); the others are written.
    }
  }
  endOfTurnScheduled = false;
  if (endOfTurnTasks.length > 0 || corkedSockets.size > 0) scheduleEndOfTurn();
}

/**
 * Lua prelude: `serverNow` is Redis's own clock in ms (`TIME`; scripts may call it before writing since
 * Redis 5, which replicates their effects), and `earlier(now)` the earlier of it and a caller's `now`.
 * Fleet instances' clocks differ; Redis's is the one they share.
 */
export const SERVER_CLOCK_LUA = `
local serverTime = redis.call('TIME')
local serverNow = tonumber(serverTime[1]) * 1000 + math.floor(tonumber(serverTime[2]) / 1000)
local function earlier(now) return math.min(now, serverNow) end
`;

/**
 * Lua: a write Redis refuses when it is out of memory and that changes nothing otherwise (SETRANGE of an
 * empty string on a missing key creates nothing), on the key the Lua expression `keyExpression` names
 * (under the script's hash tag). Redis checks a script for OOM only up to its first write: a script that
 * begins by dropping expired entries (writes Redis allows when full) then goes on to SET and ZADD on a
 * full Redis (40 of 40 MCP sessions would be admitted past maxmemory). Run first, it refuses the whole
 * script instead.
 */
export function refuseWhenFullLua(keyExpression: string): string {
  return `redis.call('SETRANGE', ${keyExpression}, 0, '')`;
}

/**
 * `text` as a Lua string literal (every byte outside a plain set as a decimal escape), for values a
 * store fixes once (key prefixes) and builds into its scripts instead of sending them with every call.
 */
export function luaString(text: string): string {
  let out = '"';
  for (const byte of Buffer.from(text, 'utf8')) {
    const c = String.fromCharCode(byte);
    out += /[A-Za-z0-9:{}|_.-]/.test(c) ? c : `\\${String(byte).padStart(3, '0')}`;
  }
  return `${out}"`;
}

/** `value` as a Lua number literal (a cap of Infinity is math.huge). */
export function luaNumber(value: number): string {
  if (Number.isFinite(value)) return String(value);
  if (Number.isNaN(value)) throw new RangeError('not a number');
  return value > 0 ? 'math.huge' : '-math.huge';
}

/**
 * Resolves once the client is connected, or after `timeoutMs` (never rejects: a fleet instance starts
 * while Redis is down, reports `degraded` and serves what it can until Redis returns).
 */
export function whenConnected(client: Redis, timeoutMs: number): Promise<boolean> {
  if (client.status === 'ready') return Promise.resolve(true);
  return new Promise((resolve) => {
    const done = (ok: boolean): void => {
      clearTimeout(timer);
      client.off('ready', onReady);
      resolve(ok);
    };
    const onReady = (): void => done(true);
    const timer = setTimeout(() => done(false), timeoutMs);
    client.once('ready', onReady);
  });
}
