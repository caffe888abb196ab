/**
 * What the suites of a Redis loss with instance clocks off Redis's share (redis-loss-clock-*.spec.ts and
 * their kin): windows scaled down (W = 6 s, skew 1 s, hold 8 s, a clock skew margin of 60 s), one
 * passport on an in-memory chain, HOLA lines stamped at a chosen time, and the waits the suites make.
 */
import { buildHolaLine, createHolaVerifier, createNobleSigner, createNobleVerifier } from '@passport/core';
import { implicitAccountId } from '@passport/core/codecs';
import { MemoryChainReader } from '@passport/core/testing';
import { RedisHistoryWatch, RedisReplayStore } from '@passport/adapters/redis';
import { type redisLossFleet } from './redis-loss-fleet.js';

type LossFleet = ReturnType<typeof redisLossFleet>;

export const SERVICE_HOST = 'loss-clocks.test:3000';
/** The verify window (the default 300 s, scaled down). */
export const W = 6_000;
/** HOLA_FUTURE_SKEW_MS. */
export const SKEW = 1_000;
/** The loss hold the app would derive from W and SKEW. */
export const HOLD = W + SKEW + 1_000;
/** The longest window a verify may ask. */
export const DAY = 86_400_000;
/** The clock skew margin (15 min in the app, scaled down). */
export const MARGIN = 60_000;
export const TOKEN = 'chbvcnurbkuw';
export const owner = createNobleSigner(new Uint8Array(32).fill(11));
export const chain = new MemoryChainReader({
  contractId: 'loss-clocks.test',
  passports: [
    {
      tokenId: TOKEN,
      ownerId: implicitAccountId(owner.publicKey),
      contractId: 'loss-clocks.test',
      metadata: { not_before: '2020-01-01', not_after: '2099-01-01' },
      revoked: false,
    },
  ],
});

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let nonces = 0;
/** A fresh line of TOKEN's (a new nonce each time) stamped at `stampedMs`. */
export const line = (stampedMs: number): string =>
  buildHolaLine({
    recipient: 'MUNDO',
    senderTokenId: TOKEN,
    timestamp: new Date(stampedMs).toISOString(),
    nonceHex: (++nonces).toString(16).toUpperCase().padStart(32, '0'),
    serviceHost: SERVICE_HOST,
    signer: owner,
  });

interface ClockedInstance {
  readonly watch: RedisHistoryWatch;
  checkClock(): Promise<void>;
}

/** Every instance connected, and each has read the others' clock reports. */
export async function started(...instances: ClockedInstance[]): Promise<void> {
  for (const i of instances) await i.watch.check();
  for (let round = 0; round < 2; round++) for (const i of instances) await i.checkClock();
}

/** Waits for `i`'s hold to end (it records again), then a little more. */
export async function holdOver(i: ClockedInstance): Promise<void> {
  while (i.watch.holdRemainingMs > 0) await sleep(50);
  await sleep(100);
}

/**
 * One instance of the fleet: its own connection, loss watch (hold HOLD) and replay store (margin MARGIN),
 * and the core's verify on its clock. `nowMs` undefined: the system clock (Date.now) and monotonic time
 * (performance.now), as the server wires them; `intervalMs` large: no periodic read but while holding (an
 * instance away is one the test does not read with).
 */
export function lossInstance(
  fleet: LossFleet,
  prefix: string,
  options: { readonly nowMs?: () => number; readonly intervalMs?: number } = {},
) {
  const { nowMs, intervalMs } = options;
  const client = fleet.client();
  const clock = nowMs ?? (() => Date.now());
  const watch = fleet.track(new RedisHistoryWatch(client, { prefix, holdMs: HOLD, intervalMs, nowMs }));
  const store = new RedisReplayStore(client, { prefix, clockSkewMarginMs: MARGIN, history: watch });
  const verifier = createHolaVerifier({
    chain,
    replay: store,
    clock: { nowMs: clock },
    verifier: createNobleVerifier(),
    serviceHost: SERVICE_HOST,
    futureSkewMs: SKEW,
  });
  return {
    nowMs: clock,
    watch,
    store,
    /** Connected (the first command waits for the connection). */
    connected: () => client.ping(),
    /** The verify's body, or the error (503 during a hold). */
    verify: (hola: string, maxAgeMs = W) =>
      verifier.verify({ hola, maxAgeMs }).then(
        (result) => result.body,
        (error: unknown) => error as Error,
      ),
    checkClock: () => store.checkClock(clock),
  };
}
export type LossInstance = ReturnType<typeof lossInstance>;

/**
 * An instance the test reads with only when it says so (no periodic read but while holding: an instance
 * away is one the test does not read with), connected before the test's first read.
 */
export async function awayInstance(
  fleet: LossFleet,
  prefix: string,
  nowMs?: () => number,
): Promise<LossInstance> {
  const i = lossInstance(fleet, prefix, { nowMs, intervalMs: 1e9 });
  await i.connected();
  return i;
}

/** An instance whose clock reads `offsetMs` off the system clock (ahead when positive). */
export function offsetInstance(fleet: LossFleet, prefix: string, offsetMs: number): LossInstance {
  return lossInstance(fleet, prefix, { nowMs: () => Date.now() + offsetMs });
}

/** Redis's own clock (TIME), in whole ms. */
export async function redisNowMs(fleet: LossFleet): Promise<number> {
  const [seconds, micros] = (await fleet.client().time()).map(Number) as [number, number];
  return seconds * 1000 + Math.floor(micros / 1000);
}

/** The real time (the system wall clock as it was when this module loaded, never stepped). */
export const realNow = Date.now.bind(Date);

/**
 * Replaces the system wall clock (Date.now) for the suite by one the test steps: set `offsetMs` (the
 * step from the real time); monotonic time (performance.now) is untouched, as in a real step.
 */
export function steppedSystemClock(): { offsetMs: number } {
  const clock = { offsetMs: 0 };
  beforeAll(() => {
    Date.now = () => realNow() + clock.offsetMs;
  });
  afterAll(() => {
    Date.now = realNow;
  });
  return clock;
}

/** Flushes Redis and lets `noticer` find the loss, then every other instance adopt its hold. */
export async function lose(
  fleet: LossFleet,
  noticer: LossInstance,
  ...others: LossInstance[]
): Promise<void> {
  await fleet.server.flush();
  await noticer.watch.check();
  expect(noticer.watch.holdRemainingMs).toBeGreaterThan(0);
  for (const i of others) {
    await i.watch.check();
    expect(i.watch.holdRemainingMs).toBeGreaterThan(0);
  }
}

/** The loss time the fleet shares (`lost-at`), once the noticer's writes have landed. */
export async function lossTime(fleet: LossFleet, prefix: string): Promise<number> {
  await sleep(20);
  return Number(await fleet.client().get(`${prefix}{replay}:lost-at`));
}
