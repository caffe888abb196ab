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
import { type Cluster, type Redis } from 'ioredis';
import { type RedisConnection } from './redis-client.js';

/**
 * `problem` before the policy is first read (and after a lost connection, until it is read again). On a
 * live connection the replay store refuses such a record as a pause (`RecordingPausedError`, retry after
 * a second), not as a failure of Redis: the watch reads the policy as soon as the client is ready. With
 * the connection down it is a failure (no Retry-After is promised).
 */
export const EVICTION_POLICY_NOT_READ = 'maxmemory-policy not read yet';

export interface RedisEvictionWatchOptions {
  /** How often the policy is read again (default 5 s). */
  readonly intervalMs?: number | undefined;
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
    if (redis.isCluster) {
      // A Cluster emits 'close' only when it ends as a whole: one master's connection lost (a restart,
      // a failover to a node with another policy) or a master joining makes the policy unknown too.
      const forget = () => {
        this.policy = null;
      };
      redis.on('+node', (node: Redis) => {
        forget();
        node.on('close', forget);
      });
      redis.on('-node', forget);
    }
  }

  /**
   * Reads the policy now. On one Redis a failed read leaves the last one known (its connection's
   * 'close' forgets it). On a Cluster every master is read, and the policy is unknown until all answer:
   * before the slots are known (the seed alone is a "master" then), or while one master does not answer,
   * another may evict unseen (a review).
   */
  async refresh(): Promise<void> {
    if (this.redis.isCluster) return this.refreshCluster(this.redis as Cluster);
    try {
      this.policy = policyOf(await this.redis.info('memory'));
      this.readable = true;
    } catch (error) {
      if (refusesInfo(error)) this.readable = false;
    }
  }

  private async refreshCluster(cluster: Cluster): Promise<void> {
    const masters = cluster.status === 'ready' ? cluster.nodes('master') : [];
    if (masters.length === 0) {
      this.policy = null;
      return;
    }
    const answers = await Promise.allSettled(masters.map((node) => node.info('memory')));
    const refused = answers.find((answer) => answer.status === 'rejected' && refusesInfo(answer.reason));
    if (refused) {
      this.readable = false;
      return;
    }
    this.readable = true;
    const policies = answers.map((answer) => (answer.status === 'fulfilled' ? policyOf(answer.value) : null));
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
    if (this.policy === null) return this.readable ? EVICTION_POLICY_NOT_READ : undefined;
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

const policyOf = (info: string): string | null => /^maxmemory_policy:(\S+)/m.exec(info)?.[1] ?? null;

/** A server that refuses INFO itself (an ACL, a renamed command), not a connection failure: it cannot be checked. */
const refusesInfo = (error: unknown): boolean =>
  /unknown command|NOPERM|disabled/i.test(String((error as Error)?.message));
