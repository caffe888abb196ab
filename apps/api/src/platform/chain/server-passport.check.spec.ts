/**
 * ServerPassportCheck's verdict on a time-bounded server passport: remembered briefly (the JWT tier asks
 * on every request), but a live verdict never outlasts the passport's not_after.
 */
import { type PassportRecord } from '@passport/core';
import { MemoryChainReader } from '@passport/core/testing';
import { ServerPassportCheck } from './server-passport.check.js';

const SERVER = 'lkjihgfedcba';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('ServerPassportCheck on a time-bounded server passport', () => {
  it('answers from its remembered verdict, yet a live verdict ends at not_after (a probe: ~0.6 s past it, 2 s possible)', async () => {
    let chainNowMs = 1_900_000_000_000;
    const record: PassportRecord = {
      tokenId: SERVER,
      ownerId: 'owner.near',
      contractId: 'c',
      metadata: { not_after: new Date(chainNowMs + 200).toISOString() },
      revoked: false,
    };
    let chainTimeReads = 0;
    const chain = new MemoryChainReader({
      contractId: 'c',
      passports: [record],
      chainTime: {
        nowMs: () => {
          chainTimeReads++;
          return chainNowMs;
        },
      },
    });
    const check = new ServerPassportCheck({ tokenId: SERVER, ownerId: 'owner.near' }, chain);
    expect(await check.problem()).toBeUndefined();
    const reads = chainTimeReads;
    chainNowMs += 300; // past not_after on chain
    expect(await check.problem()).toBeUndefined(); // the verdict is remembered…
    expect(chainTimeReads).toBe(reads);
    await sleep(250); // …but not past the 200 ms the passport had left when it was reached
    expect(await check.problem()).toBe('server_passport_not_live');
  });
});
