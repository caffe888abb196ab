/**
 * The Redis connection every `STORE=redis` adapter uses (ioredis: typed, maintained, Lua scripts
 * registered once and sent as EVALSHA with a transparent EVAL fallback after a server restart, and the
 * same client API for Redis Cluster).
 *
 * Failure behaviour is decided here: no offline queue (a command while disconnected fails at once
 * instead of waiting for a reconnect), one attempt per command, and a per-command timeout, so a slow or
 * dead Redis costs a request at most `commandTimeoutMs`. The client keeps reconnecting in the background
 * (capped backoff), so a returning Redis is used again without a restart.
 */
import { Redis } from 'ioredis';
export interface RedisClientOptions {
    /** Milliseconds one command may take before it fails (default 500). */
    readonly commandTimeoutMs?: number;
    /** Milliseconds to establish a connection (default 2000). */
    readonly connectTimeoutMs?: number;
}
export declare const DEFAULT_REDIS_COMMAND_TIMEOUT_MS = 500;
export declare function createRedisClient(url: string, options?: RedisClientOptions): Redis;
/** A Lua script registered on a client (sent as EVALSHA; ioredis re-sends the body after NOSCRIPT). */
export declare function defineScript(client: Redis, name: string, numberOfKeys: number, lua: string): (...args: Array<string | number>) => Promise<unknown>;
/** `value` as a Lua-safe decimal string that round-trips a double exactly. */
export declare function exactNumber(value: number): string;
/**
 * Resolves once the client is connected, or after `timeoutMs` (never rejects: a fleet instance starts
 * while Redis is down, reports `degraded` and serves what it can until Redis returns).
 */
export declare function whenConnected(client: Redis, timeoutMs: number): Promise<boolean>;
