/**
 * What the suites of a Redis loss with instance clocks off Redis's share (redis-loss-clock-*.spec.ts and
 * their kin): windows scaled down (W = 6 s, skew 1 s, hold 8 s, a clock skew margin of 60 s), one
 * passport on an in-memory chain, HOLA lines stamped at a chosen time, and the waits the suites make.
 */
import { buildHolaLine, createNobleSigner } from '@passport/core';
import { implicitAccountId } from '@passport/core/codecs';
import { MemoryChainReader } from '@passport/core/testing';
import { type RedisHistoryWatch } from '@passport/adapters/redis';

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
