/**
 * Review of 6bfe5eb (chain time never goes back): one answer from a node with a final block far ahead
 * of the clock (a hostile node, a balanced RPC's bad backend) is kept for the process's life. Before,
 * it lasted one chainTimeTtlMs. Every passport whose not_after falls before that time is judged not
 * live until a restart, and health, which reads the node directly, says healthy meanwhile.
 */
import { NearChainReader } from '@passport/adapters/near';
import { CachingChainReader } from '@passport/adapters/caching';
import { startFakeNearRpc, type FakeNearRpc } from '../fake-near-rpc/fake-near-rpc.server.js';

const CONTRACT = 'passport.test.near';
const DAY_MS = 86_400_000;

describe('CachingChainReader: chain time and a node once far ahead of the clock', () => {
  let rpc: FakeNearRpc;
  beforeEach(async () => {
    rpc = await startFakeNearRpc(CONTRACT);
  });
  afterEach(() => rpc.close());

  it('a single block time a year ahead is not served once the node answers the present again', async () => {
    const reader = new NearChainReader({ rpcUrl: rpc.url, contractId: CONTRACT, attempts: 1 });
    const cache = new CachingChainReader(reader, { chainTimeTtlMs: 1 });
    rpc.blockTimeMs = Date.now() + 365 * DAY_MS;
    await cache.chainTimeMs();
    rpc.blockTimeMs = Date.now();
    await new Promise((resolve) => setTimeout(resolve, 5));
    const served = await cache.chainTimeMs();
    // Within a day of the node's (and the clock's) present, not a year ahead.
    expect(served - Date.now()).toBeLessThan(DAY_MS);
  });
});
