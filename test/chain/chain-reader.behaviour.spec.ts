/**
 * The ChainReader contract (@passport/core/testing) against every chain adapter this repo ships: the
 * core's memory reader, the local ledger file, and NEAR JSON-RPC (the real near-api-js client against
 * the fake node of test/fake-near-rpc). Then what each adapter does on its own: the NEAR reader's
 * failures, the ledger file on disk, and the caching reader's coalescing.
 */
import { mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ChainUnavailableError, encodeBase58, type PassportRecord } from '@passport/core';
import {
  CHAIN_SEED,
  type ChainReaderFixture,
  type ChainSeed,
  type ChainSeedPassport,
  describeChainReaderContract,
  FixedClock,
  MemoryChainReader,
} from '@passport/core/testing';
import {
  LedgerChainReader,
  LedgerFormatError,
  serializeLedger,
  updateLedgerFile,
  writeFileAtomic,
  type LedgerDocument,
} from '@passport/adapters/ledger';
import { CachingChainReader, withReservedChainReads } from '@passport/adapters/caching';
import { NearChainReader } from '@passport/adapters/near';
import { MAX_OWNER_KEYS, resolveOwnerKeys } from '@passport/core/passport';
import { startFakeNearRpc, type FakeNearRpc } from '../fake-near-rpc/fake-near-rpc.server.js';
import { eventually } from './eventually.js';

const CONTRACT = CHAIN_SEED.contractId;
const NOW = CHAIN_SEED.chainTimeMs;
const SEED = CHAIN_SEED.passports;
type SeedPassport = ChainSeedPassport;
type Fixture = ChainReaderFixture;

const ed25519Key = (key: Uint8Array): string => `ed25519:${encodeBase58(key)}`;

async function ledgerFixture(seed: ChainSeed = CHAIN_SEED): Promise<Fixture> {
  const dir = await mkdtemp(join(tmpdir(), 'ledger-suite-'));
  const file = join(dir, 'ledger.json');
  let passportsNow = seed.passports;
  let accountsNow: Record<string, readonly Uint8Array[]> = { ...seed.accounts };
  const write = async (): Promise<void> => {
    const doc: LedgerDocument = {
      contractId: seed.contractId,
      passports: passportsNow.map((p) => ({ ...p, metadata: { ...p.metadata } })),
      accounts: Object.fromEntries(
        Object.entries(accountsNow).map(([account, keys]) => [account, keys.map(ed25519Key)]),
      ),
    };
    await writeFileAtomic(file, serializeLedger(doc));
  };
  await write();
  const reader = await LedgerChainReader.open(file, {
    clock: new FixedClock(seed.chainTimeMs),
    statIntervalMs: 0,
  });
  return {
    reader,
    replace: async (passports) => {
      passportsNow = passports;
      await write();
    },
    replaceAccountKeys: async (accountId, keys) => {
      accountsNow = { ...accountsNow, [accountId]: keys };
      await write();
    },
    close: async () => {
      reader.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

async function nearFixture(seed: ChainSeed = CHAIN_SEED): Promise<Fixture & { rpc: FakeNearRpc }> {
  const rpc = await startFakeNearRpc(seed.contractId);
  const load = (passports: readonly SeedPassport[]): void => {
    rpc.tokens.length = 0;
    for (const p of passports) {
      rpc.tokens.push({
        token_id: p.token_id,
        owner_id: p.owner_id,
        metadata: { ...p.metadata, ...(p.revoked ? { revoked: 'true' } : {}), title: null },
      });
    }
  };
  load(seed.passports);
  rpc.blockTimeMs = seed.chainTimeMs;
  // Each account's full-access keys, with a function-call key among them that the reader must leave out.
  for (const [account, keys] of Object.entries(seed.accounts)) {
    rpc.accounts.set(account, [
      { public_key: ed25519Key(keys[0]), permission: 'FullAccess' },
      {
        public_key: ed25519Key(new Uint8Array(32).fill(3)),
        permission: { FunctionCall: { allowance: '1', receiver_id: 'app.near', method_names: [] } },
      },
      ...keys.slice(1).map((key) => ({ public_key: ed25519Key(key), permission: 'FullAccess' as const })),
    ]);
  }
  const reader = new NearChainReader({
    rpcUrl: rpc.url,
    contractId: seed.contractId,
    timeoutMs: 300,
    attempts: 2,
    retryWaitMs: 1,
  });
  return {
    rpc,
    reader,
    replace: async (p) => load(p),
    replaceAccountKeys: async (accountId, keys) => {
      rpc.accounts.set(
        accountId,
        keys.map((key) => ({ public_key: ed25519Key(key), permission: 'FullAccess' as const })),
      );
    },
    close: () => rpc.close(),
  };
}

/** The core's memory reader, seeded record by record; a replacement swaps its passports at once. */
function memoryFixture(seed: ChainSeed = CHAIN_SEED): Fixture {
  const record = (p: SeedPassport): PassportRecord => ({
    tokenId: p.token_id,
    ownerId: p.owner_id,
    contractId: seed.contractId,
    metadata: { ...p.metadata },
    revoked: p.revoked === true,
  });
  const reader = new MemoryChainReader({
    contractId: seed.contractId,
    passports: seed.passports.map(record),
    accounts: seed.accounts,
    chainTime: seed.chainTimeMs,
  });
  let held = seed.passports.map((p) => p.token_id);
  return {
    reader,
    replace: async (passports) => {
      for (const tokenId of held) reader.removePassport(tokenId);
      for (const p of passports) reader.addPassport(record(p));
      held = passports.map((p) => p.token_id);
    },
    replaceAccountKeys: async (accountId, keys) => reader.setAccountKeys(accountId, keys),
    close: () => undefined,
  };
}

const framework = { describe, it, expect, beforeEach, afterEach };
describeChainReaderContract(framework, { name: 'memory', open: memoryFixture });
describeChainReaderContract(framework, { name: 'ledger', open: ledgerFixture });
describeChainReaderContract(framework, { name: 'near', open: nearFixture });

describe('ChainReader behaviour: near RPC failures (real near-api-js against the fake node)', () => {
  let fx: Fixture & { rpc: FakeNearRpc };
  beforeEach(async () => {
    fx = await nearFixture();
  });
  afterEach(() => fx.close());

  const expectChainError = async (promise: Promise<unknown>, reason: string): Promise<void> => {
    const error = await promise.then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ChainUnavailableError);
    expect((error as ChainUnavailableError).reason).toBe(reason);
    // never the upstream text
    expect((error as Error).message).not.toMatch(/upstream|secret|internal|Server error/i);
  };

  it('times out a slow node with ChainUnavailableError("timeout")', async () => {
    fx.rpc.enqueue({ kind: 'slow', delayMs: 1000 });
    const started = Date.now();
    await expectChainError(fx.reader.getPassport('bhahbkbramax'), 'timeout');
    expect(Date.now() - started).toBeLessThan(900);
  });

  it('maps HTTP 429 to rate_limited without retrying', async () => {
    fx.rpc.enqueue({ kind: 'http', status: 429 });
    await expectChainError(fx.reader.getPassport('bhahbkbramax'), 'rate_limited');
    expect(fx.rpc.count()).toBe(1);
  });

  it('retries a 503 and succeeds on the next answer', async () => {
    fx.rpc.enqueue({ kind: 'http', status: 503 });
    await expect(fx.reader.getPassport('bhahbkbramax')).resolves.toMatchObject({ tokenId: 'bhahbkbramax' });
    expect(fx.rpc.count()).toBe(2);
  });

  it('gives up after the configured attempts of 503', async () => {
    fx.rpc.enqueue({ kind: 'http', status: 503 }, { kind: 'http', status: 503 });
    await expectChainError(fx.reader.getPassport('bhahbkbramax'), 'rpc_error');
  });

  it('maps a structured contract error to rpc_error', async () => {
    fx.rpc.enqueue({ kind: 'rpc-error', cause: 'CONTRACT_EXECUTION_ERROR', info: { vm_error: 'boom' } });
    await expectChainError(fx.reader.getPassport('bhahbkbramax'), 'rpc_error');
  });

  it('maps an unknown view method (misconfigured name) to rpc_error', async () => {
    const reader = new NearChainReader({
      rpcUrl: fx.rpc.url,
      contractId: CONTRACT,
      methods: { token: 'nft_token_x' },
      attempts: 1,
    });
    await expectChainError(reader.getPassport('bhahbkbramax'), 'rpc_error');
    expect(fx.rpc.requests[0]).toMatchObject({
      method: 'query',
      requestType: 'call_function',
      methodName: 'nft_token_x',
      finality: 'final',
    });
  });

  it('refuses malformed JSON from the node', async () => {
    fx.rpc.enqueue({ kind: 'malformed-json' });
    const error = await fx.reader.getPassport('bhahbkbramax').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ChainUnavailableError);
  });

  it.each([
    ['non-JSON bytes', [...Buffer.from('not json')]],
    ['a token without owner', [...Buffer.from(JSON.stringify({ token_id: 'bhahbkbramax', metadata: {} }))]],
    [
      'another token than asked',
      [...Buffer.from(JSON.stringify({ token_id: 'lhsrldbjsnlh', owner_id: 'a.near', metadata: {} }))],
    ],
    [
      'numeric metadata',
      [
        ...Buffer.from(
          JSON.stringify({ token_id: 'bhahbkbramax', owner_id: 'a.near', metadata: { max_requests: 5 } }),
        ),
      ],
    ],
    ['a list instead of a token', [...Buffer.from('[]')]],
    ['invalid UTF-8', [0xff, 0xfe, 0x22]],
    // Found by a probe: nothing at all read as "no such passport", which closes its sessions for good.
    ['no bytes at all (not JSON null)', []],
  ])('refuses a malformed token result (%s) with malformed_result', async (_label, bytes) => {
    fx.rpc.enqueue({ kind: 'raw-result', bytes });
    await expectChainError(fx.reader.getPassport('bhahbkbramax'), 'malformed_result');
  });

  it('refuses a call result that is not a byte array', async () => {
    fx.rpc.enqueue({ kind: 'result', value: { result: 'eyJ9', logs: [], block_height: 1, block_hash: 'x' } });
    await expectChainError(fx.reader.getPassport('bhahbkbramax'), 'malformed_result');
  });

  it('refuses a malformed owner page and a malformed key list', async () => {
    fx.rpc.enqueue({ kind: 'raw-result', bytes: [...Buffer.from('{"a":1}')] });
    await expectChainError(
      fx.reader.listPassportsByOwner('alice.near', { fromIndex: 0, limit: 5 }),
      'malformed_result',
    );
    fx.rpc.enqueue({
      kind: 'result',
      value: { keys: [{ public_key: 'ed25519:xyz0', access_key: { permission: 'FullAccess' } }] },
    });
    await expectChainError(fx.reader.getAccountKeys('alice.near'), 'malformed_result');
    fx.rpc.enqueue({ kind: 'result', value: { nokeys: true } });
    await expectChainError(fx.reader.getAccountKeys('alice.near'), 'malformed_result');
  });

  it('an account holding thousands of keys: the reader stops one past MAX_OWNER_KEYS, so it signs with none', async () => {
    const keys = Array.from({ length: 30_000 }, (_, i) => ({
      public_key: `ed25519:${encodeBase58(new Uint8Array(32).fill(i % 251).map((b, j) => (j === 0 ? (i >> 8) & 255 : b)))}`,
      access_key: { permission: 'FullAccess' },
    }));
    // The reader's own deadline (the fixture's is 300 ms): the 3.3 MB answer is not what this is about,
    // and a CI run on a loaded machine took longer than 300 ms to send and parse it.
    const reader = new NearChainReader({ rpcUrl: fx.rpc.url, contractId: CONTRACT, attempts: 1 });
    fx.rpc.enqueue({ kind: 'result', value: { keys } });
    const read = await reader.getAccountKeys('many.near');
    expect(read).toHaveLength(MAX_OWNER_KEYS + 1);
    fx.rpc.enqueue({ kind: 'result', value: { keys } });
    await expect(resolveOwnerKeys(reader, 'many.near')).resolves.toEqual([]);
  });

  it('refuses a block without a usable timestamp', async () => {
    fx.rpc.enqueue({ kind: 'result', value: { header: { timestamp_nanosec: 'soon' } } });
    await expectChainError(fx.reader.chainTimeMs(), 'malformed_result');
  });

  // Found by a probe: near-api-js's fetch cannot be aborted, so a read the reader had given up on kept
  // its socket open (1024 descriptors filled in 46 s against a hung node) and a late answer was still
  // read whole (100 MB held in memory).
  it.each([
    ['a node that never answers', { kind: 'hang' as const }],
    ['a node that trickles its answer', { kind: 'trickle' as const, everyMs: 20 }],
  ])('closes the connection to %s at the deadline', async (_label, fault) => {
    fx.rpc.enqueue(fault, fault);
    const started = Date.now();
    await expectChainError(fx.reader.getPassport('bhahbkbramax'), 'timeout');
    expect(Date.now() - started).toBeLessThan(900);
    await eventually(async () => expect(fx.rpc.openSockets()).toBe(0), 1000);
    expect((fx.reader as NearChainReader).readsInFlight).toBe(0);
  });

  it.each([
    ['declared in Content-Length', true],
    ['streamed without a length', false],
  ])(
    'refuses an answer larger than maxResponseBytes (%s) and stops reading it',
    async (_label, declareLength) => {
      const reader = new NearChainReader({
        rpcUrl: fx.rpc.url,
        contractId: CONTRACT,
        attempts: 1,
        maxResponseBytes: 2 * 1024 * 1024,
      });
      fx.rpc.enqueue({ kind: 'huge', megabytes: 64, declareLength });
      await expectChainError(reader.getPassport('bhahbkbramax'), 'response_too_large');
      await eventually(async () => expect(fx.rpc.openSockets()).toBe(0), 1000);
      expect(fx.rpc.hugeBytesWritten).toBeLessThan(16 * 1024 * 1024);
    },
  );

  it('refuses a read beyond maxInFlight at once with busy, and serves again once those end', async () => {
    const reader = new NearChainReader({
      rpcUrl: fx.rpc.url,
      contractId: CONTRACT,
      attempts: 1,
      timeoutMs: 400,
      maxInFlight: 2,
      reservedInFlight: 0,
    });
    fx.rpc.enqueue({ kind: 'hang' }, { kind: 'hang' });
    const hung = [reader.getPassport('bhahbkbramax'), reader.getPassport('bhahbkbramax')];
    await eventually(async () => expect(fx.rpc.count()).toBe(2), 1000);
    const started = Date.now();
    await expectChainError(reader.getPassport('bhahbkbramax'), 'busy');
    expect(Date.now() - started).toBeLessThan(250);
    for (const read of hung) await expectChainError(read, 'timeout');
    await expect(reader.getPassport('bhahbkbramax')).resolves.toMatchObject({ tokenId: 'bhahbkbramax' });
  });

  // Found by a probe: anonymous lookups of random ids held every slot while the node hung, and the
  // session re-checks of logged-in holders failed with 503 busy.
  it('keeps part of the budget for reads marked withReservedChainReads', async () => {
    const reader = new NearChainReader({
      rpcUrl: fx.rpc.url,
      contractId: CONTRACT,
      attempts: 1,
      timeoutMs: 400,
      maxInFlight: 4,
    });
    fx.rpc.enqueue({ kind: 'hang' }, { kind: 'hang' }, { kind: 'hang' });
    const hung = ['lhsrldbjsnlh', 'bjbvcjzqbdsj', 'zzzzzzzzzzzz'].map((id) => reader.getPassport(id));
    await eventually(async () => expect(fx.rpc.count()).toBe(3), 1000);
    // Unmarked reads stop at 4 − 1 (the default reserve is a quarter).
    await expectChainError(reader.getPassport('bhahbkbramax'), 'busy');
    await expect(withReservedChainReads(() => reader.getPassport('bhahbkbramax'))).resolves.toMatchObject({
      tokenId: 'bhahbkbramax',
    });
    for (const read of hung) await expectChainError(read, 'timeout');
  });

  // Found by a review: the older error form of a node ("… does not exist while viewing" in the result)
  // was no longer read as an unknown account once the transport was ours.
  it('reads an unknown account in either error form as an account with no keys', async () => {
    fx.rpc.enqueue({
      kind: 'result',
      value: {
        error: 'account ghost.near does not exist while viewing',
        logs: [],
        block_height: 1,
        block_hash: 'x',
      },
    });
    await expect(fx.reader.getAccountKeys('ghost.near')).resolves.toEqual([]);
    await expect(fx.reader.getAccountKeys('ghost.near')).resolves.toEqual([]); // the structured form
  });

  // Found by a probe: "block … does not exist" (a node behind) read as an account without keys, so a
  // login was refused as a bad signature instead of a 503.
  it('reads another "does not exist" of the older error form as an RPC error, not an unknown account', async () => {
    fx.rpc.enqueue({
      kind: 'result',
      value: { error: 'block 5Fz9 does not exist', logs: [], block_height: 1, block_hash: 'x' },
    });
    await expectChainError(fx.reader.getAccountKeys('alice.near'), 'rpc_error');
  });

  it('refuses bounds that are not positive integers at construction', () => {
    for (const bad of [
      { timeoutMs: 0 },
      { timeoutMs: Number.NaN },
      { maxInFlight: 1.5 },
      { maxResponseBytes: -1 },
    ])
      expect(() => new NearChainReader({ rpcUrl: fx.rpc.url, contractId: CONTRACT, ...bad })).toThrow(
        RangeError,
      );
  });

  it('sends the real wire format: args_base64 JSON, final finality, string from_index', async () => {
    await fx.reader.listPassportsByOwner('alice.near', { fromIndex: 2, limit: 500 });
    expect(fx.rpc.requests.at(-1)).toEqual({
      method: 'query',
      requestType: 'call_function',
      methodName: 'passport_tokens_for_owner',
      args: { account_id: 'alice.near', from_index: '2', limit: 100 },
      finality: 'final',
    });
  });
});

describe('ChainReader behaviour: ledger file on disk', () => {
  let dir: string;
  let file: string;
  let warnings: string[];
  const doc = (passports: readonly SeedPassport[]): LedgerDocument => ({
    contractId: CONTRACT,
    passports: passports.map((p) => ({ ...p, metadata: { ...p.metadata } })),
    accounts: {},
  });
  const open = (): Promise<LedgerChainReader> =>
    LedgerChainReader.open(file, {
      clock: new FixedClock(NOW),
      debounceMs: 10,
      statIntervalMs: 50,
      log: { log: () => undefined, warn: (m) => warnings.push(m) },
    });

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'ledger-file-'));
    file = join(dir, 'ledger.json');
    warnings = [];
    await writeFileAtomic(file, serializeLedger(doc(SEED)));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('fails the start with one line naming the line and the field', async () => {
    const text = serializeLedger(doc(SEED)).replace('"owner_id": "alice.near"', '"owner_id": 42');
    await writeFile(file, text);
    const error = (await open().catch((e: unknown) => e)) as LedgerFormatError;
    expect(error).toBeInstanceOf(LedgerFormatError);
    expect(error.field).toBe('passports[1].owner_id');
    expect(text.split('\n')[error.line - 1]).toContain('"owner_id": 42');
    expect(error.message).toBe(
      `${file}:${error.line}: passports[1].owner_id must be an account id (2..64 characters)`,
    );
    expect(error.message).not.toContain('\n');
  });

  it.each([
    ['invalid JSON', (t: string) => t.replace('"passports": [', '"passports": [,'), '', 'is not valid JSON'],
    [
      'a bad token id',
      (t: string) => t.replace('"token_id": "bhahbkbramax",', '"token_id": "BHAH",'),
      'passports[0].token_id',
      'must be',
    ],
    [
      'a duplicate token id',
      (t: string) => t.replaceAll('lhsrldbjsnlh', 'bhahbkbramax'),
      'passports[1].token_id',
      'duplicates',
    ],
    [
      'a non-string metadata value',
      (t: string) => t.replace('"not_after": "2027-01-01T00:00:00Z"', '"not_after": 1'),
      'passports[0].metadata.not_after',
      'must be a string',
    ],
    [
      'a bad revoked flag',
      (t: string) => t.replace('"revoked": true', '"revoked": "yes"'),
      'passports[2].revoked',
      'true or false',
    ],
    [
      'a bad account key',
      (t: string) => t.replace('"accounts": {}', '"accounts": {"a.near": ["ed25519:0OIl"]}'),
      'accounts.a.near[0]',
      'ed25519',
    ],
    [
      'no contractId',
      (t: string) => t.replace(`"contractId": "${CONTRACT}",`, ''),
      'contractId',
      'non-empty',
    ],
  ])('refuses %s at start', async (_label, edit, field, problem) => {
    await writeFile(file, edit(serializeLedger(doc(SEED))));
    const error = (await open().catch((e: unknown) => e)) as LedgerFormatError;
    expect(error).toBeInstanceOf(LedgerFormatError);
    expect(error.field).toBe(field);
    expect(error.message).toContain(problem);
    expect(error.line).toBeGreaterThan(0);
  });

  it('refuses a missing file with one line', async () => {
    await rm(file);
    await expect(open()).rejects.toThrow(`${file}:1: cannot be read (ENOENT)`);
  });

  it('sees an in-place edit (no rename) without a restart, through the watch or the stat check', async () => {
    const reader = await open();
    try {
      await writeFile(
        file,
        serializeLedger(doc([...SEED, { token_id: 'chbvcnurbkuw', owner_id: 'carol.near', metadata: {} }])),
      );
      await eventually(async () => expect(await reader.getPassport('chbvcnurbkuw')).not.toBeNull());
    } finally {
      reader.close();
    }
  });

  // Found by a review: writers follow a symbolic link to the real ledger now, while the reader watched the
  // link's directory for the link's name, so it saw their writes only through the on-read stat check.
  it('through a symbolic link, the watch sees the writes made to the linked ledger', async () => {
    const linkDir = await mkdtemp(join(tmpdir(), 'ledger-link-'));
    const link = join(linkDir, 'ledger.json');
    await symlink(file, link);
    const reader = await LedgerChainReader.open(link, { debounceMs: 10, statIntervalMs: 600_000 });
    try {
      // A passport it holds changes (a lookup that misses would re-read the file by itself).
      expect((await reader.getPassport('bhahbkbramax'))?.metadata.webhook_url).not.toBe(
        'https://moved.example',
      );
      await updateLedgerFile(link, (d) => ({
        ...d,
        passports: d.passports.map((p) =>
          p.token_id === 'bhahbkbramax'
            ? { ...p, metadata: { ...p.metadata, webhook_url: 'https://moved.example' } }
            : p,
        ),
      }));
      await eventually(async () =>
        expect((await reader.getPassport('bhahbkbramax'))?.metadata.webhook_url).toBe(
          'https://moved.example',
        ),
      );
    } finally {
      reader.close();
      await rm(linkDir, { recursive: true, force: true });
    }
  });

  it('sees an edit with the watch turned off (the on-read stat check alone)', async () => {
    const reader = await LedgerChainReader.open(file, { watch: false, statIntervalMs: 0 });
    try {
      await writeFileAtomic(file, serializeLedger(doc(SEED.slice(0, 1))));
      await expect(reader.getPassport('lhsrldbjsnlh')).resolves.toBeNull();
    } finally {
      reader.close();
    }
  });

  it('keeps the last good content when an edit is torn or malformed, logs it once, and recovers', async () => {
    const reader = await open();
    try {
      const good = serializeLedger(
        doc([...SEED, { token_id: 'chbvcnurbkuw', owner_id: 'carol.near', metadata: {} }]),
      );
      await writeFile(file, good.slice(0, Math.floor(good.length / 2))); // a writer stopped half-way
      await eventually(async () => expect(warnings.length).toBeGreaterThan(0));
      for (let i = 0; i < 5; i++) await reader.refresh();
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatch(/ledger\.json:\d+: is not valid JSON; keeping the last good content$/);
      await expect(reader.getPassport('bhahbkbramax')).resolves.not.toBeNull();
      await expect(reader.getPassport('chbvcnurbkuw')).resolves.toBeNull();
      await writeFile(file, good);
      await eventually(async () => expect(await reader.getPassport('chbvcnurbkuw')).not.toBeNull());
    } finally {
      reader.close();
    }
  });

  it('appends under a lock with atomic writes: concurrent appends lose nothing', async () => {
    const ids = ['chbvcnurbkuw', 'bkbvehbdcrgm', 'bhahbkbramaa', 'bhahbkbramab', 'bhahbkbramac'];
    await Promise.all(
      ids.map((id) =>
        updateLedgerFile(file, (d) => ({
          ...d,
          passports: [...d.passports, { token_id: id, owner_id: 'x.near', metadata: {} }],
        })),
      ),
    );
    const after = JSON.parse(await readFile(file, 'utf8')) as LedgerDocument;
    expect(after.passports.map((p) => p.token_id)).toEqual(expect.arrayContaining(ids));
    expect(after.passports).toHaveLength(SEED.length + ids.length);
    expect((await readdir(dir)).filter((f) => f !== 'ledger.json')).toEqual([]);
  });
});

describe('ChainReader behaviour: caching and coalescing (reads counted at the fake node)', () => {
  let fx: Fixture & { rpc: FakeNearRpc };
  let clock: FixedClock;
  let cached: CachingChainReader;
  beforeEach(async () => {
    fx = await nearFixture();
    clock = new FixedClock(NOW);
    cached = new CachingChainReader(fx.reader, { clock, ttlMs: 5000, negativeTtlMs: 1000, maxEntries: 3 });
  });
  afterEach(() => fx.close());
  const tokenReads = (): number => fx.rpc.count((r) => r.methodName === 'passport_token');

  it('coalesces 50 concurrent reads of one token into one request', async () => {
    const results = await Promise.all(Array.from({ length: 50 }, () => cached.getPassport('bhahbkbramax')));
    expect(new Set(results.map((r) => r?.tokenId))).toEqual(new Set(['bhahbkbramax']));
    expect(tokenReads()).toBe(1);
    expect(cached.stats()).toMatchObject({ lookups: 50, reads: 1, cacheHits: 49 });
  });

  // From a mutation probe: returning the cached key arrays themselves passed every test. A caller that
  // zeroes a key it was given (a wipe after use) or pushes to the array would change every later answer.
  it('a caller changing the keys it was given changes nothing the cache answers next', async () => {
    const first = await cached.getAccountKeys('alice.near');
    const hexOf = (keys: Uint8Array[]) => keys.map((k) => Buffer.from(k).toString('hex'));
    const expected = hexOf(first);
    expect(expected.length).toBeGreaterThan(0);
    first[0].fill(0);
    first.push(new Uint8Array(32));
    const again = await cached.getAccountKeys('alice.near');
    expect(hexOf(again)).toEqual(expected);
    expect(fx.rpc.count((r) => r.requestType === 'view_access_key_list')).toBe(1); // from the cache
  });

  it('serves a found token from the cache for at most 5 s', async () => {
    await cached.getPassport('bhahbkbramax');
    clock.advance(4999);
    await cached.getPassport('bhahbkbramax');
    expect(tokenReads()).toBe(1);
    clock.advance(1);
    await cached.getPassport('bhahbkbramax');
    expect(tokenReads()).toBe(2);
  });

  // From a mutation probe: the app builds the reader with a clock only, and every test here passed the
  // TTLs explicitly, so a changed default or a lost 5 s cap went unseen.
  it('by default, and whatever ttlMs is asked for, a found token is kept at most 5 s and a not-found 1 s', async () => {
    for (const reader of [
      new CachingChainReader(fx.reader, { clock }),
      new CachingChainReader(fx.reader, { clock, ttlMs: 60_000 }),
    ]) {
      expect(reader.ttlMs).toBe(5000);
      const before = tokenReads();
      await reader.getPassport('bhahbkbramax');
      clock.advance(5000);
      await reader.getPassport('bhahbkbramax');
      expect(tokenReads()).toBe(before + 2);
      await reader.getPassport('chbvcnurbkuw'); // not on the chain
      clock.advance(999);
      await reader.getPassport('chbvcnurbkuw');
      expect(tokenReads()).toBe(before + 3);
      clock.advance(1);
      await reader.getPassport('chbvcnurbkuw');
      expect(tokenReads()).toBe(before + 4);
    }
  });

  // Found by a probe: the 5 s were counted from the answer's arrival, so a node answering in 4.5 s kept a
  // revocation unseen for about 9 s. They are counted from when the read began.
  it('counts the 5 s from when the read began, not from when its answer arrived', async () => {
    const pending = cached.getPassport('bhahbkbramax');
    clock.advance(3000); // the node takes 3 s to answer
    await pending;
    clock.advance(1999);
    await cached.getPassport('bhahbkbramax');
    expect(tokenReads()).toBe(1);
    clock.advance(1);
    await cached.getPassport('bhahbkbramax');
    expect(tokenReads()).toBe(2);
  });

  // Found by a review of that fix: counted from the start, a not-found or the chain time (1 s) of a node
  // slower than 1 s was never served from the cache; those count from the answer.
  it('counts a not-found and the chain time from the answer', async () => {
    const pending = cached.getPassport('chbvcnurbkuw'); // not on the chain
    clock.advance(1500);
    await expect(pending).resolves.toBeNull();
    clock.advance(999);
    await cached.getPassport('chbvcnurbkuw');
    expect(tokenReads()).toBe(1);
    const time = cached.chainTimeMs();
    clock.advance(1500);
    await time;
    const blockReads = fx.rpc.count((r) => r.method === 'block');
    clock.advance(999);
    await cached.chainTimeMs();
    expect(fx.rpc.count((r) => r.method === 'block')).toBe(blockReads);
  });

  it('peekPassport answers only what getPassport would answer from the cache, for the same time, counted alike', async () => {
    expect(cached.peekPassport('bhahbkbramax')).toBeUndefined(); // not read yet
    const pending = cached.getPassport('bhahbkbramax');
    expect(cached.peekPassport('bhahbkbramax')).toBeUndefined(); // being read
    const record = await pending;
    expect(cached.peekPassport('bhahbkbramax')).toBe(record);
    await expect(cached.getPassport('chbvcnurbkuw')).resolves.toBeNull();
    expect(cached.peekPassport('chbvcnurbkuw')).toBeNull(); // a cached not-found
    expect(cached.stats()).toMatchObject({ lookups: 4, reads: 2, cacheHits: 2 });
    clock.advance(1000);
    expect(cached.peekPassport('chbvcnurbkuw')).toBeUndefined(); // the not-found has expired
    clock.advance(3999);
    expect(cached.peekPassport('bhahbkbramax')).toBe(record);
    clock.advance(1);
    expect(cached.peekPassport('bhahbkbramax')).toBeUndefined(); // 5 s: read again
    expect(tokenReads()).toBe(2);
  });

  it('keeps a not-found answer for a shorter time, so a fresh mint shows up quickly', async () => {
    await expect(cached.getPassport('chbvcnurbkuw')).resolves.toBeNull();
    await fx.replace([...SEED, { token_id: 'chbvcnurbkuw', owner_id: 'bob.near', metadata: {} }]);
    clock.advance(999);
    await expect(cached.getPassport('chbvcnurbkuw')).resolves.toBeNull();
    clock.advance(1);
    await expect(cached.getPassport('chbvcnurbkuw')).resolves.not.toBeNull();
    expect(tokenReads()).toBe(2);
  });

  it('never caches a failure', async () => {
    fx.rpc.enqueue({ kind: 'http', status: 429 });
    await expect(cached.getPassport('bhahbkbramax')).rejects.toBeInstanceOf(ChainUnavailableError);
    await expect(cached.getPassport('bhahbkbramax')).resolves.not.toBeNull();
    expect(tokenReads()).toBe(2);
  });

  it('is bounded: the oldest entry is evicted first', async () => {
    for (const id of ['bhahbkbramax', 'lhsrldbjsnlh', 'bjbvcjzqbdsj', 'zzzzzzzzzzzz'])
      await cached.getPassport(id);
    expect(cached.stats().entries).toBe(3);
    await cached.getPassport('lhsrldbjsnlh'); // still cached
    expect(tokenReads()).toBe(4);
    await cached.getPassport('bhahbkbramax'); // evicted
    expect(tokenReads()).toBe(5);
  });

  // A probe: expired entries stayed until their key was asked again or 10 000 newer ones came, and a
  // replaced ledger's listing pages held its records alive for good (hundreds of MB).
  it('drops expired entries from the oldest end whenever it stores one', async () => {
    for (const id of ['bhahbkbramax', 'lhsrldbjsnlh']) await cached.getPassport(id);
    expect(cached.stats().entries).toBe(2);
    clock.advance(5001);
    await cached.getPassport('bjbvcjzqbdsj');
    expect(cached.stats().entries).toBe(1);
  });

  it('bounds pages of records apart: listing pages never push single records out', async () => {
    const paged = new CachingChainReader(fx.reader, { clock, maxEntries: 10, maxPageEntries: 2 });
    await paged.getPassport('bhahbkbramax');
    for (let from = 0; from < 4; from++) await paged.listPassports({ fromIndex: from, limit: 1 });
    expect(paged.stats().entries).toBe(3); // the record and the 2 newest pages
    await paged.getPassport('bhahbkbramax');
    expect(tokenReads()).toBe(1);
    const listReads = fx.rpc.count((r) => r.methodName === 'passport_tokens');
    await paged.listPassports({ fromIndex: 3, limit: 1 }); // kept
    await paged.listPassports({ fromIndex: 0, limit: 1 }); // evicted
    expect(fx.rpc.count((r) => r.methodName === 'passport_tokens')).toBe(listReads + 1);
  });

  // A probe of that fix: a live oldest entry shielded the expired ones behind it, and at the cap the
  // live one was evicted (a found passport read again within its 5 s).
  it('at its cap evicts every expired entry before a live one', async () => {
    await cached.getPassport('bhahbkbramax'); // found: 5 s
    clock.advance(1500);
    for (const id of ['zzzzzzzzzzzz', 'yyyyyyyyyyyy']) await cached.getPassport(id); // not found: 1 s
    clock.advance(1100);
    await cached.getPassport('xxxxxxxxxxxx'); // a 4th entry over the cap of 3
    expect(cached.stats().entries).toBe(2);
    const reads = tokenReads();
    await cached.getPassport('bhahbkbramax');
    expect(tokenReads()).toBe(reads);
  });

  it("keeps an owner's pages with single records: listing pages never push them out", async () => {
    const paged = new CachingChainReader(fx.reader, { clock, maxEntries: 10, maxPageEntries: 2 });
    const ownerReads = () => fx.rpc.count((r) => r.methodName === 'passport_tokens_for_owner');
    await paged.listPassportsByOwner('alice.near', { fromIndex: 0, limit: 1 });
    for (let from = 0; from < 4; from++) await paged.listPassports({ fromIndex: from, limit: 1 });
    await paged.listPassportsByOwner('alice.near', { fromIndex: 0, limit: 1 });
    expect(ownerReads()).toBe(1);
  });

  // A probe: the chain time was served as read for up to its 1 s, so a passport verified up to ~1 s past
  // its not_after. A reused reading moves on with the clock.
  it('carries a reused chain time forward by the clock since it was read', async () => {
    const first = await cached.chainTimeMs();
    expect(first).toBe(fx.rpc.blockTimeMs);
    clock.advance(700);
    await expect(cached.chainTimeMs()).resolves.toBe(first + 700);
    expect(fx.rpc.count((r) => r.method === 'block')).toBe(1);
    // A read that took a while: counted from its answer (the node's time is what the block says then).
    clock.advance(400); // past the 1 s: read again
    fx.rpc.blockTimeMs = first + 1100;
    const pending = cached.chainTimeMs();
    clock.advance(300);
    await expect(pending).resolves.toBe(first + 1100);
    clock.advance(200);
    await expect(cached.chainTimeMs()).resolves.toBe(first + 1300);
    expect(fx.rpc.count((r) => r.method === 'block')).toBe(2);
  });

  // A probe: after the clock stepped back an hour, the chain time and every cached record stayed as
  // read for that hour (their expiry lay an hour ahead). A clock that reads earlier than an entry was
  // stored makes the entry stale.
  it('a clock stepped back makes every entry stale: the token and the chain time are read again', async () => {
    await cached.getPassport('bhahbkbramax');
    await cached.chainTimeMs();
    const blockReads = () => fx.rpc.count((r) => r.method === 'block');
    expect([tokenReads(), blockReads()]).toEqual([1, 1]);
    clock.set(NOW - 3_600_000);
    await cached.getPassport('bhahbkbramax');
    expect(cached.peekPassport('bhahbkbramax')).toBeDefined(); // stored again, at the new time
    await cached.chainTimeMs();
    expect([tokenReads(), blockReads()]).toEqual([2, 2]);
    // A clock that jitters back a millisecond keeps the cache (a probe: it doubled the chain reads).
    clock.advance(-1);
    await cached.getPassport('bhahbkbramax');
    await cached.chainTimeMs();
    expect([tokenReads(), blockReads()]).toEqual([2, 2]);
  });

  it('caches account keys and chain time too', async () => {
    await Promise.all([
      cached.getAccountKeys('alice.near'),
      cached.getAccountKeys('alice.near'),
      cached.chainTimeMs(),
      cached.chainTimeMs(),
    ]);
    await cached.getAccountKeys('alice.near');
    expect(fx.rpc.count((r) => r.requestType === 'view_access_key_list')).toBe(1);
    expect(fx.rpc.count((r) => r.method === 'block')).toBe(1);
  });
});
