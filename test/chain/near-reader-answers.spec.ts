/**
 * What the NEAR reader takes from a node's answer, at the edges of what it accepts (a mutation probe
 * of libs/passport-adapters/src/near: each test here failed on a mutant every other suite passed).
 * The real near-api-js client against the fake node of test/fake-near-rpc.
 */
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createTcpServer } from 'node:net';
import { type AddressInfo } from 'node:net';
import { encodeBase58 } from '@passport/core';
import { chainFailureReasonOf } from './support/chain-failure-reason.js';
import { NearChainReader } from '@passport/adapters/near';
import { withReservedChainReads } from '@passport/adapters/caching';
import { startFakeNearRpc, type FakeNearRpc } from '../fake-near-rpc/fake-near-rpc.server.js';
import { eventually } from './eventually.js';

const CONTRACT = 'passport.test.near';

const bytesOf = (value: unknown): number[] => [...Buffer.from(JSON.stringify(value), 'utf8')];

const reasonOf = chainFailureReasonOf;

const record = (tokenId: string, metadata: unknown = {}) => ({
  token_id: tokenId,
  owner_id: 'alice.near',
  metadata,
});

describe('NearChainReader: what it takes from an answer, at its bounds', () => {
  let rpc: FakeNearRpc;
  let reader: NearChainReader;
  beforeEach(async () => {
    rpc = await startFakeNearRpc(CONTRACT);
    reader = new NearChainReader({ rpcUrl: rpc.url, contractId: CONTRACT, attempts: 1 });
  });
  afterEach(() => rpc.close());

  // NEP-171 enumeration views take `from_index` as a U128, which the contract reads from a JSON string
  // only: a number is refused by the real contract (the fake node reads both).
  it('sends the listing view from_index as a string and the page clamped to 100', async () => {
    await reader.listPassports({ fromIndex: 2, limit: 500 });
    expect(rpc.requests.at(-1)).toEqual({
      method: 'query',
      requestType: 'call_function',
      methodName: 'passport_tokens',
      args: { from_index: '2', limit: 100 },
      finality: 'final',
    });
  });

  it('refuses a full-access key that is not 32 bytes, longer or shorter', async () => {
    for (const length of [33, 31]) {
      rpc.enqueue({
        kind: 'result',
        value: {
          keys: [
            {
              public_key: `ed25519:${encodeBase58(new Uint8Array(length).fill(7))}`,
              access_key: { nonce: 0, permission: 'FullAccess' },
            },
          ],
        },
      });
      await expect(reasonOf(reader.getAccountKeys('alice.near'))).resolves.toBe('malformed_result');
    }
  });

  it('refuses a block time under one millisecond after the epoch, and takes 1 ms', async () => {
    for (const nanos of ['0', '999999']) {
      rpc.enqueue({ kind: 'result', value: { header: { timestamp_nanosec: nanos } } });
      await expect(reasonOf(reader.chainTimeMs())).resolves.toBe('malformed_result');
    }
    rpc.enqueue({ kind: 'result', value: { header: { timestamp_nanosec: '1000000' } } });
    await expect(reader.chainTimeMs()).resolves.toBe(1);
  });

  it('refuses a result byte above 255 (not wrapped into another character)', async () => {
    // 366 = 256 + "n": wrapped, the bytes would read as JSON null, "no such passport".
    rpc.enqueue({ kind: 'raw-result', bytes: [366, ...bytesOf(null).slice(1)] });
    await expect(reasonOf(reader.getPassport('aaaaaaaaaaaa'))).resolves.toBe('malformed_result');
  });

  it('refuses an answer that is not valid UTF-8 (no replacement characters in a record)', async () => {
    const [before, after] = JSON.stringify(record('aaaaaaaaaaaa', { title: 'X' })).split('X');
    rpc.enqueue({
      kind: 'raw-result',
      bytes: [...Buffer.from(before, 'utf8'), 0xff, ...Buffer.from(after, 'utf8')],
    });
    await expect(reasonOf(reader.getPassport('aaaaaaaaaaaa'))).resolves.toBe('malformed_result');
  });

  it('takes token ids of 1 to 256 characters in a page, and refuses an empty one or one of 257', async () => {
    const ok = ['a', 'b'.repeat(256)];
    rpc.enqueue({ kind: 'raw-result', bytes: bytesOf(ok.map((id) => record(id))) });
    const page = await reader.listPassports({ fromIndex: 0, limit: 10 });
    expect(page.map((r) => r.tokenId)).toEqual(ok);
    for (const id of ['', 'c'.repeat(257)]) {
      rpc.enqueue({ kind: 'raw-result', bytes: bytesOf([record(id)]) });
      await expect(reasonOf(reader.listPassports({ fromIndex: 0, limit: 10 }))).resolves.toBe(
        'malformed_result',
      );
    }
  });

  it('takes 64 metadata fields of 8192 characters, and refuses a 65th field or an 8193rd character', async () => {
    const fields = (count: number, length: number): Record<string, string> =>
      Object.fromEntries(Array.from({ length: count }, (_, i) => [`f${i}`, 'v'.repeat(length)]));
    rpc.enqueue({ kind: 'raw-result', bytes: bytesOf(record('aaaaaaaaaaaa', fields(64, 8192))) });
    const read = await reader.getPassport('aaaaaaaaaaaa');
    expect(Object.keys(read?.metadata ?? {})).toHaveLength(64);
    for (const metadata of [fields(65, 1), fields(1, 8193)]) {
      rpc.enqueue({ kind: 'raw-result', bytes: bytesOf(record('aaaaaaaaaaaa', metadata)) });
      await expect(reasonOf(reader.getPassport('aaaaaaaaaaaa'))).resolves.toBe('malformed_result');
    }
  });

  it('refuses metadata that is an array', async () => {
    rpc.enqueue({ kind: 'raw-result', bytes: bytesOf(record('aaaaaaaaaaaa', ['x'])) });
    await expect(reasonOf(reader.getPassport('aaaaaaaaaaaa'))).resolves.toBe('malformed_result');
  });

  // Resolutions: revoked is metadata `revoked` = "true" on NEAR, that string and no other.
  it('reads a passport as revoked only for metadata revoked "true"', async () => {
    for (const [value, revoked] of [
      ['true', true],
      ['True', false],
      ['1', false],
      ['yes', false],
      ['', false],
    ] as const) {
      rpc.enqueue({ kind: 'raw-result', bytes: bytesOf(record('aaaaaaaaaaaa', { revoked: value })) });
      await expect(reader.getPassport('aaaaaaaaaaaa')).resolves.toMatchObject({ revoked });
    }
  });
});

// The app and the CLI build the reader with a URL and a contract only: its defaults are what runs.
describe('NearChainReader with its defaults', () => {
  let rpc: FakeNearRpc;
  beforeEach(async () => {
    rpc = await startFakeNearRpc(CONTRACT);
    rpc.tokens.push({ token_id: 'aaaaaaaaaaaa', owner_id: 'alice.near', metadata: {} });
  });
  afterEach(() => rpc.close());

  it('tries a read twice: one 503 is retried, a second one is the answer', async () => {
    const reader = new NearChainReader({ rpcUrl: rpc.url, contractId: CONTRACT });
    rpc.enqueue({ kind: 'http', status: 503 });
    await expect(reader.getPassport('aaaaaaaaaaaa')).resolves.toMatchObject({ tokenId: 'aaaaaaaaaaaa' });
    expect(rpc.count()).toBe(2);
    rpc.enqueue({ kind: 'http', status: 503 }, { kind: 'http', status: 503 });
    await expect(reasonOf(reader.getPassport('aaaaaaaaaaaa'))).resolves.toBe('rpc_error');
    expect(rpc.count()).toBe(4);
  });

  // README: 64 reads in flight, 16 of them kept for reads marked withReservedChainReads.
  it('refuses the 49th unmarked read in flight with busy, and lets a marked one use the 16 kept', async () => {
    const reader = new NearChainReader({
      rpcUrl: rpc.url,
      contractId: CONTRACT,
      timeoutMs: 2000,
      attempts: 1,
    });
    rpc.enqueue(...Array.from({ length: 48 }, () => ({ kind: 'hang' as const })));
    const hung = Array.from({ length: 48 }, () => reasonOf(reader.getPassport('aaaaaaaaaaaa')));
    await eventually(async () => expect(rpc.count()).toBe(48), 2000);
    expect(reader.readsInFlight).toBe(48);
    await expect(reasonOf(reader.getPassport('aaaaaaaaaaaa'))).resolves.toBe('busy');
    await expect(withReservedChainReads(() => reader.getPassport('aaaaaaaaaaaa'))).resolves.toMatchObject({
      tokenId: 'aaaaaaaaaaaa',
    });
    expect(new Set(await Promise.all(hung))).toEqual(new Set(['timeout']));
  });

  it('lets only reads started inside withReservedChainReads use the reserve, also after one has ended', async () => {
    const reader = new NearChainReader({
      rpcUrl: rpc.url,
      contractId: CONTRACT,
      attempts: 1,
      timeoutMs: 2000,
      maxInFlight: 4,
    });
    await withReservedChainReads(() => reader.getPassport('aaaaaaaaaaaa'));
    expect(() =>
      withReservedChainReads(() => {
        throw new Error('read failed');
      }),
    ).toThrow('read failed');
    rpc.enqueue({ kind: 'hang' }, { kind: 'hang' }, { kind: 'hang' });
    const hung = Array.from({ length: 3 }, () => reasonOf(reader.getPassport('aaaaaaaaaaaa')));
    await eventually(async () => expect(reader.readsInFlight).toBe(3), 1000);
    await expect(reasonOf(reader.getPassport('aaaaaaaaaaaa'))).resolves.toBe('busy');
    expect(new Set(await Promise.all(hung))).toEqual(new Set(['timeout']));
  });

  it('keeps one read in flight for unmarked reads whatever reserve is asked for', async () => {
    const reader = new NearChainReader({
      rpcUrl: rpc.url,
      contractId: CONTRACT,
      attempts: 1,
      maxInFlight: 2,
      reservedInFlight: 5,
    });
    await expect(reader.getPassport('aaaaaaaaaaaa')).resolves.toMatchObject({ tokenId: 'aaaaaaaaaaaa' });
  });
});

/** A loopback server on a free port; resolves with its URL. */
async function listen(server: Server | ReturnType<typeof createTcpServer>): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
}

describe('NearChainReader transport: retries and the answer size cap', () => {
  let rpc: FakeNearRpc;
  beforeEach(async () => {
    rpc = await startFakeNearRpc(CONTRACT);
    rpc.tokens.push({ token_id: 'aaaaaaaaaaaa', owner_id: 'alice.near', metadata: {} });
  });
  afterEach(() => rpc.close());

  it('retries a 408 and a 500 as it does a 503', async () => {
    const reader = new NearChainReader({
      rpcUrl: rpc.url,
      contractId: CONTRACT,
      attempts: 2,
      retryWaitMs: 1,
    });
    for (const status of [408, 500]) {
      const before = rpc.count();
      rpc.enqueue({ kind: 'http', status });
      await expect(reader.getPassport('aaaaaaaaaaaa')).resolves.toMatchObject({ tokenId: 'aaaaaaaaaaaa' });
      expect(rpc.count()).toBe(before + 2);
    }
  });

  // A node whose connections fail (reset at once): `attempts` connections in all, waits growing ×1.5.
  it('retries a failed connection attempts times in all, each wait 1.5 times the one before', async () => {
    const connections: number[] = [];
    const node = createTcpServer((socket) => {
      connections.push(Date.now());
      socket.destroy();
    });
    const url = await listen(node);
    try {
      const reader = new NearChainReader({
        rpcUrl: url,
        contractId: CONTRACT,
        attempts: 3,
        retryWaitMs: 300,
        timeoutMs: 5000,
      });
      await expect(reasonOf(reader.getPassport('aaaaaaaaaaaa'))).resolves.toBe('rpc_error');
      expect(connections).toHaveLength(3);
      expect(connections[1] - connections[0]).toBeGreaterThanOrEqual(290);
      // 450 ms, not 300 again (timers never fire early; 430 leaves room for a coarse clock)
      expect(connections[2] - connections[1]).toBeGreaterThanOrEqual(430);
    } finally {
      await new Promise((resolve) => node.close(resolve));
    }
  });

  // An answer other than 200 or 400 is not read: its connection must go, or it is held (unread) for
  // as long as the node keeps it, one of the agent's maxInFlight sockets each.
  it('closes the connection of an answer it does not read, so the next reads get a socket', async () => {
    const reader = new NearChainReader({
      rpcUrl: rpc.url,
      contractId: CONTRACT,
      attempts: 1,
      timeoutMs: 1000,
      maxInFlight: 2,
    });
    for (let i = 0; i < 2; i++) {
      rpc.enqueue({ kind: 'http', status: 429 });
      await expect(reasonOf(reader.getPassport('aaaaaaaaaaaa'))).resolves.toBe('rate_limited');
    }
    await eventually(async () => expect(rpc.openSockets()).toBe(0), 1000);
    await expect(reader.getPassport('aaaaaaaaaaaa')).resolves.toMatchObject({ tokenId: 'aaaaaaaaaaaa' });
  });

  it('ends a read at its deadline while it waits to retry, not after the wait', async () => {
    const reader = new NearChainReader({
      rpcUrl: rpc.url,
      contractId: CONTRACT,
      attempts: 2,
      timeoutMs: 300,
      retryWaitMs: 3000,
    });
    rpc.enqueue({ kind: 'http', status: 503 });
    const started = Date.now();
    await expect(reasonOf(reader.getPassport('aaaaaaaaaaaa'))).resolves.toBe('timeout');
    expect(Date.now() - started).toBeLessThan(1500);
    expect(rpc.count()).toBe(1);
  });

  it('refuses a retry wait that is negative or not a number at construction', () => {
    for (const retryWaitMs of [-1, Number.NaN, Number.POSITIVE_INFINITY])
      expect(() => new NearChainReader({ rpcUrl: rpc.url, contractId: CONTRACT, retryWaitMs })).toThrow(
        RangeError,
      );
    expect(
      () => new NearChainReader({ rpcUrl: rpc.url, contractId: CONTRACT, retryWaitMs: 0 }),
    ).not.toThrow();
  });

  it('refuses an answer streamed past maxResponseBytes, and takes one under it', async () => {
    const reader = new NearChainReader({
      rpcUrl: rpc.url,
      contractId: CONTRACT,
      attempts: 1,
      maxResponseBytes: 1024 * 1024,
    });
    rpc.enqueue({ kind: 'huge', megabytes: 2 });
    await expect(reasonOf(reader.getPassport('aaaaaaaaaaaa'))).resolves.toBe('response_too_large');
    const roomy = new NearChainReader({
      rpcUrl: rpc.url,
      contractId: CONTRACT,
      attempts: 1,
      maxResponseBytes: 2 * 1024 * 1024,
    });
    rpc.enqueue({ kind: 'huge', megabytes: 1 });
    await expect(roomy.getPassport('aaaaaaaaaaaa')).resolves.toBeNull();
  });

  // The declared length is enough: the reader does not wait for a body it would refuse (here a node
  // that declares 8 MiB and then sends nothing more: refused at once, not at the deadline).
  it('refuses an answer whose declared length is past maxResponseBytes without reading its body', async () => {
    const node = createHttpServer((req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(8 * 1024 * 1024) });
      res.write('{');
    });
    const url = await listen(node);
    try {
      const reader = new NearChainReader({
        rpcUrl: url,
        contractId: CONTRACT,
        attempts: 1,
        timeoutMs: 3000,
        maxResponseBytes: 1024 * 1024,
      });
      const started = Date.now();
      await expect(reasonOf(reader.getPassport('aaaaaaaaaaaa'))).resolves.toBe('response_too_large');
      expect(Date.now() - started).toBeLessThan(2000);
    } finally {
      node.closeAllConnections();
      await new Promise((resolve) => node.close(resolve));
    }
  });
});
