/**
 * Notices that Redis lost replay records (a restart without persistence, FLUSHALL, a failover to an
 * empty replica, or to one that, or a restart from a snapshot that, is behind) and makes the replay store
 * fail closed for a while. Losing them lets an already-used HOLA line verify again and an already-used
 * login request get a new JWT, while health says `healthy`.
 *
 * How, six kinds of keys in the replay records' hash slot (`<prefix>{replay}:…`), none with an expiry
 * but the hold, the instances' own keys and the loss's time:
 * - `history`: a marker holding a value chosen by the first instance that found it missing. Each
 *   instance remembers the value it saw; gone or changed means the data it stood beside is gone.
 * - `generation`: a counter every record invocation that records something increments and returns
 *   (one that records nothing answers it as read). Each instance remembers the highest value it was
 *   answered; a lower one means Redis came back with older data (the marker survives a snapshot; the
 *   records made after it do not).
 * - `gen:<instance>`: per instance (a random id per process), the counter's value at its last record
 *   invocation that recorded something, written by it (kept 30 days after its last write). The shared counter alone
 *   shows older data only until other instances' records push it past what this one was answered (a
 *   probe: Redis back from a snapshot, another instance served for 300 ms, and all 323 lines this one had
 *   used since the snapshot verified again); its own key below the value it last wrote, or gone, shows
 *   it whatever the others did since. So every instance that recorded after a snapshot finds the loss, at
 *   its next record invocation or check; a line replayed through another instance before then is still
 *   accepted. Persistence that loses nothing (AOF, appendfsync always) closes that window.
 * - `loss-hold`: set by the first instance that notices a loss (NX), for the hold (its PTTL, Redis's
 *   clock), so that every instance refuses, one restarted or started meanwhile too; later noticers adopt
 *   it without extending it, and one away for longer than a hold that finds a marker made longer ago
 *   than a hold reports the loss without a new hold. An instance holding that finds the key gone (a
 *   second flush within the hold) sets it again for the rest of its hold, unless its own end is within
 *   `sameHoldMarginMs` (the key's own expiry), and a loss it sees within that margin of its end (a changed
 *   marker, a key ending later than its hold by more than the margin) is a new loss, held whole (others'
 *   holds may have ended and recorded); one finding it ending sooner than its own hold by more
 *   than that margin (a concurrent noticer with a narrower reading of the spread won the NX) lengthens
 *   it to its own end, which the others follow at their held reads; a key found ending within that
 *   margin after this instance's hold ended is that hold, held on quietly (unless this instance has
 *   recorded since). An adopter takes the loss's time from the hold's time to live, never before the
 *   `lost-at` it finds.
 * - `lost-at`: Redis's time when a loss was last noticed, kept 25 h, so that an instance started after
 *   it (during or after its hold) knows which lines were stamped before it.
 * - `lost-lead` (1.13.0): beside `lost-at`, the fleet's largest clock lead over Redis's (ms) when that loss
 *   was noticed, kept as long and never lowered for the same loss (a separate key: earlier releases parse
 *   `lost-at` as a number).
 *
 * Instances' clocks differ from Redis's (offset o: the instance's clock less Redis's, positive ahead).
 * A line instance A accepted before a loss at Redis time L was stamped up to L + o_A + skew, and instance
 * B finds it fresh (window W) while Redis's clock reads below L + W + skew + o_A − o_B (a second more for
 * whole seconds): the hold (W + skew + 1 s) waits out o_A − o_B = 0 only. So the noticer lengthens the
 * hold by the fleet's spread, lead + lag, read by its last clock checks before the loss (the clock reports
 * are gone with the data): lead = max(0, largest offset), lag = max(0, −smallest offset), Redis's own clock
 * counted as an instance at 0 (instances of earlier releases report nothing; an instance beyond the clock
 * skew margin either way records nothing, so the spread is at most twice the margin). The hold key carries
 * the extension (its value), so adopters agree on the loss's time. And every instance answers
 * nonce_replay, whatever the window, for a line stamped up to L + lead + skew: on its own clock, where it
 * reads the loss as L + o_X, that is its lostAt + (lead − o_X) + skew (`lossLeadOverThisClockMs`).
 * The record script checks them all before recording (nothing is recorded on a mismatch, the watch is
 * told at once); the watch also reads the marker and the hold when the client connects and every
 * `intervalMs` (every `HELD_READ_INTERVAL_MS` while it holds).
 *
 * After a loss, recording is refused (verify and login fail closed, 503) for `holdMs` (default 331 s: a
 * login challenge stamped up to 30 s ahead stays acceptable 300 s after its stamp; the app derives it from
 * its own windows, REDIS_LOSS_HOLD_MS), so lines and challenges used before the loss are stale before
 * anything is recorded again. Lines verified with a larger `constraints.maxAgeMs` (up to 24 h) could
 * still be accepted a second time, but verify answers a line stamped before the loss nonce_replay whatever
 * window it asks (`lostAtMs`); health notes the loss for `noticeMs` (default 24 h). A loss no running
 * instance noticed (all of them started after it and its hold) cannot be told; run Redis with
 * persistence (AOF) or a replica.
 */
import { registerScriptCommand, type RedisConnection } from './redis-client.js';
import { randomBytes } from 'node:crypto';
import { HoldDeadline } from '@passport/core/ports';

export const DEFAULT_REDIS_HISTORY_HOLD_MS = 331_000;
export const DEFAULT_REDIS_HISTORY_NOTICE_MS = 86_400_000;

/**
 * How long an instance's own generation key lives after its last write (30 days). An instance compares
 * it only within 29 days of its last write (as its own clock counts from the reply), so a key that
 * expired while the instance recorded nothing is no loss. Far past the longest a used line stays
 * acceptable (24 h): a probe froze an instance with a reply in flight for 26 h against a 25 h key, and
 * the reply, handled after the freeze, made the expired key look fresh. A process that ends leaves its
 * key for 30 days (a few dozen bytes).
 */
export const OWN_GENERATION_TTL_MS = 30 * 86_400_000;

/**
 * How long the time of the last loss is kept in Redis (`lost-at`): the longest window a verify may ask
 * (24 h) and an hour for the clocks. An instance started within it learns the loss's time.
 */
export const LOSS_TIME_TTL_MS = 25 * 3_600_000;

/**
 * How long a clock check's reading of the fleet's spread counts (ms): the clock reports' own life twice.
 * A loss takes the widest reading of that span: the check that runs first after a flush or a restart
 * finds the reports gone (only this instance's own), and counted alone it would shorten the hold.
 */
const FLEET_CLOCKS_READING_LIFE_MS = 30_000;

/** The hold key's value: its end and, from 1.13.0, the fleet's lead and the hold's extension (ms). */
const HOLD_VALUE = / lead=(\d+) extended=(\d+)$/;

/** How often an instance reads the marker and the hold while it holds (ms). */
export const HELD_READ_INTERVAL_MS = 500;

/**
 * How far apart an instance's own hold end and the hold key's may lie and still be one hold (ms): a
 * second, or half the hold when that is shorter. The instance counts its end on its own clock (its notice
 * plus the hold, or an adopted time to live counted from before the read was sent), Redis the key's on
 * its clock from when it ran the SET: they part by about a millisecond (more when Redis ran the SET or
 * the script late). A new loss's key is set only once the old one has gone, for a whole hold, so it ends
 * about a hold later.
 */
export function sameHoldMarginMs(holdMs: number): number {
  return Math.max(0, Math.min(1000, holdMs / 2));
}

/**
 * Sets `lost-at` to Redis's time (ms) less the loss's age (ARGV[2], ms) unless it holds a later one
 * already (an earlier loss never wins), or, with ARGV[3] = 'absent', unless it holds any.
 */
const RECORD_LOSS_TIME_LUA = `local t = redis.call('TIME')
local ms = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) - (tonumber(ARGV[2]) or 0)
local current = tonumber(redis.call('GET', KEYS[1]))
local written = current == nil or (ARGV[3] ~= 'absent' and current < ms)
if written then
  redis.call('SET', KEYS[1], ms, 'PX', ARGV[1])
end
-- lost-lead (KEYS[2]): the fleet's lead (ARGV[4]) for this loss, never lowered for the same loss (one kept
-- within a hold, ARGV[5], of it: a new loss's hold starts only once the old one has gone), set afresh for
-- a new one.
local same = current ~= nil and math.abs(ms - current) < tonumber(ARGV[5])
if written or same then
  local lead, kept = tonumber(ARGV[4]) or 0, tonumber(redis.call('GET', KEYS[2]))
  if same and kept ~= nil and kept > lead then lead = kept end
  redis.call('SET', KEYS[2], lead, 'PX', ARGV[1])
end
return ms`;
const OWN_GENERATION_COMPARED_MS = 29 * 86_400_000;

/**
 * Sets the hold key (KEYS[1]) to ARGV[1] for ARGV[2] ms when it is missing, or when it ends sooner than
 * that by more than ARGV[3] (`sameHoldMarginMs`): a noticer whose reading of the fleet's spread is wider
 * lengthens the key to its own end (every holder follows a longer key at its next read). Never shortens it.
 * A key without a time to live (PTTL -1: an operator's PERSIST), which every read ignores, is replaced.
 */
const PUBLISH_HOLD_LUA = `local left = redis.call('PTTL', KEYS[1])
local px = tonumber(ARGV[2])
if left < 0 or left + tonumber(ARGV[3]) < px then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', px)
  return 1
end
return 0`;

export interface RedisHistoryWatchOptions {
  /** Key prefix shared by every adapter of one deployment (default `passport:`). */
  readonly prefix?: string | undefined;
  /** How often the marker is read again (default 5 s). */
  readonly intervalMs?: number | undefined;
  /** How long recording is refused after a loss (default 331 s). */
  readonly holdMs?: number | undefined;
  /** How long health mentions a loss (default 24 h). */
  readonly noticeMs?: number | undefined;
  /**
   * Called once per loss noticed (for a log line), with how long this instance holds (ms: the hold, plus
   * the fleet's clock spread when the hold's maker added it).
   */
  readonly onLoss?: ((lostAtMs: number, heldForMs: number) => void) | undefined;
  /** Wall clock (ms); the system clock by default. */
  readonly nowMs?: (() => number) | undefined;
}

export class RedisHistoryWatch {
  /** The marker key; replay record scripts compare it with `knownMarker`. */
  readonly markerKey: string;
  /** The counter record invocations increment; they compare it with `knownGeneration`. */
  readonly generationKey: string;
  /** Present (with a PTTL) while a loss's hold lasts, for every instance. */
  readonly holdKey: string;
  /** This instance's own generation key; record invocations compare it with `knownOwnGeneration`. */
  readonly ownGenerationKey: string;
  /** When the last loss was noticed, on Redis's clock (ms), kept `LOSS_TIME_TTL_MS`. */
  readonly lossTimeKey: string;
  /** The fleet's largest clock lead over Redis's (ms) when that loss was noticed, kept as long. */
  readonly lossLeadKey: string;
  private readonly recordLossTime: (...args: Array<string | number>) => Promise<unknown>;
  private readonly setHoldKey: (...args: Array<string | number>) => Promise<unknown>;
  private known: string | null = null;
  private highestGeneration: number | null = null;
  /** The counter's value this instance's last record invocation wrote to its own key, and when (ms). */
  private ownGeneration: number | null = null;
  private ownWrittenAt = 0;
  /** How many times the counter has been followed afresh (highestGeneration reset after a loss). */
  private generationRestarts = 0;
  private lostAt: number | null = null;
  /** The loss's time on monotonic time, for its age (a step since cannot move it). */
  private lostAtMonotonic: number | null = null;
  /**
   * `lostAt` less the lead the wall clock had, when this instance noticed the loss, over where it read
   * at this instance's start (see `lostAtMs`).
   */
  private lostAtEffective: number | null = null;
  /** The `lost-at` value last learned (Redis's clock): one value is one loss, learned once. */
  private learnedLossTime: number | null = null;
  /** The fleet's largest lead over Redis's clock when the loss this instance knows happened (ms). */
  private lossLeadMs = 0;
  /** This instance's offset from Redis's clock when it took that loss's time on its clock (ms), or null. */
  private lossOwnOffsetMs: number | null = null;
  /** The extension of this instance's current (or last) hold beyond `holdMs` (ms): the fleet's spread. */
  private holdExtensionMs = 0;
  /**
   * The clock checks' readings (monotonic ms, lead, lag), newest last, kept FLEET_CLOCKS_READING_LIFE_MS
   * and the clock skew margin (see `fleetLeadMs`).
   */
  private fleetClocks: Array<{ at: number; leadMs: number; lagMs: number }> = [];
  /** This instance's offset from Redis's clock at its last clock check (ms, positive ahead), or null. */
  private ownOffsetMs: number | null = null;
  /** The wall clock less monotonic time at that check: a step since moves the offset by as much. */
  private ownOffsetWallLessMonotonic = 0;
  /** The clock skew margin the checks run with: no lead beyond it records anything (its lines none). */
  private clockSkewMarginMs = Infinity;
  /**
   * When the loss's time was taken: the wall clock less monotonic time then, and the lead `withoutLead`
   * took off it, so that a loss taken before the first clock check gets its offset from that check, moved
   * back to then (a review: the latest check's offset, steps since the loss included, was used instead).
   */
  private lossWallLessMonotonic = 0;
  private lossLeadTakenOffMs = 0;
  /**
   * How long the known loss's hold lasted, as far as this instance knows (its own or adopted hold, the
   * extension included; `holdMs` for a loss learned from `lost-at` or a past one): a later `lost-at`
   * within it is that loss (`learnLossTime`). Not the last hold this instance held: a review had an older
   * hold's extension take a genuine second loss for the first.
   */
  private knownLossHoldMs = 0;
  /**
   * The current hold was adopted from a record invocation's reply, which carries no `lost-at`: the first
   * read that finds the key takes it (`adoptHold`).
   */
  private adoptedWithoutLossTime = false;
  /** The wall clock less monotonic time at start: a later reading above it is a lead. */
  private readonly startOffset: number;
  /** When recording may start again, on the wall clock and on monotonic time (a step cannot stretch it). */
  private readonly hold: HoldDeadline;
  /** The end of this instance's last hold on monotonic time (ms), or null before its first. */
  private holdEndAt: number | null = null;
  /**
   * When this instance last read the marker (ms, monotonic: a forward step of the wall clock read as time
   * away, and a restore from an older backup was taken for a past loss with no hold; a clock-step probe),
   * or null.
   */
  private lastReadAt: number | null = null;
  /** Monotonic time (ms, any origin): performance.now, or the caller's own clock (tests that move time). */
  private readonly monotonicNow: () => number;
  private checking: Promise<void> | null = null;
  private readonly timer: NodeJS.Timeout;
  private readonly holdMs: number;
  private readonly noticeMs: number;
  private readonly now: () => number;
  private readonly holdListeners: Array<() => void> = [];

  constructor(
    private readonly redis: RedisConnection,
    private readonly options: RedisHistoryWatchOptions = {},
  ) {
    const base = `${options.prefix ?? 'passport:'}{replay}:`;
    this.markerKey = `${base}history`;
    this.generationKey = `${base}generation`;
    this.holdKey = `${base}loss-hold`;
    this.ownGenerationKey = `${base}gen:${randomBytes(8).toString('hex')}`;
    this.lossTimeKey = `${base}lost-at`;
    this.lossLeadKey = `${base}lost-lead`;
    this.recordLossTime = registerScriptCommand(redis, 'passport-loss-time', RECORD_LOSS_TIME_LUA, 2);
    this.setHoldKey = registerScriptCommand(redis, 'passport-loss-hold', PUBLISH_HOLD_LUA, 1);
    this.holdMs = options.holdMs ?? DEFAULT_REDIS_HISTORY_HOLD_MS;
    this.noticeMs = options.noticeMs ?? DEFAULT_REDIS_HISTORY_NOTICE_MS;
    this.now = options.nowMs ?? Date.now;
    this.monotonicNow = options.nowMs ?? (() => performance.now());
    this.startOffset = this.now() - this.monotonicNow();
    // A caller's own clock (tests that move time) is its monotonic time too.
    this.hold = new HoldDeadline(this.now, this.holdMs, options.nowMs);
    // While this instance holds it reads every HELD_READ_INTERVAL_MS: a second flush within the hold
    // takes the hold key and lost-at, and nothing else puts them back (a holding instance runs no record
    // script), so an instance started before this one's next read recorded at once and accepted a line
    // used before the loss (an e2e probe: 4.3 s of it at a 5 s interval).
    const intervalMs = options.intervalMs ?? 5000;
    // A reading every tick of zero, or none at all (NaN ticks), is no interval.
    if (!(Number.isFinite(intervalMs) && intervalMs > 0))
      throw new RangeError(`intervalMs must be a positive number of milliseconds, got ${String(intervalMs)}`);
    const tickMs = Math.min(intervalMs, HELD_READ_INTERVAL_MS);
    const ticksPerRead = Math.max(1, Math.round(intervalMs / tickMs));
    let ticks = 0;
    this.timer = setInterval(() => {
      ticks = (ticks + 1) % ticksPerRead;
      if (ticks === 0 || this.hold.remainingMs() > 0) void this.check();
    }, tickMs);
    this.timer.unref();
    redis.on('ready', () => void this.check());
  }

  /**
   * Reads the marker (creating it when missing) and the shared hold, and compares the marker with the
   * value seen before. Concurrent calls share one read. A failed read changes nothing (the stores fail
   * on their own then).
   */
  check(): Promise<void> {
    this.checking ??= this.read().finally(() => {
      this.checking = null;
    });
    return this.checking;
  }

  /** A replay record script found the marker missing or changed: find out now. */
  markerMissing(): Promise<void> {
    return this.check();
  }

  /** A record invocation was answered with `generation` (the counter after its increment). */
  observeGeneration(generation: number): void {
    if (Number.isFinite(generation) && generation > (this.highestGeneration ?? -1))
      this.highestGeneration = generation;
  }

  /** A record invocation wrote `generation` to this instance's own key. */
  observeOwnGeneration(generation: number): void {
    if (!Number.isFinite(generation) || generation <= (this.ownGeneration ?? -1)) return;
    this.ownGeneration = generation;
    this.ownWrittenAt = this.now();
  }

  /**
   * The value this instance last wrote to its own key, or null: none yet, none since a loss, or its last
   * write too long ago (the key may have expired since).
   */
  get knownOwnGeneration(): number | null {
    if (this.ownGeneration === null) return null;
    return this.now() - this.ownWrittenAt < OWN_GENERATION_COMPARED_MS ? this.ownGeneration : null;
  }

  /** A record invocation was answered with a generation not above the highest seen: older data. */
  generationWentBack(): void {
    this.noticeLoss();
  }

  /**
   * A read or a record invocation found another instance's hold, `remainingMs` more from now: its PTTL
   * less the time since the read or the invocation was sent, so that a reply handled late never holds
   * this instance past the key (nor takes the loss as later than it was by the delay). `keptLossAtMs`: the
   * `lost-at` the same read found, on this instance's clock (`learnLossTime`); none from a record
   * invocation's reply.
   */
  adoptHold(remainingMs: number, holdValue?: string, keptLossAtMs?: number | null): void {
    if (!(remainingMs > 0)) return;
    // The hold's maker (1.13.0) names the fleet's lead and the extension it added for the clocks' spread;
    // one of an earlier release names none (no extension: its hold is `holdMs` long).
    const named = holdValue === undefined ? null : HOLD_VALUE.exec(holdValue);
    // The key ending within the margin after this instance's own hold ended is that hold's key, outliving
    // this instance's estimate of it by the clocks' parting (a review: a record in that gap took it for
    // a new loss, a second report, the sessions forgotten again, 2 runs of 3 at a 300 ms hold): held on
    // quietly. Not once this instance has recorded since (its record went in with no key there, so this
    // one was set since, by an instance that saw a loss its records may be part of).
    const endsWithOwnHold =
      this.hold.remainingMs() === 0 &&
      this.holdEndAt !== null &&
      this.monotonicNow() + remainingMs - this.holdEndAt <= sameHoldMarginMs(this.holdMs);
    // Found so once this instance has recorded since, the key is a new loss's all the same: none of this
    // release puts a hold back for under the margin (a loss seen there is held whole), but a 1.14.0 instance
    // still holding took a second loss for the one it held and put the key back for the moment it had
    // left, `lost-at` the first loss's time. Adopted, that was this instance's hold (under a second, the
    // first loss's time), and the line it had recorded verified again with the default window (a review).
    if (endsWithOwnHold && this.ownGeneration !== null) return this.noticeLoss();
    const sameHold = endsWithOwnHold && this.ownGeneration === null;
    // A key found in the last `sameHoldMarginMs` of this instance's hold, ending later than it by more than
    // that margin, is a new loss's: instances whose hold had ended (theirs part from this one's by up to the
    // margin) may have recorded since, and the loss took their records (a review of 1.14.0: this instance
    // kept the first loss's time, and a line recorded in that moment verified again with a day's window).
    const holdLeft = this.hold.remainingMs();
    const endMarginMs = sameHoldMarginMs(this.holdMs);
    const newLossAtEnd = holdLeft > 0 && holdLeft <= endMarginMs && remainingMs - holdLeft > endMarginMs;
    // A loss happened: the counter starts again from what Redis has now (else it would read as a
    // second loss once the hold ends).
    this.restartGenerationFollowing();
    const now = this.now();
    // A hold that starts here (none running) is a new loss for this instance, reported once (the hold
    // itself is another instance's, not extended). Its time is when that instance noticed it, read from
    // the hold's time to live (Redis's clock, so no other machine's clock is trusted): set for a whole
    // hold then. This instance's own time took lines stamped between the loss and its start for used ones
    // (an upgrade probe: an instance restarted during a hold refused them, and recorded them as refused).
    const starting = (holdLeft === 0 && !sameHold) || newLossAtEnd;
    if (starting) {
      // Read when the key was read: a reply from a record invocation (no value there before 1.13.0's
      // script) leaves them as the last read knew them, this instance's own reading of the fleet else.
      const extensionMs = named ? this.boundedExtension(Number(named[2])) : null;
      this.holdExtensionMs = extensionMs ?? 0;
      this.lossLeadMs = named ? this.boundedLead(Number(named[1])) : this.fleetLeadMs;
      // The hold's maker set it for the hold plus its extension: the loss was that long before its end.
      // Never before a `lost-at` kept for it (`keptLossAtMs`, found when the key is): an extension named
      // beyond the true one (a buggy or hostile instance's day, bounded to twice the margin) took the loss
      // that much early, and the `lost-at` read later was taken for the same loss, so a line used just
      // before the loss verified again with a long window (a review). Capped at the key's end less the
      // hold: no loss this key is for came later. The same for a hold adopted from a record invocation's
      // reply, at the first read that finds the key (`adoptedWithoutLossTime`).
      const fromKey = now + remainingMs - this.holdMs - this.holdExtensionMs;
      const lostAt = Math.min(now, this.notBeforeKeptLossTime(fromKey, remainingMs, keptLossAtMs));
      this.adoptedWithoutLossTime = keptLossAtMs === undefined;
      this.lostAt = lostAt;
      this.lostAtMonotonic = this.monotonicNow() - (now - lostAt);
      this.lostAtEffective = this.withoutLead(lostAt);
      this.takeLossOffset(true);
      this.knownLossHoldMs = this.holdMs + this.holdExtensionMs;
      this.options.onLoss?.(lostAt, this.holdMs + this.holdExtensionMs);
      // The hold's maker may keep no lost-at (a 1.10.0 instance in a rolling upgrade): keep it from here,
      // else every instance started after the hold knew no loss and verified each line used before it
      // once more when asked with a long window (an upgrade probe: 20 of 20).
      this.publishLossTime();
    } else if (this.adoptedWithoutLossTime && keptLossAtMs !== undefined) {
      // The first read after a hold adopted from a record invocation's reply: its `lost-at` as above.
      this.adoptedWithoutLossTime = false;
      if (keptLossAtMs !== null) this.raiseLossTime(keptLossAtMs, now + remainingMs - this.holdMs);
    }
    if (!starting && named) {
      // The same hold, its extension read now (adopted first from a record invocation's reply).
      this.holdExtensionMs = Math.max(this.holdExtensionMs, this.boundedExtension(Number(named[2])));
      this.knownLossHoldMs = Math.max(this.knownLossHoldMs, this.holdMs + this.holdExtensionMs);
      this.lossLeadMs = Math.max(this.lossLeadMs, this.boundedLead(Number(named[1])));
    }
    if (remainingMs > this.hold.remainingMs()) this.setHold(now + remainingMs);
    if (starting) this.lossHeld();
  }

  /**
   * Raises the loss time this instance knows to `keptLossAtMs` (a `lost-at` found after the hold was
   * adopted from a record invocation's reply), capped at `capMs` (the hold's end less the hold: no loss
   * it is for came later) and at now; never lowers it.
   */
  private raiseLossTime(keptLossAtMs: number, capMs: number): void {
    const now = this.now();
    const lostAt = Math.min(now, Math.min(keptLossAtMs, capMs));
    if (this.lostAt === null || !(lostAt > this.lostAt)) return;
    this.lostAtMonotonic = (this.lostAtMonotonic ?? this.monotonicNow()) + (lostAt - this.lostAt);
    this.lostAt = lostAt;
    this.lostAtEffective = this.withoutLead(lostAt);
    this.takeLossOffset(true);
  }

  /**
   * `fromKeyMs` (a loss time taken from the hold key), raised to the `lost-at` kept for that loss
   * (`keptLossAtMs`, this instance's clock), itself capped at the key's end less the hold.
   */
  private notBeforeKeptLossTime(
    fromKeyMs: number,
    remainingMs: number,
    keptLossAtMs?: number | null,
  ): number {
    if (keptLossAtMs === undefined || keptLossAtMs === null) return fromKeyMs;
    return Math.max(fromKeyMs, Math.min(keptLossAtMs, this.now() + remainingMs - this.holdMs));
  }

  /**
   * The clock check's reading (RedisReplayStore.checkClock, every 5 s): this instance's offset from Redis's
   * clock and the fleet's largest lead and lag within the margin (ms; this instance's included), and the
   * margin itself (`marginMs`: the lead a loss may take from this instance's own clock is bounded by it).
   */
  observeFleetClocks(ownOffsetMs: number, leadMs: number, lagMs: number, marginMs = Infinity): void {
    if (![ownOffsetMs, leadMs, lagMs].every(Number.isFinite)) return;
    const at = this.monotonicNow();
    this.ownOffsetMs = ownOffsetMs;
    this.clockSkewMarginMs = marginMs;
    this.ownOffsetWallLessMonotonic = this.now() - at;
    if (this.lostAtEffective !== null && this.lossOwnOffsetMs === null)
      this.lossOwnOffsetMs =
        ownOffsetMs -
        (this.ownOffsetWallLessMonotonic - this.lossWallLessMonotonic) -
        this.lossLeadTakenOffMs;
    // Kept for the margin beyond the readings' life: a lead read then still took lines stamped after a
    // loss now (`fleetLeadMs`). Every 5 s, 186 readings at most for 15 min; never more than 1024.
    const keptMs = FLEET_CLOCKS_READING_LIFE_MS + (Number.isFinite(marginMs) ? Math.max(0, marginMs) : 0);
    this.fleetClocks = this.fleetClocks.filter((r) => at - r.at < keptMs).slice(-1023);
    this.fleetClocks.push({ at, leadMs: Math.max(0, leadMs), lagMs: Math.max(0, lagMs) });
  }

  /**
   * A lead read from Redis (`lost-lead`, the hold key's value) within what an instance that records can
   * have: the clock skew margin (one beyond it records nothing). A buggy or hostile writer's hour made
   * every instance refuse every fresh line nonce_replay for the key's 25 h (a review).
   */
  private boundedLead(leadMs: number): number {
    return Math.min(this.clockSkewMarginMs, Math.max(0, leadMs));
  }

  /** An extension read from the hold key's value within the largest spread: twice the margin. */
  private boundedExtension(extensionMs: number): number {
    return Math.min(2 * this.clockSkewMarginMs, Math.max(0, extensionMs));
  }

  /**
   * The fleet's largest lead over Redis's clock read within FLEET_CLOCKS_READING_LIFE_MS (the last one
   * else), or read earlier less its age beyond that life: an instance `a` ahead, read `t` ago, accepted lines
   * stamped up to now + a − t, after a loss now while a > t, whether it has left the fleet or been set
   * right since (a review: one 45 s ahead gone 31 s before the loss, a line it took, stamped 14 s after
   * the loss, verified again after the hold with the default window).
   */
  private get fleetLeadMs(): number {
    const now = this.monotonicNow();
    const earlier = this.fleetClocks.map(
      (r) => r.leadMs - Math.max(0, now - r.at - FLEET_CLOCKS_READING_LIFE_MS),
    );
    return Math.max(0, ...this.recentFleetClocks().map((r) => r.leadMs), ...earlier);
  }

  /** The fleet's spread: its lead (`fleetLeadMs`) plus the largest lag read within FLEET_CLOCKS_READING_LIFE_MS. */
  private get fleetSpreadMs(): number {
    return this.fleetLeadMs + Math.max(0, ...this.recentFleetClocks().map((r) => r.lagMs));
  }

  private recentFleetClocks(): Array<{ leadMs: number; lagMs: number }> {
    const now = this.monotonicNow();
    const recent = this.fleetClocks.filter((r) => now - r.at < FLEET_CLOCKS_READING_LIFE_MS);
    const last = this.fleetClocks.at(-1);
    return recent.length > 0 || last === undefined ? recent : [last];
  }

  /**
   * How much later than `lostAtMs` the fleet's furthest-ahead clock read the loss (ms, at least 0): a line
   * accepted before the loss on instance I (offset o_I ≤ lead) was stamped at most L + o_I + skew, where L
   * is the loss on Redis's clock; this instance took the loss as lostAt = L + o_X on its own clock, so it
   * answers nonce_replay for a stamp s with s ≤ lostAt + (lead − o_X) + skew, that is L + lead + skew.
   * Never below 0 (this instance's own lead is one the fleet's includes). With no clock check (a margin
   * of 0, or none run yet) o_X counts as 0.
   */
  get lossLeadOverThisClockMs(): number {
    if (this.lostAtEffective === null) return 0;
    // Bounded here too: a lead learned before the first clock check had no margin to be bounded by.
    return Math.max(0, this.boundedLead(this.lossLeadMs) - (this.lossOwnOffsetMs ?? 0));
  }

  /** Sets this instance's hold to end at `untilMs` (wall clock), and notes that end on monotonic time. */
  private setHold(untilMs: number): void {
    const longestMs = this.holdMs + this.holdExtensionMs;
    this.hold.set(untilMs, longestMs);
    this.holdEndAt = this.monotonicNow() + Math.min(longestMs, Math.max(0, untilMs - this.now()));
  }

  /**
   * Calls `listener` whenever a hold starts on this instance (a loss it noticed, or another instance's
   * hold it adopted), and whenever a loss is seen again during it (a second restart from the same
   * snapshot: a review found the sessions it brought back kept), not for a loss found only after its
   * hold ended. The session store forgets the sessions stored before the loss then (once per Redis run
   * and dataset, so that calls for a loss already handled change nothing).
   */
  onLossHeld(listener: () => void): void {
    this.holdListeners.push(listener);
  }

  /**
   * The fleet's session epoch, which only ever grows, was read lower than before: Redis came back with
   * older data. A logout moves neither the replay counter nor this instance's key, so a restart from a
   * snapshot taken before a logout, with no line recorded since, was noticed by nothing (a review: the
   * logout was undone on every instance).
   */
  sessionEpochWentBack(): void {
    this.noticeLoss();
  }

  private lossHeld(): void {
    for (const listener of this.holdListeners) listener();
  }

  /** The counter is followed afresh from the next invocation's value (a loss was noticed or adopted). */
  private restartGenerationFollowing(): void {
    this.highestGeneration = null;
    this.ownGeneration = null;
    this.generationRestarts++;
  }

  private async read(): Promise<void> {
    // Before the read is sent: a hold adopted from its PTTL is counted from here, so that it never
    // outlasts the key by however late the reply was handled (a review: the late adopter's held read
    // found the key expired, set it again, and every instance whose hold had ended held once more).
    const sentAt = this.now();
    let value: string | null;
    let heldMs: number;
    let generation: number;
    // The counter is compared with the highest value answered before this read was sent: those
    // invocations ran before it in Redis. A reply handled while the read is in flight may come from an
    // invocation Redis ran after the read (its reply parsed in the same chunk, its callback run first),
    // whose higher value would look like the counter going back (a false loss under load, measured: a
    // hold a few seconds into a verify benchmark).
    const highestBeforeRead = this.highestGeneration;
    // Likewise its own key: the invocations answered before the read wrote it before the read ran.
    const ownBeforeRead = this.knownOwnGeneration;
    const restartsBeforeRead = this.generationRestarts;
    let own: number | null;
    let lossTimeOnRedis: number | null;
    let lossLeadOnRedis: number | null;
    let holdValue: string | undefined;
    let redisNowMs: number;
    let repliedAt: number;
    try {
      const candidate = `${this.now()}:${randomBytes(8).toString('hex')}`;
      const replies = (await this.redis
        .multi()
        .set(this.markerKey, candidate, 'NX')
        .get(this.markerKey)
        .pttl(this.holdKey)
        .get(this.generationKey)
        .get(this.ownGenerationKey)
        .get(this.lossTimeKey)
        .time()
        .get(this.holdKey)
        .get(this.lossLeadKey)
        .exec()) as Array<[Error | null, unknown]> | null;
      repliedAt = this.now();
      const failed: [Error, null] = [new Error('transaction discarded'), null];
      const [error, current] = replies?.[1] ?? failed;
      const [holdError, remaining] = replies?.[2] ?? failed;
      const [generationError, counter] = replies?.[3] ?? failed;
      const [ownError, ownValue] = replies?.[4] ?? failed;
      const [lossTimeError, lossTimeValue] = replies?.[5] ?? failed;
      const [timeError, time] = replies?.[6] ?? failed;
      const [, holdText] = replies?.[7] ?? failed;
      const [, leadText] = replies?.[8] ?? failed;
      if (error || holdError || generationError || ownError || lossTimeError || timeError) return;
      lossTimeOnRedis = typeof lossTimeValue === 'string' ? Number(lossTimeValue) : null;
      holdValue = typeof holdText === 'string' ? holdText : undefined;
      lossLeadOnRedis = typeof leadText === 'string' ? Number(leadText) : null;
      const [seconds, micros] = Array.isArray(time) ? time.map(Number) : [NaN, NaN];
      redisNowMs = (seconds as number) * 1000 + Math.floor((micros as number) / 1000);
      value = typeof current === 'string' ? current : null;
      heldMs = Number(remaining);
      generation = Number(counter ?? 0);
      own = typeof ownValue === 'string' ? Number(ownValue) : null;
    } catch {
      return;
    }
    if (value === null) return;
    const keptLossAt = this.learnLossTime(lossTimeOnRedis, lossLeadOnRedis, redisNowMs, sentAt, repliedAt);
    // A hold adopted from a record invocation's reply whose key is gone before a read found it: the
    // `lost-at` read now raises the loss time all the same, capped at this hold's end less the hold (a
    // review: an overstated extension in the key's last moments took the loss early, and a used line
    // verified again with a 24 h window).
    if (this.adoptedWithoutLossTime && !(heldMs > 0) && keptLossAt !== null && this.holdEndAt !== null) {
      this.adoptedWithoutLossTime = false;
      const holdEnd = this.now() - (this.monotonicNow() - this.holdEndAt);
      this.raiseLossTime(keptLossAt, holdEnd - this.holdMs);
    }
    const markerChanged = this.known !== null && value !== this.known;
    // This instance holds and the shared hold is gone (a second flush within the hold, a restart from a
    // snapshot without it): put it back for the rest of this hold, else an instance started now records
    // at once. The sessions it brought back are forgotten again too. Not when the marker changed (the
    // loss noticed below does all this), nor within the margin of this instance's own end: that is the
    // key's own expiry, ahead of this instance's estimate by the clocks' parting, and set again it was
    // adopted as a new loss by the instances whose hold had ended (a review). A loss there is still seen
    // by what shows one (the marker, the counters, the session epoch); lost-at is put back all the same.
    const holdLeft = this.hold.remainingMs();
    if (!(heldMs > 0) && holdLeft > 0 && !markerChanged) {
      this.publishLossTime();
      if (holdLeft > sameHoldMarginMs(this.holdMs)) {
        this.publishHold();
        this.lossHeld();
      }
    }
    // The key ends sooner than this instance's hold, beyond the margin (another noticer of this loss, with
    // a narrower reading of the spread, won its SET NX; this instance's lengthening was lost): lengthen it
    // again, else it expired before this hold, the others recorded, and the key this instance set again
    // then was taken for a new loss (a review).
    if (heldMs > 0 && !markerChanged && holdLeft - heldMs > sameHoldMarginMs(this.holdMs)) this.publishHold();
    const readBefore = this.lastReadAt;
    this.lastReadAt = this.monotonicNow();
    this.known = value;
    // A hold another instance started covers this loss too: adopt it, never start another (each
    // instance noticing one loss would re-arm the hold).
    if (heldMs > 0) return this.adoptHold(heldMs - Math.max(0, repliedAt - sentAt), holdValue, keptLossAt);
    if (markerChanged) {
      // This instance was away (paused, cut off) for longer than a hold, and the new marker was made
      // longer ago than a hold too: the loss's hold is over and lines used before it are stale.
      // Reported, not held again. Either alone is no proof: a marker restored from an old backup is old
      // while this instance read all along, and a marker's time is another machine's clock (either alone
      // would let a hold be suppressed).
      const madeAt = Number(value.slice(0, value.indexOf(':')));
      const away = readBefore !== null && this.lastReadAt - readBefore >= this.holdMs;
      if (away && Number.isFinite(madeAt) && this.now() - madeAt >= this.holdMs)
        return this.reportPastLoss(madeAt);
      return this.noticeLoss();
    }
    // The counter below the highest this instance was answered: Redis came back with older data (read on
    // connecting too, so the instance that made the newest records finds a restart from a snapshot before
    // other instances' records push the counter past it).
    if (this.generationRestarts !== restartsBeforeRead) return;
    if (highestBeforeRead !== null && generation < highestBeforeRead) return this.noticeLoss();
    // Its own key below what it wrote there, or gone: older data, whatever other instances did since.
    if (ownBeforeRead !== null && (own === null || own < ownBeforeRead)) this.noticeLoss();
  }

  /** Starts a hold here and for every instance (the hold key, unless one is set), and reports the loss. */
  private noticeLoss(): void {
    const at = this.now();
    // From here the counter is followed afresh (the regressed value is the new start, not a new loss).
    this.restartGenerationFollowing();
    // One loss seen several ways at once (the reconnection check and the record invocations in flight):
    // one report while this instance's hold runs. The shared hold is set again all the same: a second
    // loss within the hold (a second flush) takes the hold key too. Not in the hold's last
    // `sameHoldMarginMs`: other instances' holds, parting from this one's by up to that margin, may have
    // ended and recorded, and this loss took their records: a new loss, held whole from now (a review of
    // 1.14.0: the key put back for the moment left was adopted as the loss's hold, and a line recorded
    // then verified again with the default window).
    if (this.hold.remainingMs() > sameHoldMarginMs(this.holdMs)) {
      this.publishHold();
      // The second loss took lost-at too: put back this loss's time, else an instance started after the
      // hold knows of none (a review).
      this.publishLossTime();
      return this.lossHeld();
    }
    this.lostAt = at;
    this.lostAtMonotonic = this.monotonicNow();
    this.lostAtEffective = this.withoutLead(at);
    this.takeLossOffset(true);
    this.adoptedWithoutLossTime = false;
    // The fleet's clocks as this instance last read them (the reports went with the data): the hold waits
    // out their spread too, and every instance refuses lines stamped up to the loss plus the lead.
    // With this instance's own lead now: a step ahead since its last check took lines stamped on it (a
    // review). Within the margin: beyond it this instance records nothing, so it accepted none of them.
    this.lossLeadMs = Math.max(
      this.fleetLeadMs,
      Math.min(this.clockSkewMarginMs, this.offsetAsTakenNow(false) ?? 0),
    );
    // No hold asked (REDIS_LOSS_HOLD_MS=0: records again at once), none for the spread either (a review).
    this.holdExtensionMs = this.holdMs > 0 ? this.fleetSpreadMs : 0;
    this.knownLossHoldMs = this.holdMs + this.holdExtensionMs;
    this.setHold(at + this.holdMs + this.holdExtensionMs);
    this.options.onLoss?.(at, this.holdMs + this.holdExtensionMs);
    this.publishHold();
    this.publishLossTime();
    this.lossHeld();
  }

  /**
   * Keeps the loss's time in Redis (Redis's clock) for a day and an hour, so that an instance started
   * after the loss knows it too (an upgrade probe: every instance a rolling upgrade restarted after a
   * loss verified lines used before it once more when asked with a long window).
   */
  private publishLossTime(when: 'later' | 'absent' = 'later'): void {
    const ageMs =
      this.lostAtMonotonic === null ? 0 : Math.max(0, Math.floor(this.monotonicNow() - this.lostAtMonotonic));
    void this.recordLossTime
      .call(
        this.redis,
        this.lossTimeKey,
        this.lossLeadKey,
        LOSS_TIME_TTL_MS,
        ageMs,
        when,
        Math.round(this.boundedLead(this.lossLeadMs)),
        Math.max(1000, this.holdMs),
      )
      .catch(() => undefined);
  }

  /**
   * Takes a loss another instance noticed (`lost-at`, Redis's clock) when it is later than the one this
   * instance knows, on this instance's clock (Redis's time then less Redis's time now, from `sentAt`, the
   * read's send: Redis read its clock after that, and a reply handled late made the loss later by the
   * delay, refusing lines stamped after it nonce_replay), never after now. A second of jitter is no other
   * loss. Returns the kept `lost-at` on this instance's clock (as `lostAt` holds it, before `withoutLead`),
   * or null: none, or one later than Redis's clock (`adoptHold` takes no time from it).
   */
  private learnLossTime(
    lossTimeOnRedis: number | null,
    lossLeadOnRedis: number | null,
    redisNowMs: number,
    sentAt: number,
    repliedAt: number,
  ): number | null {
    if (lossTimeOnRedis === null || !Number.isFinite(lossTimeOnRedis) || !Number.isFinite(redisNowMs))
      return null;
    const kept = redisNowMs >= lossTimeOnRedis ? sentAt - (redisNowMs - lossTimeOnRedis) : null;
    // The fleet's lead for the loss kept: never lowered here for the loss this instance knows (a lower
    // one is kept for a later loss, taken below with it).
    const leadOnRedis =
      lossLeadOnRedis !== null && Number.isFinite(lossLeadOnRedis) ? this.boundedLead(lossLeadOnRedis) : null;
    if (lossTimeOnRedis === this.learnedLossTime) {
      if (leadOnRedis !== null && leadOnRedis > this.lossLeadMs) this.lossLeadMs = leadOnRedis;
      return kept;
    }
    // One value is one loss: learned once. A value later than Redis's clock (Redis's clock set back since,
    // or a failover to a replica behind the primary that wrote it) read as now at every check, and verify
    // answered every line nonce_replay for as long as it outran Redis's clock (a review).
    this.learnedLossTime = lossTimeOnRedis;
    // Never after now: both on the footing `withoutLead` gives (a review: the clamp to the raw reply time
    // counted a step since start twice, refusing fresh lines).
    const here = this.withoutLead(Math.min(repliedAt, sentAt - (redisNowMs - lossTimeOnRedis)));
    // A value within the known loss's hold is that loss: a new one is noticed only once the hold is over
    // (within it, the holders put the loss's time back). A 1.12.0 instance started late in a lengthened
    // hold raises it by the extension, reading the key's time to live against its own hold; taken as a
    // new loss with the fleet's lead on top, fresh lines made after the hold were refused (an upgrade probe).
    // Compared on one footing (Redis's clock): this instance's clock may have stepped since (a review).
    const hereOnRedis = here - (this.offsetAsTakenNow(true) ?? 0);
    const knownOnRedis =
      this.lostAtEffective === null ? null : this.lostAtEffective - (this.lossOwnOffsetMs ?? 0);
    if (knownOnRedis !== null && hereOnRedis <= knownOnRedis + Math.max(1000, this.knownLossHoldMs)) {
      if (leadOnRedis !== null && leadOnRedis > this.lossLeadMs) this.lossLeadMs = leadOnRedis;
      return kept;
    }
    this.lostAtEffective = here;
    this.takeLossOffset(true);
    this.knownLossHoldMs = this.holdMs;
    // A loss of a 1.12.0 or older noticer keeps no lead: this instance's own reading of the fleet then.
    this.lossLeadMs = leadOnRedis ?? this.fleetLeadMs;
    if (this.lostAt === null || here > this.lostAt) {
      this.lostAt = here;
      this.lostAtMonotonic =
        this.monotonicNow() - (this.now() - Math.min(repliedAt, sentAt - (redisNowMs - lossTimeOnRedis)));
    }
    return kept;
  }

  /**
   * Sets the shared hold key for what remains of this instance's hold, unless one is set that ends within
   * `sameHoldMarginMs` of that or later. Two noticers of one loss whose readings of the fleet's spread
   * differ (a clock step one's last check saw and the other's did not) both try: the first SET NX won, so
   * the fleet held for the narrower extension, the wider noticer set the key again once it expired, and
   * every other instance recorded in between and reported a second loss (a review: 4 s apart). The wider
   * one lengthens the key now; holders follow a longer key at their reads (every 0.5 s while holding),
   * long before the shorter one would end. A noticer of the same loss within the margin of the key's
   * maker re-arms nothing; one later than that (a way that does not read the key: the session epoch
   * read lower) lengthens the key by as much, rather than set it again once it has expired.
   */
  private publishHold(): void {
    const remaining = this.holdRemainingMs;
    if (remaining <= 0) return;
    void this.setHoldKey
      // Never more than this hold is long: what this instance holds, the fleet holds. Its value names the
      // fleet's lead and the extension, so that an adopter takes the loss's time right.
      .call(
        this.redis,
        this.holdKey,
        `${new Date(this.now() + remaining).toISOString()} lead=${Math.round(this.boundedLead(this.lossLeadMs))} extended=${Math.round(this.holdExtensionMs)}`,
        // Whole ms: Redis refuses a fractional PX (a lead counted less its age, on monotonic time, made one).
        Math.ceil(Math.min(remaining, this.holdMs + this.holdExtensionMs)),
        Math.ceil(sameHoldMarginMs(this.holdMs)),
      )
      .catch(() => undefined);
  }

  /** A loss whose hold is over: logged and noted, recording goes on. */
  private reportPastLoss(madeAt: number): void {
    this.restartGenerationFollowing();
    // The marker's time, made by another clock: taken as it is, but never below a later loss already
    // known (one learned from lost-at in this very read: Redis back from a snapshot taken after the
    // marker was made, which the marker survives; a review).
    if (this.lostAt === null || madeAt > this.lostAt) {
      this.lostAt = madeAt;
      this.lostAtMonotonic = this.monotonicNow() - (this.now() - madeAt);
    }
    const madeAtFor = madeAt - (this.offsetAsTakenNow(false) ?? 0);
    const knownFor =
      this.lostAtEffective === null ? null : this.lostAtEffective - (this.lossOwnOffsetMs ?? 0);
    if (knownFor === null || madeAtFor > knownFor) {
      this.lostAtEffective = madeAt;
      this.takeLossOffset(false);
      this.knownLossHoldMs = this.holdMs;
      this.lossLeadMs = Math.max(this.lossLeadMs, this.fleetLeadMs);
    }
    this.options.onLoss?.(madeAt, 0);
    // No instance may have written it (the marker's maker started after the loss, with nothing to see):
    // the instances started later learn it from here (an e2e probe). Only where none is kept: the
    // marker's time is another machine's clock, and one ahead would make a time kept by an instance
    // that saw the loss later (fresh lines stamped in between refused for 25 h; a review).
    this.publishLossTime('absent');
  }

  /** The marker's value as this instance last read it, or null before the first read. */
  get knownMarker(): string | null {
    return this.known;
  }

  /** The highest generation this instance was answered, or null before its first record. */
  get knownGeneration(): number | null {
    return this.highestGeneration;
  }

  /**
   * When the last loss was noticed here or reported by another instance's hold (ms), or null. One this
   * instance noticed while its wall clock was ahead of where it read at start (a step ahead) is taken
   * back by that lead: noticed during a step, it read as later than every fresh line once the clock came
   * back, and verify answered them all nonce_replay (a review). A step afterwards changes nothing (a
   * later step back lowered it, and used lines stamped in between verified again: a second review).
   */
  get lostAtMs(): number | null {
    return this.lostAtEffective;
  }

  /** `atMs` (now) less the wall clock's lead over its start reading, when that is over a second (jitter). */
  private withoutLead(atMs: number): number {
    const leadMs = this.now() - this.monotonicNow() - this.startOffset;
    return leadMs > 1000 ? Math.floor(atMs - leadMs) : atMs;
  }

  /**
   * Notes this instance's offset for the loss's time just taken (`offsetAsTakenNow`), or, before the first
   * clock check, what that check needs to work it out (`observeFleetClocks`).
   */
  private takeLossOffset(takenWithoutLead: boolean): void {
    this.lossOwnOffsetMs = this.offsetAsTakenNow(takenWithoutLead);
    this.lossWallLessMonotonic = this.now() - this.monotonicNow();
    const leadMs = this.lossWallLessMonotonic - this.startOffset;
    this.lossLeadTakenOffMs = takenWithoutLead && leadMs > 1000 ? Math.floor(leadMs) : 0;
  }

  /**
   * This instance's offset from Redis's clock now (its last check's, moved by any step of the wall clock
   * since), on the same footing as a time taken now: less the lead `withoutLead` takes off, for a time
   * taken with it (`takenWithoutLead`). A loss's boundary is its time less this offset plus the fleet's
   * lead (`lossLeadOverThisClockMs`): an offset that included a step `withoutLead` had taken off already
   * counted the step twice (a review: a clock set right since start, 3 s, verified a used line again).
   * Null before the first check.
   */
  private offsetAsTakenNow(takenWithoutLead: boolean): number | null {
    if (this.ownOffsetMs === null) return null;
    const wallLessMonotonic = this.now() - this.monotonicNow();
    const offsetNow = this.ownOffsetMs + (wallLessMonotonic - this.ownOffsetWallLessMonotonic);
    const leadMs = wallLessMonotonic - this.startOffset;
    return takenWithoutLead && leadMs > 1000 ? offsetNow - Math.floor(leadMs) : offsetNow;
  }

  /** Why recording is refused now (within the hold after a loss), or undefined. */
  get problem(): string | undefined {
    if (this.hold.remainingMs() === 0) return undefined;
    return `redis lost replay records (noticed at ${new Date(this.lostAt ?? this.now()).toISOString()}: a restart without persistence, a flush, or data older than seen before): recording refused until ${new Date(this.now() + this.hold.remainingMs()).toISOString()}, when lines (in the default 300 s window) and login challenges used before the loss are stale${this.holdExtensionMs > 0 ? ` (the hold, ${Math.round(this.holdMs / 1000)} s, lengthened by the fleet's clock spread, ${Math.round(this.holdExtensionMs / 1000)} s)` : ''}`;
  }

  /** Milliseconds until recording is allowed again (0 when it is now). */
  get holdRemainingMs(): number {
    return this.hold.remainingMs();
  }

  /** A note for health for a while after a loss (once recording is allowed again), or undefined. */
  get notice(): string | undefined {
    if (this.lostAt === null || this.problem !== undefined) return undefined;
    if (this.now() >= this.lostAt + this.noticeMs) return undefined;
    // The boundary is later than "noticed at" by the fleet's clock lead over this clock (and the verify's
    // future skew): an operator chasing a nonce_replay for a line stamped after it is told why (a review).
    const leadS = Math.ceil(this.lossLeadOverThisClockMs / 1000);
    const later =
      leadS > 0 ? `, or up to ${leadS} s after (the fleet's clock lead) and HOLA_FUTURE_SKEW_MS more,` : '';
    return `redis lost replay records (noticed at ${new Date(this.lostAt).toISOString()}): lines stamped before then${later} are answered nonce_replay by this instance, whatever constraints.maxAgeMs asks (so do instances started within 25 h after it); run Redis with persistence (AOF) or a replica`;
  }

  stop(): void {
    clearInterval(this.timer);
  }
}
