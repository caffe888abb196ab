/**
 * Watches whether Redis may evict keys. A replay record has an expiry (`PX`), so every `volatile-*` and
 * `allkeys-*` `maxmemory-policy` may drop live ones under memory pressure, and a used HOLA line or
 * login challenge would then be accepted again (3 of 30 used lines verified a second time under
 * `volatile-lru`, the default of some managed Redis services). Only `noeviction` keeps the
 * promise that a live record is never evicted (a full Redis refuses writes instead, and the stores
 * fail closed).
 *
 * The policy is read with `INFO memory` (managed services that disable `CONFIG` still answer it) when
 * the client connects and then every `intervalMs`, since an operator may change it at runtime.
 * `problem` names an evicting policy (or one not read yet); the replay store refuses to record while
 * there is one. On a Redis Cluster every master is read, and one that may evict is a problem: a Cluster
 * client's INFO goes to any node, so reading one failed open whenever another node held the records
 * (a probe: 61 of 61 used lines recorded again).
 */
import { Cluster, type Redis } from 'ioredis';
import { type RedisConnection } from './redis-client.js';

export interface RedisEvictionWatchOptions {
  /** How often the policy is read again (default 5 s). */
  readonly intervalMs?: number;
}

export class RedisEvictionWatch {
  private policy: string | null = null;
  private readable = true;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly redis: RedisConnection,
    options: RedisEvictionWatchOptions = {},
  ) {
    this.timer = setInterval(() => void this.refresh(), options.intervalMs ?? 5000);
    this.timer.unref();
    // A lost connection may come back to another Redis (a restart with another policy): until the
    // policy is read on the new connection, it is not known (else entries are recorded against a
    // restarted allkeys-lru Redis before the refresh).
    redis.on('close', () => {
      this.policy = null;
    });
    redis.on('ready', () => void this.refresh());
  }

  /** Reads the policy now (a failed read leaves the last one known). */
  async refresh(): Promise<void> {
    const nodes: Redis[] = this.redis instanceof Cluster ? this.redis.nodes('master') : [this.redis];
    let policies: Array<string | null>;
    try {
      if (nodes.length === 0) throw new Error('no master known yet');
      policies = await Promise.all(
        nodes.map(async (node) => /^maxmemory_policy:(\S+)/m.exec(await node.info('memory'))?.[1] ?? null),
      );
    } catch (error) {
      // A server that refuses INFO itself (not a connection failure) cannot be checked.
      if (/unknown command|NOPERM|disabled/i.test(String((error as Error)?.message))) this.readable = false;
      return;
    }
    this.readable = true;
    // The worst answer: a master whose policy is not read, or one that may evict, is not safe.
    const unsafe = policies.findIndex((policy) => policy !== 'noeviction');
    this.policy = unsafe === -1 ? 'noeviction' : policies[unsafe];
  }

  /** The policy last read, or null before the first read. */
  get maxmemoryPolicy(): string | null {
    return this.policy;
  }

  /**
   * Why live records may be evicted, or undefined when Redis never evicts. Before the policy is first
   * read it is not known to be safe, so that counts as a reason too; a Redis that refuses `INFO` (an
   * ACL without `@dangerous`) cannot be checked, and is trusted on the operator's word (health says so).
   */
  get problem(): string | undefined {
    if (this.policy === 'noeviction') return undefined;
    if (this.policy === null) return this.readable ? 'maxmemory-policy not read yet' : undefined;
    return `maxmemory-policy ${this.policy} may evict live replay records (set noeviction)`;
  }

  /** A note for health when the policy cannot be read (INFO refused). */
  get unknown(): string | undefined {
    return this.readable ? undefined : 'maxmemory-policy unknown (INFO refused): make sure it is noeviction';
  }

  stop(): void {
    clearInterval(this.timer);
  }
}
