/**
 * The ledger reader's re-checks of its file, the bounds of what it takes and what its writers leave (a mutation probe of libs/passport-adapters/src/ledger: each
 * test here failed on a mutant every other suite passed). Real files in a temporary directory.
 */
import { spawnSync } from 'node:child_process';
import { access, mkdtemp, readFile, rename, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { encodeBase58 } from '@passport/core';
import {
  LedgerChainReader,
  LedgerFormatError,
  parseLedger,
  serializeLedger,
  updateLedgerFile,
  writeFileAtomic,
  type LedgerDocument,
} from '@passport/adapters/ledger';

const KEY = `ed25519:${encodeBase58(new Uint8Array(32).fill(9))}`;

const ledger = (withCarol: boolean): LedgerDocument => ({
  contractId: 'passport.local',
  passports: [
    { token_id: 'bhahbkbramax', owner_id: 'alice.near', metadata: {} },
    ...(withCarol ? [{ token_id: 'lhsrldbjsnlh', owner_id: 'carol.near', metadata: {} }] : []),
  ],
  accounts: withCarol ? { 'carol.near': [KEY] } : {},
});

let dir: string;
let file: string;
let reader: LedgerChainReader | undefined;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ledger-recheck-'));
  file = join(dir, 'ledger.json');
  await writeFileAtomic(file, serializeLedger(ledger(false)));
});
afterEach(async () => {
  reader?.close();
  reader = undefined;
  await rm(dir, { recursive: true, force: true });
});

// Protocol §8: a passport minted a moment ago by any tool is visible at once. A miss re-checks the file
// before answering "not there", for an owner's passports and an account's keys as for a token.
it("re-checks the file on a miss of an owner's passports and of an account's keys, not at the next interval", async () => {
  reader = await LedgerChainReader.open(file, { watch: false, statIntervalMs: 60_000 });
  await expect(reader.listPassportsByOwner('carol.near', { fromIndex: 0, limit: 10 })).resolves.toEqual([]);
  await expect(reader.getAccountKeys('carol.near')).resolves.toEqual([]);
  await writeFileAtomic(file, serializeLedger(ledger(true)));
  const owned = await reader.listPassportsByOwner('carol.near', { fromIndex: 0, limit: 10 });
  expect(owned.map((r) => r.tokenId)).toEqual(['lhsrldbjsnlh']);
  await writeFileAtomic(file, serializeLedger({ ...ledger(true), accounts: { 'dave.near': [KEY] } }));
  await expect(reader.getAccountKeys('dave.near')).resolves.toHaveLength(1);
});

// Health reports lastLoadOutcome: once the file the reader uses is there again, unchanged, it is `ok`.
it('reports ok again once the very file it uses is back after a spell of not being there', async () => {
  const link = join(dir, 'current.json');
  await symlink(file, link);
  reader = await LedgerChainReader.open(link, { watch: false, statIntervalMs: 0 });
  const swap = async (target: string): Promise<void> => {
    await symlink(target, join(dir, 'next.json'));
    await rename(join(dir, 'next.json'), link);
  };
  await swap(join(dir, 'missing.json'));
  await reader.refresh();
  expect(reader.lastLoadOutcome).toEqual({ ok: false, problem: 'unreadable' });
  await swap(file);
  await reader.refresh();
  expect(reader.lastLoadOutcome).toEqual({ ok: true });
  await expect(reader.getPassport('bhahbkbramax')).resolves.toMatchObject({ ownerId: 'alice.near' });
});

// docs/protocol.md §3 and §8: token ids are 12 lowercase letters (or a family root), owners 2..64
// characters, metadata values at most 8192 characters, keys "ed25519:<base58 of 32 bytes>".
describe('a ledger entry at the bounds of what it may hold', () => {
  const entry = (over: Record<string, unknown>) =>
    JSON.stringify({
      contractId: 'passport.local',
      passports: [{ token_id: 'bhahbkbramax', owner_id: 'alice.near', metadata: {}, ...over }],
      accounts: {},
    });
  const withKey = (bytes: number) =>
    JSON.stringify({
      contractId: 'passport.local',
      passports: [],
      accounts: { 'alice.near': [`ed25519:${encodeBase58(new Uint8Array(bytes).fill(5))}`] },
    });
  const fieldRefused = (text: string): string | null => {
    try {
      parseLedger(text, 'ledger.json');
      return null;
    } catch (error) {
      expect(error).toBeInstanceOf(LedgerFormatError);
      return (error as LedgerFormatError).field;
    }
  };

  it.each([
    ['a token id of 11 letters', entry({ token_id: 'bhahbkbrama' }), 'passports[0].token_id'],
    ['a token id of 13 letters', entry({ token_id: 'bhahbkbramaxx' }), 'passports[0].token_id'],
    ['an owner of 1 character', entry({ owner_id: 'a' }), 'passports[0].owner_id'],
    ['an owner of 65 characters', entry({ owner_id: 'a'.repeat(65) }), 'passports[0].owner_id'],
    [
      'a metadata value of 8193 characters',
      entry({ metadata: { title: 'x'.repeat(8193) } }),
      'passports[0].metadata.title',
    ],
    ['a key of 31 bytes', withKey(31), 'accounts.alice.near[0]'],
    ['a key of 33 bytes', withKey(33), 'accounts.alice.near[0]'],
  ])('refuses %s', (_label, text, field) => {
    expect(fieldRefused(text)).toBe(field);
  });

  it.each([
    ['an owner of 2 characters', entry({ owner_id: 'ab' })],
    ['an owner of 64 characters', entry({ owner_id: 'a'.repeat(64) })],
    ['a metadata value of 8192 characters', entry({ metadata: { title: 'x'.repeat(8192) } })],
    ['a key of 32 bytes', withKey(32)],
  ])('takes %s', (_label, text) => {
    expect(fieldRefused(text)).toBeNull();
  });
});

describe('ledger writers', () => {
  // updateLedgerFile: never write a ledger the reader would refuse (the next start would fail on it).
  it('refuses a change that makes a ledger the reader would refuse, and writes nothing', async () => {
    const before = await readFile(file, 'utf8');
    const error = await updateLedgerFile(file, (doc) => ({
      ...doc,
      passports: [...doc.passports, { token_id: 'NOT-A-TOKEN', owner_id: 'bob.near', metadata: {} }],
    })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LedgerFormatError);
    expect(await readFile(file, 'utf8')).toBe(before);
  });

  // ledger-lock: a lock whose write fails (a full disk) is removed at once, not left to block the next
  // writers for staleMs. A file size limit (prlimit --fsize, as dev-family-write-failure) fails the write.
  it('removes a lock whose write failed, so the next writer takes the lock at once', async () => {
    const lock = `${file}.lock`;
    const ledgerModule = join(process.cwd(), 'libs/passport-adapters/dist/ledger/index.js');
    const script = `import { updateLedgerFile } from ${JSON.stringify(ledgerModule)};
await updateLedgerFile(${JSON.stringify(file)}, (doc) => doc).then(
  () => process.exit(0),
  (e) => { console.error(e.code ?? e.message); process.exit(2); },
);`;
    const run = spawnSync('prlimit', ['--fsize=8', process.execPath, '--input-type=module', '-e', script], {
      encoding: 'utf8',
    });
    expect([run.status, run.stderr.trim()]).toEqual([2, 'EFBIG']);
    await expect(access(lock)).rejects.toMatchObject({ code: 'ENOENT' });
    await updateLedgerFile(file, (doc) => doc, { lockTimeoutMs: 500 });
  });
});
