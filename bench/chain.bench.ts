/**
 * Chain reads per 1000 authorised-style lookups through the caching reader (target ≤ 100).
 * An authorised request looks up its passport, the owner's keys (resolveOwnerKeys: implicit accounts
 * need no read, named ones do) and chain time; traffic comes from a working set of passports with a
 * Zipf-like skew, spread over 10 s of simulated time at 200 req/s. Two scenarios in one run: all owners
 * implicit (production's only kind), and all owners named (the worst case).
 * Reads are counted at a fake NEAR JSON-RPC node reached through the real near-api-js client.
 * Run: npx tsx bench/chain.bench.ts
 */
import { encodeBase58, randomFaceTokenId } from '@passport/core';
import { FixedClock } from '@passport/core/testing';
import { resolveOwnerKeys } from '@passport/core/passport';
import { CachingChainReader } from '@passport/adapters/caching';
import { NearChainReader } from '@passport/adapters/near';
import { startFakeNearRpc } from '../test/fake-near-rpc/fake-near-rpc.server.js';

const LOOKUPS = 2000;
const PASSPORTS = 50;
const RATE_PER_S = 200;

let seed = 42;
const random = (n: number): number => {
  seed = (seed * 1103515245 + 12345) & 0x7fffffff;
  return seed % n;
};

async function scenario(namedOwners: boolean): Promise<Record<string, unknown>> {
  seed = 42;
  const rpc = await startFakeNearRpc('passport.bench.near');
  const ids: string[] = [];
  for (let i = 0; i < PASSPORTS; i++) {
    const id = randomFaceTokenId(random);
    ids.push(id);
    const key = new Uint8Array(32).fill(i + 1);
    const owner = namedOwners ? `agent${i}.near` : Buffer.from(key).toString('hex');
    rpc.tokens.push({ token_id: id, owner_id: owner, metadata: { token_id: id } });
    if (namedOwners)
      rpc.accounts.set(owner, [{ public_key: `ed25519:${encodeBase58(key)}`, permission: 'FullAccess' }]);
  }
  const clock = new FixedClock(Date.UTC(2026, 0, 1));
  const near = new NearChainReader({ rpcUrl: rpc.url, contractId: 'passport.bench.near', attempts: 1 });
  const cached = new CachingChainReader(near, { clock });

  // Zipf-like: passport i is chosen with weight 1/(i+1).
  const weights = ids.map((_, i) => 1 / (i + 1));
  const total = weights.reduce((a, b) => a + b, 0);
  const pick = (): string => {
    let r = (random(1_000_000) / 1_000_000) * total;
    for (let i = 0; i < ids.length; i++) if ((r -= weights[i]) <= 0) return ids[i];
    return ids[ids.length - 1];
  };

  const started = performance.now();
  for (let i = 0; i < LOOKUPS; i += 10) {
    // 10 concurrent requests per tick, as a server would see them
    await Promise.all(
      Array.from({ length: 10 }, async () => {
        const record = await cached.getPassport(pick());
        await resolveOwnerKeys(cached, record!.ownerId);
        await cached.chainTimeMs();
      }),
    );
    clock.advance((10 * 1000) / RATE_PER_S);
  }
  const wallMs = Math.round(performance.now() - started);
  const reads = rpc.count();
  await rpc.close();
  return {
    owners: namedOwners ? 'named' : 'implicit',
    lookups: LOOKUPS,
    simulatedSeconds: LOOKUPS / RATE_PER_S,
    workingSet: PASSPORTS,
    rpcRequests: reads,
    chainReadsPer1000Lookups: Math.round((reads / LOOKUPS) * 1000 * 10) / 10,
    withoutCachePer1000Lookups: namedOwners ? 3000 : 2000,
    cacheStats: cached.stats(),
    wallMs,
  };
}

console.log(
  JSON.stringify(
    { target: 'chain reads per 1000 lookups <= 100', results: [await scenario(false), await scenario(true)] },
    null,
    2,
  ),
);
