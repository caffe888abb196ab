/**
 * The `STORE=redis` family: replay records, sessions and both rate-limit tiers (per address on public
 * routes, per passport on JWT routes) on one Redis, shared by every instance of a fleet.
 *
 * Failure behaviour (Redis down, or slower than REDIS_COMMAND_TIMEOUT_MS): replay records and sessions
 * fail (verify answers REPLAY_STORE_UNAVAILABLE, never `verified: true`; JWT routes 503
 * SERVICE_UNAVAILABLE, not a logout); rate limits fall back to in-process buckets; health is `degraded`
 * with the reason. The client reconnects by itself, so everything recovers without a restart.
 */
import { performance } from 'node:perf_hooks';
import { Logger } from '@nestjs/common';
import { systemClock } from '@passport/core';
import { MemoryRateLimitStore } from '@passport/core/memory';
import { SessionCapacityError } from '@passport/core/ports';
import {
  createRedisClient,
  redisClientProblem,
  redisConnectionError,
  FallbackRateLimitStore,
  FleetSessionEpoch,
  whenConnected,
  RedisRateLimitStore,
  RedisMcpSessionDirectory,
  RedisEvictionWatch,
  RedisHistoryWatch,
  DEFAULT_REDIS_HISTORY_HOLD_MS,
  RedisReplayStore,
  RedisSessionStore,
} from '@passport/adapters/redis';
import { type HealthCheckResult } from '../infrastructure/health-indicator.js';
import { type StoreBackend, type StoreBackendOptions } from './store-backend.types.js';
import { startPeriodicSweep } from '@passport/adapters/sweep';
import { replayHealth } from './replay-health.js';
import { DEFAULT_SWEEP_INTERVAL_MS } from '@passport/adapters/sqlite';
import { withinLast } from './within-last.js';

/** How long a request-path failure of the replay or session store keeps health degraded (a blip shows; a recovery soon does too). */
const FAILURE_REPORT_MS = 10_000;

/**
 * Health's problem while rate limits run in process though Redis answers a PING, with why when known: what
 * a store falling back now last failed with (a store back on Redis keeps its old text, which a probe saw
 * named here, minutes old, for the other store's failure of another kind).
 */
function rateLimitsInProcess(...stores: FallbackRateLimitStore[]): string {
  const said = stores
    .filter((store) => store.fallbackSince !== null)
    .map((store) => store.lastFailureMessage)
    .find((text) => text !== null);
  return `rate limits on in-process buckets until their next take reaches redis again${said ? ` (last failure: ${said})` : ''}`;
}

/**
 * Health's problem while Redis does not answer, with the kind of failure when the connection said: the
 * log has the whole message, but `/health` is public and the message names the Redis host and port
 * (`connect ECONNREFUSED 10.0.0.5:6379`: a review).
 */
function unavailable(connectionError: string | undefined): string {
  return connectionError === undefined
    ? 'redis unavailable'
    : `redis unavailable: ${failureKind(connectionError)}`;
}

function failureKind(message: string): string {
  if (/WRONGPASS|NOAUTH|NOPERM|invalid password|AUTH/i.test(message))
    return 'authentication refused (see the log)';
  if (/certificate|TLS|SSL|handshake|EPROTO/i.test(message)) return 'TLS failed (see the log)';
  if (/ECONNREFUSED/.test(message)) return 'connection refused (see the log)';
  if (/ENOTFOUND|EAI_AGAIN/.test(message)) return 'host not found (see the log)';
  if (/ETIMEDOUT|timed? ?out/i.test(message)) return 'connection timed out (see the log)';
  return 'connection failed (see the log)';
}

/** How long a closing instance waits for Redis to take its clock report away (ms). */
const CLOCK_REPORT_WITHDRAW_WAIT_MS = 250;

export interface RedisStoreSettings {
  readonly url: string;
  readonly commandTimeoutMs?: number;
  /** How long replay records are refused after Redis lost its data (RedisHistoryWatch's holdMs). */
  readonly lossHoldMs?: number;
}

export function createRedisStoreBackend(
  settings: RedisStoreSettings,
  options: StoreBackendOptions = {},
): StoreBackend {
  const clock = options.clock ?? systemClock;
  const client = createRedisClient(settings.url, { commandTimeoutMs: settings.commandTimeoutMs });
  // A Redis that may evict keys could drop live replay records: the replay store refuses then.
  const evictionWatch = new RedisEvictionWatch(client);
  const logger = new Logger('Store');
  // A Redis that lost its data (restart without persistence, flush) lost every live replay record: the
  // replay store refuses for a while (RedisHistoryWatch), and the loss is logged and shown in health.
  const historyWatch = new RedisHistoryWatch(client, {
    holdMs: settings.lossHoldMs,
    onLoss: (at, heldForMs) => {
      const holdMs = settings.lossHoldMs ?? DEFAULT_REDIS_HISTORY_HOLD_MS;
      // A hold lengthened by the fleet's clock spread says so; a past loss's report (its hold over) and a
      // hold of 0 refuse nothing, and say that (a review: they named a refusal that never ran).
      const refused =
        heldForMs > holdMs
          ? `replay records refused for ${heldForMs} ms (REDIS_LOSS_HOLD_MS, ${holdMs} ms, and the fleet's clock spread, ${heldForMs - holdMs} ms)`
          : heldForMs > 0
            ? `replay records refused for REDIS_LOSS_HOLD_MS (${holdMs} ms)`
            : `no replay record refused (the loss's hold is over, or REDIS_LOSS_HOLD_MS is 0): lines stamped before it are answered nonce_replay`;
      logger.error(
        `redis lost replay records (noticed at ${new Date(at).toISOString()}): used HOLA lines and login challenges were forgotten; ${refused}; run Redis with persistence (AOF) or a replica`,
      );
    },
  });
  const replay = new RedisReplayStore(client, {
    maxEntries: options.replay?.maxEntries,
    evictionProblem: () => evictionWatch.problem,
    history: historyWatch,
  });
  // This instance's clock against Redis's, every 5 s: a lag beyond the margin refuses every record, a lead
  // beyond 5 s or a lag beyond 1 s is named in health, and an instance taken out of rotation for it (its peers
  // agreeing with Redis) gets no request to find it set right.
  const clockCheck = setInterval(() => {
    if (client.status === 'ready') void replay.checkClock(() => clock.nowMs()).catch(() => undefined);
  }, 5000);
  clockCheck.unref();
  // One line when the connection goes and one when it is back (not one per reconnection attempt), and
  // one more whenever the reason it cannot connect changes (a wrong password, then a restart, …): the
  // error of a failed connection is known only after its 'close' at times.
  let disconnected = false;
  // Set by `close()`: the connection then ends on purpose, and its events may come after the log's
  // stream has ended at shutdown (a write there threw, and half of the stops exited 1; a probe).
  let closing = false;
  let reasonLogged: string | undefined;
  const logReason = (): void => {
    const reason = redisConnectionError(client);
    if (closing || !disconnected || reason === undefined || reason === reasonLogged) return;
    reasonLogged = reason;
    logger.warn(`redis cannot be reached: ${reason}`);
  };
  client.on('close', () => {
    if (closing || disconnected || redisClientProblem(client) !== undefined) return;
    disconnected = true;
    logger.warn(
      'redis connection lost, reconnecting: verify and JWT routes answer 503, rate limits run in process',
    );
    logReason();
  });
  client.on('error', logReason);
  client.on('ready', () => {
    reasonLogged = undefined;
    if (closing || !disconnected) return;
    disconnected = false;
    logger.log('redis connection back');
  });
  // Every request's public rate-limit take also reads the fleet's session epoch, so sessions are read
  // from Redis only after a change to one of them somewhere (logout, revocation, renewal).
  const sessionEpoch = new FleetSessionEpoch();
  // The epoch only grows: read lower, Redis came back older (a logout undone, which nothing else shows).
  sessionEpoch.onWentBack(() => historyWatch.sessionEpochWentBack());
  const sessions = new TrackedSessionStore(
    new RedisSessionStore(client, {
      maxEntries: options.sessions?.maxEntries,
      maxOpenPerPassport: options.sessions?.maxOpenPerPassport,
      epoch: sessionEpoch,
      // After a loss the sessions Redis holds are from before it (a snapshot may undo logouts): forgotten.
      history: historyWatch,
      onForgetFailed: (error) =>
        logger.error(
          `redis lost data, and the sessions stored before the loss could not be marked forgotten (${(error as Error)?.message ?? String(error)}): a logout made since the snapshot may be undone`,
        ),
    }),
  );
  const rateLimitCap = options.rateLimit?.maxEntries;
  // While Redis is down, a PING beside the requests decides when takes go back to it (no request waits).
  const probe = { probe: () => client.ping() };
  const rateLimit = new FallbackRateLimitStore(
    new RedisRateLimitStore(client, { namespace: 'passport', maxEntries: rateLimitCap }),
    new MemoryRateLimitStore({ maxKeys: rateLimitCap }),
    probe,
  );
  const publicRateLimit = new FallbackRateLimitStore(
    new RedisRateLimitStore(client, { namespace: 'public', maxEntries: rateLimitCap, sessionEpoch }),
    new MemoryRateLimitStore({ maxKeys: 100_000 }),
    probe,
  );
  const interval = (ms: number | undefined): number => ms ?? DEFAULT_SWEEP_INTERVAL_MS;
  // Every instance sweeps; each sweep is one atomic script, so concurrent sweeps only share the work.
  const sweeps = [
    startPeriodicSweep(
      () => void replay.sweep(clock.nowMs()).catch(() => 0),
      interval(options.replay?.sweepIntervalMs),
    ),
    startPeriodicSweep(
      () => void sessions.sweep(clock.nowMs()).catch(() => 0),
      interval(options.sessions?.sweepIntervalMs),
    ),
  ];

  const check = async (): Promise<HealthCheckResult> => {
    const started = performance.now();
    const latencyMs = (): number => Math.round((performance.now() - started) * 1000) / 1000;
    const nowMs = Date.now();
    const rateLimitFallback =
      rateLimit.fallbackSince !== null || publicRateLimit.fallbackSince !== null
        ? 'in-process fallback'
        : 'shared';
    // Read with the state above, before the awaits below: this very request's take may start the probe
    // that ends the fallback meanwhile.
    const rateLimitsProblem =
      rateLimitFallback !== 'shared' ? rateLimitsInProcess(rateLimit, publicRateLimit) : undefined;
    const fatal = redisClientProblem(client);
    if (fatal !== undefined) {
      return {
        ok: false,
        detail: {
          adapter: 'redis',
          latencyMs: latencyMs(),
          problem: fatal,
          rateLimits: 'in-process fallback',
        },
      };
    }
    let usage;
    try {
      if ((await client.ping()) !== 'PONG') throw new Error('unexpected PING reply');
      usage = await replay.usage();
    } catch {
      return {
        ok: false,
        detail: {
          adapter: 'redis',
          latencyMs: latencyMs(),
          problem: unavailable(redisConnectionError(client)),
          rateLimits: 'in-process fallback',
        },
      };
    }
    const recent = (at: number | null): boolean => withinLast(at, nowMs, FAILURE_REPORT_MS);
    const failed = recent(replay.lastFailureAtMs) || recent(sessions.lastFailureAtMs);
    // What Redis said, when it said something (an out-of-memory refusal names itself; a timeout does not).
    const said = recent(replay.lastFailureAtMs) ? replay.lastFailureMessage : null;
    const replayState = replayHealth(usage, clock.nowMs());
    const eviction = evictionWatch.problem ?? evictionWatch.unknown;
    // Every reason that applies, the gravest first: one alone hid the others (a clock behind Redis's
    // hid that Redis had just refused a write, and an operator set the clock right and still saw degraded).
    const problems = [
      evictionWatch.problem,
      historyWatch.problem,
      replay.clockProblem,
      failed ? `redis failed a request in the last 10 s${said ? `: ${said}` : ''}` : undefined,
      // Redis answers again, but the rate limits have not gone back to it yet (their next take does):
      // without this, health is `degraded` with no reason for about a second after Redis comes back.
      rateLimitsProblem,
    ].filter((text): text is string => text !== undefined);
    const problem = problems.length > 0 ? problems.join('; ') : undefined;
    // Both notes when both apply (the policy unreadable, a loss within 24 h).
    const notes = [
      evictionWatch.problem === undefined ? evictionWatch.unknown : undefined,
      historyWatch.notice,
    ].filter((text): text is string => text !== undefined);
    const note = notes.length > 0 ? notes.join('; ') : undefined;
    return {
      ok:
        replayState.ok &&
        !failed &&
        rateLimitFallback === 'shared' &&
        eviction === undefined &&
        historyWatch.problem === undefined &&
        replay.clockProblem === undefined,
      detail: {
        adapter: 'redis',
        latencyMs: latencyMs(),
        ...(problem !== undefined ? { problem } : {}),
        ...(note !== undefined ? { note } : {}),
        rateLimits: rateLimitFallback,
        replay: replayState.detail,
      },
    };
  };

  return {
    kind: 'redis',
    replay,
    sessions,
    rateLimit,
    publicRateLimit,
    health: { name: 'store', check },
    createMcpSessionDirectory: (directoryOptions) => new RedisMcpSessionDirectory(client, directoryOptions),
    // A lag beyond the margin (nothing recorded: every verify and login refused) only while more instances
    // agree with Redis's clock than with this one's (reported within 15 s): then this clock is the wrong
    // one and the balancer takes it out. Alone, or with every instance off, Redis's own clock is likely
    // wrong: taking every instance out at once would stop the reads, DID documents and docs too (a
    // review). A lead, or a lag within the margin, is named in health only.
    fatalProblem: () => redisClientProblem(client) ?? replay.clockProblemOfThisInstance,
    ready: async () => {
      if (await whenConnected(client, 2000))
        await Promise.all([
          evictionWatch.refresh(),
          historyWatch.check(),
          replay.checkClock(() => clock.nowMs()).catch(() => undefined),
        ]);
    },
    async close() {
      clearInterval(clockCheck);
      evictionWatch.stop();
      historyWatch.stop();
      for (const sweep of sweeps) sweep.stop();
      // This instance's clock report goes with it, waited for a moment at most (Redis may be down).
      if (client.status === 'ready')
        await Promise.race([
          replay.withdrawClockReport().catch(() => undefined),
          new Promise((resolve) => setTimeout(resolve, CLOCK_REPORT_WITHDRAW_WAIT_MS).unref()),
        ]);
      closing = true;
      client.disconnect();
    },
  };
}

/** Remembers when the session store last failed a request (health reports it). */
class TrackedSessionStore {
  private failedAt: number | null = null;

  constructor(private readonly inner: RedisSessionStore) {}

  get lastFailureAtMs(): number | null {
    return this.failedAt;
  }

  private async track<T>(work: Promise<T>): Promise<T> {
    try {
      return await work;
    } catch (error) {
      // Sessions at capacity is a refusal by policy, not a Redis failure: health stays as it is.
      if (!(error instanceof SessionCapacityError)) this.failedAt = Date.now();
      throw error;
    }
  }

  create: RedisSessionStore['create'] = (s) => this.track(this.inner.create(s));
  get: RedisSessionStore['get'] = (id) => this.track(this.inner.get(id));
  close: RedisSessionStore['close'] = (id, reason, now) => this.track(this.inner.close(id, reason, now));
  recordRenewal: RedisSessionStore['recordRenewal'] = (id, now) =>
    this.track(this.inner.recordRenewal(id, now));
  list: RedisSessionStore['list'] = (page) => this.track(this.inner.list(page));
  sweep: RedisSessionStore['sweep'] = (now) => this.track(this.inner.sweep(now));
  countOpen: RedisSessionStore['countOpen'] = (now) => this.track(this.inner.countOpen(now));
}
