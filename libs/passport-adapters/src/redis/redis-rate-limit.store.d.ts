/**
 * RateLimitStore on Redis: each `take` is one round trip, a Lua script (EVALSHA) running the same
 * token-bucket arithmetic as the core's `takeToken` (burst, refill, float tolerance, retry-after), so
 * every instance sharing the server drains one bucket and concurrent takes never lose an update.
 *
 * Keys (one hash tag per namespace, so the script's keys share a Redis Cluster slot):
 * - `<prefix>{rl:<ns>}:b:<key>` hash `t` (tokens), `u` (updated ms), with `PX` until the bucket is full
 *   again (a full bucket means the same as no bucket);
 * - `<prefix>{rl:<ns>}:lru`  sorted set key → updated ms (least recently used first, for the cap);
 * - `<prefix>{rl:<ns>}:full` sorted set key → when the bucket is full again (the sweep).
 * Bounded like the SQLite adapter: a new bucket beyond `maxEntries` first drops full buckets, then the
 * least recently used ones (which resets them to full).
 */
import { type Redis } from 'ioredis';
import { type BucketPolicy, type RateLimitStore, type TakeResult } from '@passport/core/ports';
export declare const DEFAULT_REDIS_RATE_LIMIT_MAX_ENTRIES = 100000;
export interface RedisRateLimitStoreOptions {
    /** Key prefix shared by every adapter of one deployment (default `passport:`). */
    readonly prefix?: string;
    /** Bucket namespace, e.g. `public` (per address) or `passport` (per passport). */
    readonly namespace?: string;
    /** Buckets held at most (default 100 000). */
    readonly maxEntries?: number;
}
export declare class RedisRateLimitStore implements RateLimitStore {
    private readonly redis;
    readonly maxEntries: number;
    private readonly base;
    private readonly takeScript;
    private readonly sweepScript;
    constructor(redis: Redis, options?: RedisRateLimitStoreOptions);
    take(key: string, policy: BucketPolicy, nowMs: number): Promise<TakeResult>;
    sweep(nowMs: number): Promise<number>;
    /** Buckets held (full ones not yet swept included). */
    get size(): Promise<number>;
}
