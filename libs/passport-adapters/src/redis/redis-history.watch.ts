/**
 * Notices that Redis lost its data (a restart without persistence, FLUSHALL, a failover to an empty
 * replica) and makes the replay store fail closed for a while. Losing the data drops every live replay
 * record at once: a probe had an already-used HOLA line verify again, and an already-used login request
 * get a new JWT, while health said `healthy`.
 *
 * How: a marker key without expiry (`<prefix>{replay}:history`, in the replay records' hash slot) holds
 * a value chosen by the first instance that found it missing. An instance remembers the value it saw;
 * the marker gone or changed means the data it stood beside is gone too. It is checked when the client
 * connects, every `intervalMs`, and inside every replay record script, which compares it with the value
 * this instance knows (gone, or another instance's new one: nothing recorded, the watch looks at once),
 * so no instance records between a loss and its own discovery of it.
 *
 * After a loss at L, recording is refused (verify and login fail closed, 503) until L + `holdMs`
 * (default 331 s: a login challenge stamped up to 30 s ahead stays acceptable 300 s after its stamp;
 * the app derives it from its own windows, REDIS_LOSS_HOLD_MS), so lines and challenges used before the
 * loss are stale before anything is recorded again. Lines verified
 * with a larger `constraints.maxAgeMs` (up to 24 h) could still be accepted a second time; health notes
 * the loss for `noticeMs` (default 24 h) so that operators know. An instance that starts after the loss
 * never saw the old marker and cannot tell; run Redis with persistence (AOF) or a replica.
 */
import { randomBytes } from 'node:crypto';
import { type Redis } from 'ioredis';

export const DEFAULT_REDIS_HISTORY_HOLD_MS = 331_000;
export const DEFAULT_REDIS_HISTORY_NOTICE_MS = 86_400_000;

export interface RedisHistoryWatchOptions {
  /** Key prefix shared by every adapter of one deployment (default `passport:`). */
  readonly prefix?: string;
  /** How often the marker is read again (default 5 s). */
  readonly intervalMs?: number;
  /** How long recording is refused after a loss (default 331 s). */
  readonly holdMs?: number;
  /** How long health mentions a loss (default 24 h). */
  readonly noticeMs?: number;
  /** Called once per loss noticed (for a log line). */
  readonly onLoss?: (lostAtMs: number) => void;
  /** Wall clock (ms); the system clock by default. */
  readonly nowMs?: () => number;
}

export class RedisHistoryWatch {
  /** The marker key; replay record scripts declare it and check that it exists. */
  readonly markerKey: string;
  private known: string | null = null;
  private lostAt: number | null = null;
  private checking: Promise<void> | null = null;
  private readonly timer: NodeJS.Timeout;
  private readonly holdMs: number;
  private readonly noticeMs: number;
  private readonly now: () => number;

  constructor(
    private readonly redis: Redis,
    private readonly options: RedisHistoryWatchOptions = {},
  ) {
    this.markerKey = `${options.prefix ?? 'passport:'}{replay}:history`;
    this.holdMs = options.holdMs ?? DEFAULT_REDIS_HISTORY_HOLD_MS;
    this.noticeMs = options.noticeMs ?? DEFAULT_REDIS_HISTORY_NOTICE_MS;
    this.now = options.nowMs ?? Date.now;
    this.timer = setInterval(() => void this.check(), options.intervalMs ?? 5000);
    this.timer.unref();
    redis.on('ready', () => void this.check());
  }

  /**
   * Reads the marker (creating it when missing) and compares it with the value seen before. Concurrent
   * calls share one read. A failed read changes nothing (the stores fail on their own then).
   */
  check(): Promise<void> {
    this.checking ??= this.read().finally(() => {
      this.checking = null;
    });
    return this.checking;
  }

  /** A replay record script found the marker missing: the data may be lost; find out now. */
  markerMissing(): Promise<void> {
    return this.check();
  }

  private async read(): Promise<void> {
    let value: string | null;
    try {
      const candidate = `${this.now()}:${randomBytes(8).toString('hex')}`;
      const replies = (await this.redis
        .multi()
        .set(this.markerKey, candidate, 'NX')
        .get(this.markerKey)
        .exec()) as Array<[Error | null, unknown]> | null;
      const [error, current] = replies?.[1] ?? [new Error('transaction discarded'), null];
      if (error) return;
      value = typeof current === 'string' ? current : null;
    } catch {
      return;
    }
    if (value === null) return;
    if (this.known !== null && value !== this.known) {
      this.lostAt = this.now();
      this.options.onLoss?.(this.lostAt);
    }
    this.known = value;
  }

  /** The marker's value as this instance last read it, or null before the first read. */
  get knownMarker(): string | null {
    return this.known;
  }

  /** When the last loss was noticed (ms), or null. */
  get lostAtMs(): number | null {
    return this.lostAt;
  }

  /** Why recording is refused now (within the hold after a loss), or undefined. */
  get problem(): string | undefined {
    if (this.lostAt === null) return undefined;
    const until = this.lostAt + this.holdMs;
    if (this.now() >= until) return undefined;
    return `redis lost its data at ${new Date(this.lostAt).toISOString()} (a restart without persistence or a flush): recording refused until ${new Date(until).toISOString()}, when lines and login challenges used before the loss are stale`;
  }

  /** A note for health for a while after a loss (once recording is allowed again), or undefined. */
  get notice(): string | undefined {
    if (this.lostAt === null || this.problem !== undefined) return undefined;
    if (this.now() >= this.lostAt + this.noticeMs) return undefined;
    return `redis lost its data at ${new Date(this.lostAt).toISOString()}: a line verified before then with constraints.maxAgeMs above 300 s may be accepted again until its window ends; run Redis with persistence (AOF) or a replica`;
  }

  stop(): void {
    clearInterval(this.timer);
  }
}
