/**
 * ReplayStore on Redis. One Lua script (EVALSHA) makes `recordIfAbsent` atomic across every instance
 * sharing the server: of N concurrent calls with one key exactly one is `recorded`.
 *
 * Keys (all under one hash tag, so the script's keys share a Redis Cluster slot):
 * - `<prefix>{replay}:r:<key>`  string `firstSeenMs:expiresAtMs`, with `PX = expiresAtMs - nowMs`
 *   (the record's own lifetime; expiry is also compared with the caller's `nowMs`, exactly as the
 *   other stores do, so a record is live until `expiresAtMs` exclusive);
 * - `<prefix>{replay}:exp`      sorted set key → expiresAtMs: the count, the cap and the sweep;
 * - `<prefix>{replay}:o:<owner>` sorted set key → expiresAtMs: the per-owner quota.
 * A live record is never evicted: a full store (`maxEntries`, after dropping expired entries) refuses
 * with REPLAY_STORE_FULL and an owner at its quota with REPLAY_QUOTA_EXCEEDED. Any Redis error is
 * thrown as it is, so the caller fails closed (REPLAY_STORE_UNAVAILABLE).
 */
import { type Redis } from 'ioredis';
import { type ReplayStore } from '@passport/core';
import { type RecordOutcome, type RecordQuota, type ReplayStoreUsage } from '@passport/core/ports';
export declare const DEFAULT_REDIS_REPLAY_MAX_ENTRIES = 1000000;
export interface RedisReplayStoreOptions {
    /** Key prefix shared by every adapter of one deployment (default `passport:`). */
    readonly prefix?: string;
    /** Live records held at most (default 1 000 000). */
    readonly maxEntries?: number;
}
export declare class RedisReplayStore implements ReplayStore {
    private readonly redis;
    readonly maxEntries: number;
    private readonly base;
    private readonly record;
    private readonly sweepScript;
    private refusedFullCount;
    private refusedQuotaCount;
    private lastFullAtMs;
    private lastFailure;
    constructor(redis: Redis, options?: RedisReplayStoreOptions);
    recordIfAbsent(key: string, nowMs: number, expiresAtMs: number, quota?: RecordQuota): Promise<RecordOutcome>;
    /** Deletes expired records (in batches); returns how many were removed. */
    sweep(nowMs: number): Promise<number>;
    /** Records held (expired ones not yet swept included). */
    get size(): Promise<number>;
    /** Wall-clock time of the last request this store failed to serve (not a refusal), or null. */
    get lastFailureAtMs(): number | null;
    usage(): Promise<ReplayStoreUsage>;
}
