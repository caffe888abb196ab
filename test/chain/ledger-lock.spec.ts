/**
 * The ledger writers' lock and the ledger's read-modify-write, on real files. Found by a probe: with a
 * stale lock in place (as kill -9 leaves one), concurrent mints both took it over, and passports the
 * CLI printed as minted were missing from the ledger (7 of 80); a release removed whatever lock was
 * there; a lock whose write failed stayed and blocked every mint for 30 s.
 */
import { fork, spawn, spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import {
  lstat,
  lutimes,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  readlink,
  rm,
  stat,
  symlink,
  utimes,
  writeFile,
} from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import {
  LedgerLockedError,
  serializeLedger,
  updateLedgerFile,
  type LedgerDocument,
} from '@passport/adapters/ledger';
import { withLedgerLock } from '../../libs/passport-adapters/src/ledger/ledger-lock.js';

const writerScript = join(dirname(fileURLToPath(import.meta.url)), 'support', 'ledger-writer.ts');
/** This host's line of a lock (pid namespace and boot), as the writers write it. */
let host: string;
beforeAll(async () => {
  host = `${await readlink('/proc/self/ns/pid')}@${(await readFile('/proc/sys/kernel/random/boot_id', 'utf8')).trim()}`;
});
/** When process `pid` started (/proc/<pid>/stat field 22). */
const startOf = async (pid: number | 'self') => {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
};
const lockText = (pid: number, start: string, token = 'a-token') => `${pid}\n${token}\n${host}\n${start}\n`;
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

// A review: in one process every writer's lock names a live pid, and the ledger's compare-before-rename
// would keep every passport even without a lock; so here writers are processes, one in three dies
// holding the lock, and every writer counts the writers it sees inside the lock.
it('writer processes, some dying inside the lock: never two inside at once, nothing lost', async () => {
  const holders = join(dir, 'holders');
  await mkdir(holders);
  await writeFile(lock, lockText(deadPid(), '12345'));
  const writers = Array.from({ length: 6 }, (_, i) =>
    fork(writerScript, [file, holders, '4', `w${String.fromCharCode(97 + i)}`, i % 3 === 0 ? '1' : '0'], {
      execArgv: ['--import', 'tsx'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    }),
  );
  const reports = writers.map(
    (child) =>
      new Promise<{ overlaps: number; appended: string[] } | 'died'>((resolve, reject) => {
        child.on(
          'message',
          (m: { result?: { overlaps: number; appended: string[] }; error?: string } | string) => {
            if (m === 'ready') return;
            if (typeof m === 'object' && m.error !== undefined) reject(new Error(m.error));
            else if (typeof m === 'object' && m.result) resolve(m.result);
          },
        );
        child.on('exit', () => resolve('died'));
      }),
  );
  await Promise.all(writers.map((child) => new Promise((resolve) => child.once('message', resolve))));
  for (const child of writers) child.send('go');
  const results = await Promise.all(reports);
  const finished = results.filter((r): r is { overlaps: number; appended: string[] } => r !== 'died');
  expect(finished).toHaveLength(4);
  expect(finished.map((r) => r.overlaps)).toEqual([0, 0, 0, 0]);
  const ids = await ledgerIds();
  for (const r of finished) expect(ids).toEqual(expect.arrayContaining(r.appended));
  // The two that died appended one passport each before dying inside their second change.
  expect(ids).toHaveLength(4 * 4 + 2);
}, 60_000);

it('a live writer is waited for, however its lock looks, until 20 × staleMs; then LedgerLockedError', async () => {
  const writer = spawn('sleep', ['30']);
  try {
    await new Promise((resolve) => writer.once('spawn', resolve));
    const text = lockText(writer.pid!, await startOf(writer.pid!), 'someone-else');
    await writeFile(lock, text);
    await age(lock, 120);
    await expect(append('aaaaaaaaaaaa', { lockTimeoutMs: 200 })).rejects.toBeInstanceOf(LedgerLockedError);
    expect(await readFile(lock, 'utf8')).toBe(text);
    await age(lock, 601);
    await append('bbbbbbbbbbbb', { lockTimeoutMs: 200 });
    expect(await ledgerIds()).toEqual(['bbbbbbbbbbbb']);
  } finally {
    writer.kill();
  }
});

// A takeover is judged on the lock's writer, never its age: the takers below may wait up to 5 s (a loaded
// CI machine took longer than 100 ms over it), far below the 30 s × 20 after which any lock is abandoned.
const TAKEOVER_WAIT_MS = 5000;

it('a lock of a process that is gone is taken over at once, however young', async () => {
  await writeFile(lock, lockText(deadPid(), '12345'));
  await append('aaaaaaaaaaaa', { lockTimeoutMs: TAKEOVER_WAIT_MS });
  expect(await ledgerIds()).toEqual(['aaaaaaaaaaaa']);
  await expect(stat(lock)).rejects.toMatchObject({ code: 'ENOENT' });
});

// A review: in a container the server is pid 1 on every start, so a lock left by a killed start names
// the live pid of the next one; and a live pid may have been reused by another process.
it('a lock naming a live pid that started at another time (this very process included) is taken over at once', async () => {
  await writeFile(lock, lockText(process.pid, '1'));
  await append('aaaaaaaaaaaa', { lockTimeoutMs: TAKEOVER_WAIT_MS });
  const writer = spawn('sleep', ['30']);
  try {
    await new Promise((resolve) => writer.once('spawn', resolve));
    await writeFile(lock, lockText(writer.pid!, '1'));
    await append('bbbbbbbbbbbb', { lockTimeoutMs: TAKEOVER_WAIT_MS });
  } finally {
    writer.kill();
  }
  expect(await ledgerIds()).toEqual(['aaaaaaaaaaaa', 'bbbbbbbbbbbb']);
});

// A review: another copy of the adapters in this process (a worker thread, a bundle) holds its lock.
it('a lock of this very process, same start, is a live writer: waited for', async () => {
  await writeFile(lock, lockText(process.pid, await startOf('self')));
  await expect(append('aaaaaaaaaaaa', { lockTimeoutMs: 100 })).rejects.toBeInstanceOf(LedgerLockedError);
});

// A review: a pid of another host or boot (shared storage, another container) says nothing here.
it('a lock of another host or boot, or of an older version, cannot be judged by pid: abandoned after staleMs', async () => {
  for (const [text, tokenId] of [
    [`${deadPid()}\ntoken\npid:[1]@another-boot\n12345\n`, 'bbbbbbbbbbbb'],
    [`${deadPid()}\n`, 'cccccccccccc'],
  ]) {
    await writeFile(lock, text);
    await expect(append('aaaaaaaaaaaa', { lockTimeoutMs: 100, staleMs: 30_000 })).rejects.toBeInstanceOf(
      LedgerLockedError,
    );
    await age(lock, 31);
    await append(tokenId, { lockTimeoutMs: 100, staleMs: 30_000 });
  }
  expect(await ledgerIds()).toHaveLength(2);
});

// A review: a writer killed while it held the takeover file blocked every takeover for 30 s.
it('a takeover file of a writer that is gone is removed at once', async () => {
  await writeFile(lock, lockText(deadPid(), '12345'));
  await writeFile(`${lock}.takeover`, lockText(deadPid(), '12345'));
  await append('aaaaaaaaaaaa', { lockTimeoutMs: 300 });
  expect(await ledgerIds()).toEqual(['aaaaaaaaaaaa']);
  expect((await readdir(dir)).sort()).toEqual(['ledger.json']);
});

it('an unreadable lock younger than staleMs is waited for', async () => {
  await writeFile(lock, 'garbage');
  await expect(append('aaaaaaaaaaaa', { lockTimeoutMs: 100, staleMs: 30_000 })).rejects.toBeInstanceOf(
    LedgerLockedError,
  );
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

// A probe: a dangling symlink or a socket at the lock's path made mint spin forever (O_EXCL refuses
// them, and the lock could not be opened, so it read as "gone"); a directory gave EISDIR.
it('whatever else sits at the lock path is an unreadable lock: waited for, then abandoned after staleMs', async () => {
  const socket = createServer();
  const makers = [
    () => symlink(join(dir, 'nowhere'), lock),
    () => mkdir(lock),
    () => new Promise<void>((resolve) => socket.listen(lock, resolve)),
  ];
  for (const make of makers) {
    await make();
    await expect(append('aaaaaaaaaaaa', { lockTimeoutMs: 200, staleMs: 30_000 })).rejects.toBeInstanceOf(
      LedgerLockedError,
    );
    await lutimes(lock, new Date(Date.now() - 31_000), new Date(Date.now() - 31_000));
    await append(`${'b'.repeat(11)}${'abc'[(await ledgerIds()).length]}`, {
      lockTimeoutMs: 200,
      staleMs: 30_000,
    });
  }
  socket.close();
  expect(await ledgerIds()).toEqual(['bbbbbbbbbbba', 'bbbbbbbbbbbb', 'bbbbbbbbbbbc']);
  await expect(lstat(lock)).rejects.toMatchObject({ code: 'ENOENT' });
});

// A probe: a writer killed mid-write left its temp file (as large as the ledger) for good.
it("the lock's holder removes temp files left by writers killed mid-write, once they are older than staleMs", async () => {
  const left = join(dir, '.ledger.json.12345.a1b2c3d4e5f6.tmp');
  const fresh = join(dir, '.ledger.json.12346.a1b2c3d4e5f7.tmp');
  await writeFile(left, 'partial');
  await writeFile(fresh, 'partial');
  await age(left, 31);
  await append('aaaaaaaaaaaa', { staleMs: 30_000 });
  expect((await readdir(dir)).sort()).toEqual(['.ledger.json.12346.a1b2c3d4e5f7.tmp', 'ledger.json']);
});

// A probe: a writer killed and not yet reaped (a zombie: a container whose pid 1 reaps nothing) kept
// its /proc entry and start time, and blocked every mint for 10 minutes.
it('a lock of a zombie writer is taken over at once', async () => {
  // The forked child ends at once, and its parent (perl, asleep) never reaps it. Not a shell: dash
  // reaped a child that ended before its `exec` (24 of 300 tries with both cores busy; a CI failure).
  const parent = spawn('perl', [
    '-e',
    '$| = 1; my $child = fork() // die; exit 0 unless $child; print "$child\n"; sleep 30',
  ]);
  try {
    const pid = Number(
      await new Promise<string>((resolve) => parent.stdout.once('data', (d: Buffer) => resolve(String(d)))),
    );
    let stat = '';
    for (let i = 0; i < 200 && !stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z'); i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    }
    expect(stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z')).toBe(true);
    await writeFile(lock, lockText(pid, stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]));
    await append('aaaaaaaaaaaa', { lockTimeoutMs: 300 });
    expect(await ledgerIds()).toEqual(['aaaaaaaaaaaa']);
  } finally {
    parent.kill();
  }
});

// A probe: a non-empty directory at the lock path was "removed" (rmdir failed quietly) over and over.
it('a lock path that cannot be removed (a non-empty directory) is refused in time and left as it is', async () => {
  await mkdir(join(lock, 'inside'), { recursive: true });
  const then = new Date(Date.now() - 31_000);
  await utimes(lock, then, then);
  await expect(append('aaaaaaaaaaaa', { lockTimeoutMs: 300, staleMs: 30_000 })).rejects.toBeInstanceOf(
    LedgerLockedError,
  );
  expect((await readdir(lock)).sort()).toEqual(['inside']);
});
