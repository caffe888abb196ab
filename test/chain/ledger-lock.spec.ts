/**
 * The ledger writers' lock and the ledger's read-modify-write, on real files. Found by a probe: with a
 * stale lock in place (as kill -9 leaves one), concurrent mints both took it over, and passports the
 * CLI printed as minted were missing from the ledger (7 of 80); a release removed whatever lock was
 * there; a lock whose write failed stayed and blocked every mint for 30 s.
 */
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  LedgerLockedError,
  serializeLedger,
  updateLedgerFile,
  type LedgerDocument,
} from '@passport/adapters/ledger';
import { withLedgerLock } from '../../libs/passport-adapters/src/ledger/ledger-lock.js';

let dir: string;
let file: string;
let lock: string;
const tokenIds = (n: number, round: number) =>
  Array.from({ length: n }, (_, i) =>
    `tok${String.fromCharCode(97 + round)}${String.fromCharCode(97 + i)}aaaaaaa`.slice(0, 12),
  );
const append = (tokenId: string, options = {}) =>
  updateLedgerFile(
    file,
    (d) => ({ ...d, passports: [...d.passports, { token_id: tokenId, owner_id: 'x.near', metadata: {} }] }),
    options,
  );
const ledgerIds = async () =>
  (JSON.parse(await readFile(file, 'utf8')) as LedgerDocument).passports.map((p) => p.token_id);
/** The pid of a process that has ended. */
const deadPid = () => spawnSync(process.execPath, ['-e', '0']).pid!;
const age = async (path: string, seconds: number) => {
  const then = new Date(Date.now() - seconds * 1000);
  await utimes(path, then, then);
};

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ledger-lock-'));
  file = join(dir, 'ledger.json');
  lock = `${file}.lock`;
  await writeFile(file, serializeLedger({ contractId: 'passport.local', passports: [], accounts: {} }));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

it('concurrent writers over an abandoned lock lose nothing (10 rounds of 12)', async () => {
  const expected: string[] = [];
  for (let round = 0; round < 10; round++) {
    await writeFile(lock, round % 2 === 0 ? `${deadPid()}\n` : 'garbage');
    await age(lock, 60);
    const ids = tokenIds(12, round);
    expected.push(...ids);
    await Promise.all(ids.map((id) => append(id)));
    expect(await ledgerIds()).toEqual(expect.arrayContaining(expected));
  }
  expect(await ledgerIds()).toHaveLength(expected.length);
  expect((await readdir(dir)).sort()).toEqual(['ledger.json']);
});

it('a live holder is waited for however old its lock (no takeover), then LedgerLockedError', async () => {
  await writeFile(lock, `${process.pid}\nsomeone-else\n`);
  await age(lock, 120);
  await expect(append('aaaaaaaaaaaa', { lockTimeoutMs: 200 })).rejects.toBeInstanceOf(LedgerLockedError);
  expect(await readFile(lock, 'utf8')).toBe(`${process.pid}\nsomeone-else\n`);
  expect(await ledgerIds()).toEqual([]);
});

it('a lock of a process that is gone is taken over at once, however young', async () => {
  await writeFile(lock, `${deadPid()}\n`);
  await append('aaaaaaaaaaaa', { lockTimeoutMs: 100 });
  expect(await ledgerIds()).toEqual(['aaaaaaaaaaaa']);
  await expect(stat(lock)).rejects.toMatchObject({ code: 'ENOENT' });
});

it('an unreadable lock younger than staleMs is waited for; a lock older than 20 × staleMs is abandoned whatever it says', async () => {
  await writeFile(lock, 'garbage');
  await expect(append('aaaaaaaaaaaa', { lockTimeoutMs: 100, staleMs: 30_000 })).rejects.toBeInstanceOf(
    LedgerLockedError,
  );
  await writeFile(lock, `${process.pid}\nreused pid\n`);
  await age(lock, 21);
  await append('bbbbbbbbbbbb', { lockTimeoutMs: 100, staleMs: 1000 });
  expect(await ledgerIds()).toEqual(['bbbbbbbbbbbb']);
});

it('a writer releases only its own lock', async () => {
  await withLedgerLock(lock, async () => {
    await writeFile(lock, 'another writer\n'); // as if another writer had taken it over
  });
  expect(await readFile(lock, 'utf8')).toBe('another writer\n');
});

it('a ledger replaced while a change was made is changed again on what is there now', async () => {
  let calls = 0;
  await updateLedgerFile(file, (d) => {
    calls += 1;
    if (calls === 1) {
      // Another writer (no lock at all) replaces the ledger between this writer's read and rename.
      const other: LedgerDocument = {
        ...d,
        passports: [{ token_id: 'otherwriterx', owner_id: 'x.near', metadata: {} }],
      };
      writeFileSync(file, serializeLedger(other));
    }
    return {
      ...d,
      passports: [...d.passports, { token_id: 'mineminemine', owner_id: 'x.near', metadata: {} }],
    };
  });
  expect(calls).toBeGreaterThanOrEqual(2);
  expect(await ledgerIds()).toEqual(['otherwriterx', 'mineminemine']);
});
