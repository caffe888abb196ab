/**
 * A Lua script that serves every call made in one event-loop turn with one invocation (one EVALSHA), and
 * under load the calls of several turns (invocations spaced `invocationIntervalMs` apart).
 *
 * Why: under load the verify route makes two script calls per request (the public rate-limit take and
 * the replay record), and several requests reach them in the same turn; ioredis's work per command (a
 * Command object, encoding, parsing the reply) is then paid once per turn. Measured: with 6 concurrent
 * callers the client's CPU per verify fell from 41.5 to 30.0 µs (scripts/redis-verify-cost.ts); Redis's
 * own CPU per verify did not change (the commands inside the scripts are most of it), and the verify
 * bench on a quiet machine moved within its spread (2.3 calls per invocation on average there).
 *
 * What stays the same: the calls run one after another, in the order they were made, inside one atomic
 * script, exactly as the separate scripts of one pipeline ran before (a take or a record made later in
 * the turn sees the earlier ones). Each call gets its own reply, and its own error: a call that fails in
 * Redis (a key of the wrong type) fails alone (`pcall`); the others are served. A failure of the whole
 * invocation fails every call of it: the connection lost, the command timeout (one timeout now covers
 * every call of the invocation, up to 128), or an error in the prelude (the replay record's out-of-memory
 * guard, on purpose: nothing is recorded on a full Redis). Redis Cluster: every key of one script lies under one hash tag (the store's), so a batch of
 * calls still touches one slot.
 */
import { type RedisConnection, atEndOfTurn, corkForThisTurn, registerScriptCommand } from './redis-client.js';

export interface BatchedScriptDefinition {
  /**
   * Lua run once per invocation before the calls; it may read the shared keys (`KEYS[1]`…) and define
   * locals the calls use (Redis's clock, a counter read once).
   */
  readonly prelude: string;
  /** Keys every call uses, declared once at the head of KEYS. */
  readonly sharedKeys: readonly string[];
  /**
   * Names of arguments sent once per invocation, at the head of ARGV (Lua locals the prelude and the
   * calls read); their values come from `sharedArgValues` when the invocation is sent. Each argument
   * costs Redis about as much as a small command to read (measured: ~830 instructions), so a value that
   * is the same for every call of a turn is sent once.
   */
  readonly sharedArgs?: readonly string[];
  /** Names of one call's own keys (Lua parameter names), e.g. `['rec', 'ownerKey']`. */
  readonly callKeys: readonly string[];
  /** Names of one call's arguments (Lua parameter names; they arrive as strings). */
  readonly callArgs: readonly string[];
  /**
   * The body of the call's Lua function; it returns the call's reply: a number or a table (array), never
   * a string (a string in a call's place is its error). A number is the cheapest reply (a three-number
   * table costs Redis ~7 500 instructions to build and answer, a number ~1 300), so a common outcome
   * is best a number.
   */
  readonly callBody: string;
  /**
   * A Lua expression evaluated after the calls (the prelude's locals in scope), answered once per
   * invocation beside the calls' replies and handed to `onInvocationReply` before any call is settled:
   * for values every call of an invocation shares (Redis's clock, a counter read once).
   */
  readonly invocationReply?: string;
  /**
   * Lua run once after the calls, before `invocationReply`: for writes the calls deferred (several calls
   * on one key written once). It may set `replies[n]` (n: a call's number, which a call reads as
   * `callNo`) to an error text, so that a deferred write that fails fails the calls it was written for.
   */
  readonly epilogue?: string;
  /** Calls per invocation at most (default 128): a bigger turn is sent in several invocations. */
  readonly maxCallsPerInvocation?: number;
}

/**
 * How long (ms) after an invocation of a script its next one may leave under load (default 0: never
 * held back; an option of the Redis stores): calls made sooner wait for the rest of it. Under load a turn holds few calls (2–3 per invocation on the verify
 * bench), and an invocation costs Redis a fixed part besides its calls (waking up, reading the command,
 * the prelude's reads, the reply: about 27 µs in all on the machine of 2026-11-27,
 * scripts/redis-verify-cost.ts at 6 against 50 concurrent verifies), so spacing invocations lets one
 * carry the calls of several turns. Under load means callers overlap: the last invocation carried more
 * than one call or has not been answered yet. A caller alone, awaiting each call before the next (a
 * probe: 1.2 ms a call against 0.1), gains nothing from waiting and does not wait; nor does a call made
 * after a quiet interval. The same trade as the SQLite replay store's commit interval: at most this much
 * more latency, and only under load. Measured at 1 ms (profile-app and the verify bench, 2026-11-27):
 * Redis's CPU per verify 24.5–26.3 → 19.9–21.2 µs, but one instance's verify rate on the 2-core machine
 * 0.72–0.73 → 0.67–0.71 of raw (the calls' wait left its cores idle). Off by default; worth it where
 * Redis's one core is what a fleet runs out of first.
 */
export const DEFAULT_REDIS_INVOCATION_INTERVAL_MS = 0;

/** One call: its own keys, then its arguments, in the definition's order; resolves with its reply. */
export type BatchedScriptCall = (...keysThenArgs: Array<string | number>) => Promise<unknown>;

const DEFAULT_MAX_CALLS_PER_INVOCATION = 128;

/**
 * The script text: the shared arguments as locals, the prelude, the call as a local function, the loop
 * that runs each call in pcall, the epilogue, and the invocation's own reply after the calls' when there
 * is one.
 */
export function batchedScriptLua(definition: BatchedScriptDefinition): string {
  const shared = definition.sharedKeys.length;
  const sharedArgs = definition.sharedArgs ?? [];
  const keysPerCall = definition.callKeys.length;
  const argsPerCall = definition.callArgs.length;
  const parameters = [...definition.callKeys, ...definition.callArgs].join(', ');
  const keyRefs = definition.callKeys.map((_, j) => `KEYS[kb + ${j + 1}]`);
  const argRefs = definition.callArgs.map((_, j) => `ARGV[ab + ${j + 1}]`);
  const sharedArgLocals =
    sharedArgs.length > 0
      ? `local ${sharedArgs.join(', ')} = ${sharedArgs.map((_, j) => `ARGV[${j + 1}]`).join(', ')}\n`
      : '';
  const calls = `(#KEYS - ${shared}) / ${keysPerCall}`;
  return `${sharedArgLocals}local replies, callNo = {}, 0
${definition.prelude}
local function call(${parameters})
${definition.callBody}
end
for i = 0, ${calls} - 1 do
  local kb, ab = ${shared} + i * ${keysPerCall}, ${sharedArgs.length} + i * ${argsPerCall}
  callNo = i + 1
  local ok, reply = pcall(call, ${[...keyRefs, ...argRefs].join(', ')})
  if ok then replies[i + 1] = reply
  elseif type(reply) == 'table' and reply.err then replies[i + 1] = reply.err
  else replies[i + 1] = tostring(reply) end
end
${definition.epilogue === undefined ? '' : `${definition.epilogue}\n`}${definition.invocationReply === undefined ? '' : `replies[${calls} + 1] = ${definition.invocationReply}\n`}return replies
`;
}

export interface BatchedScriptOptions {
  /** The values of the definition's `sharedArgs`, read when an invocation is sent. */
  readonly sharedArgValues?: (() => ReadonlyArray<string | number>) | undefined;
  /**
   * Receives the invocation's own reply (the definition's `invocationReply`) before its calls settle, and
   * the ms from just before the invocation was sent to its reply being handled here (performance.now): a
   * time Redis read in the script (a PTTL, its clock) was at most that long ago, and a reply handled
   * late (a busy event loop, a pause) is not taken for a fresh one.
   */
  readonly onInvocationReply?: ((reply: unknown, roundTripMs: number) => void) | undefined;
  /** See DEFAULT_REDIS_INVOCATION_INTERVAL_MS; 0 sends every turn's calls at the end of that turn. */
  readonly invocationIntervalMs?: number | undefined;
}

interface Batch {
  readonly values: Array<string | number>;
  readonly args: Array<string | number>;
  readonly waiters: Array<{ resolve: (reply: unknown) => void; reject: (error: Error) => void }>;
  /** The wait for the end of the interval, if it waits (cleared when it leaves full before that). */
  timer?: NodeJS.Timeout;
}

/**
 * Registers the script on `client` and returns its call. Calls are sent at the end of a turn (with the
 * turn's other script calls, in one write) as one invocation per `maxCallsPerInvocation` calls: the turn
 * they were made in, or, within `invocationIntervalMs` of the last invocation, the first turn after that
 * interval. A call's reply is its number or table; a string in its place is its error.
 */
export function defineBatchedScript(
  client: RedisConnection,
  name: string,
  definition: BatchedScriptDefinition,
  options: BatchedScriptOptions = {},
): BatchedScriptCall {
  const sharedArgCount = definition.sharedArgs?.length ?? 0;
  if (sharedArgCount > 0 && options.sharedArgValues === undefined)
    throw new TypeError(`${name}: sharedArgs need sharedArgValues`);
  const withInvocationReply = definition.invocationReply !== undefined;
  // No numberOfKeys: each invocation passes its own count (the shared keys and every call's keys).
  const command = registerScriptCommand(client, name, batchedScriptLua(definition));
  const keysPerCall = definition.callKeys.length;
  const argsPerCall = definition.callArgs.length;
  const maxCalls = definition.maxCallsPerInvocation ?? DEFAULT_MAX_CALLS_PER_INVOCATION;
  const intervalMs = options.invocationIntervalMs ?? DEFAULT_REDIS_INVOCATION_INTERVAL_MS;
  if (!Number.isFinite(intervalMs) || intervalMs < 0)
    throw new RangeError(`${name}: invocationIntervalMs must be a non-negative number`);
  let open: Batch | undefined;
  /** When (performance.now()) the last invocation left: the next leaves `intervalMs` later at the earliest. */
  let lastSentAt = Number.NEGATIVE_INFINITY;
  /** Calls the last invocation carried, and invocations sent but not answered yet: whether callers overlap. */
  let lastCalls = 0;
  let inFlight = 0;

  const send = (batch: Batch): void => {
    if (open === batch) open = undefined;
    if (batch.timer !== undefined) clearTimeout(batch.timer);
    const sentAt = performance.now();
    lastSentAt = sentAt;
    lastCalls = batch.waiters.length;
    inFlight++;
    const { values, args, waiters } = batch;
    // values holds the key count's slot, the shared keys and every call's keys; the shared arguments and
    // every call's arguments follow.
    values[0] = values.length - 1;
    corkForThisTurn(client);
    let sent: Promise<unknown>;
    try {
      if (sharedArgCount > 0) {
        const shared = options.sharedArgValues!();
        for (let j = 0; j < sharedArgCount; j++) values.push(shared[j]);
      }
      for (const arg of args) values.push(arg);
      sent = command.apply(client, values);
    } catch (error) {
      sent = Promise.reject(error as Error);
    }
    sent.then(
      (replies) => {
        inFlight--;
        if (!Array.isArray(replies) || replies.length !== waiters.length + (withInvocationReply ? 1 : 0)) {
          const error = new Error(`${name}: ${waiters.length} calls got an unexpected reply`);
          for (const waiter of waiters) waiter.reject(error);
          return;
        }
        if (withInvocationReply) {
          try {
            options.onInvocationReply?.(replies[waiters.length], performance.now() - sentAt);
          } catch (error) {
            for (const waiter of waiters) waiter.reject(error as Error);
            return;
          }
        }
        for (let i = 0; i < waiters.length; i++) {
          const reply: unknown = replies[i];
          if (typeof reply === 'string') waiters[i].reject(new Error(reply));
          else waiters[i].resolve(reply);
        }
      },
      (error: Error) => {
        inFlight--;
        for (const waiter of waiters) waiter.reject(error);
      },
    );
  };

  return (...keysThenArgs) =>
    new Promise((resolve, reject) => {
      let batch = open;
      if (!batch) {
        batch = { values: [0, ...definition.sharedKeys], args: [], waiters: [] };
        open = batch;
        const scheduled = batch;
        const sendIfOpen = () => {
          if (open === scheduled) send(scheduled);
        };
        const underLoad = lastCalls > 1 || inFlight > 0;
        const wait = underLoad ? lastSentAt + intervalMs - performance.now() : 0;
        // After the wait, at the end of that turn: the calls made in it join.
        if (wait <= 0) atEndOfTurn(sendIfOpen);
        else batch.timer = setTimeout(() => atEndOfTurn(sendIfOpen), wait);
      }
      for (let j = 0; j < keysPerCall; j++) batch.values.push(keysThenArgs[j]);
      for (let j = keysPerCall; j < keysPerCall + argsPerCall; j++) batch.args.push(keysThenArgs[j]);
      batch.waiters.push({ resolve, reject });
      if (batch.waiters.length >= maxCalls) send(batch);
    });
}
