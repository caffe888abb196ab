/**
 * A ledger path that holds something other than a regular file, or a file too large to read whole.
 * Found by a probe: a FIFO at the ledger's path made every chain read wait forever (each held a thread
 * of libuv's pool), even after a good file was put back, and SIGTERM never ended the process; a symlink
 * to /dev/zero read without end; a 200 MB ledger took 545 MB and stalled the event loop.
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, rename, rm, symlink, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  LEDGER_MAX_BYTES,
  LedgerChainReader,
  LedgerFormatError,
  readLedgerFile,
  serializeLedger,
  updateLedgerFile,
} from '@passport/adapters/ledger';
import { eventually } from './eventually.js';

let dir: string;
let file: string;
const good = serializeLedger({
  contractId: 'passport.local',
  passports: [{ token_id: 'bjbvcjzqbdsj', owner_id: 'x.near', metadata: {} }],
  accounts: {},
});

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ledger-special-'));
  file = join(dir, 'ledger.json');
});
afterEach(() => rm(dir, { recursive: true, force: true }));

const mkfifo = (path: string) => execFileSync('mkfifo', [path]);

it('a FIFO, a directory or a device at the path: refused at open, by the CLI read and by the writer, at once', async () => {
  const cases: Array<[string, () => Promise<unknown>, string]> = [
    ['fifo', async () => mkfifo(file), 'not_a_regular_file'],
    ['device', () => symlink('/dev/zero', file), 'not_a_regular_file'],
    [
      'directory',
      () => rm(file, { force: true }).then(() => execFileSync('mkdir', [file])),
      'not_a_regular_file',
    ],
  ];
  for (const [, make, code] of cases) {
    await rm(file, { recursive: true, force: true });
    await make();
    await expect(LedgerChainReader.open(file, { watch: false })).rejects.toThrow(
      new LedgerFormatError(file, 1, '', `cannot be read (${code})`).message,
    );
    await expect(readLedgerFile(file)).rejects.toMatchObject({ code });
    await expect(updateLedgerFile(file, (d) => d, { lockTimeoutMs: 200 })).rejects.toMatchObject({ code });
  }
});

it('a running reader keeps its last good content while a FIFO sits at the path, and reloads a good file put back', async () => {
  await writeFile(file, good);
  const reader = await LedgerChainReader.open(file, { watch: false, statIntervalMs: 0 });
  try {
    await rm(file);
    mkfifo(file);
    expect(await reader.getPassport('bjbvcjzqbdsj')).not.toBeNull();
    expect(reader.lastLoadOutcome).toEqual({ ok: false, problem: 'unreadable' });
    const next = join(dir, 'next.json');
    await writeFile(
      next,
      serializeLedger({
        contractId: 'passport.local',
        passports: [{ token_id: 'chbvcnurbkuw', owner_id: 'x.near', metadata: {} }],
        accounts: {},
      }),
    );
    await rm(file);
    await rename(next, file);
    await eventually(async () => expect(await reader.getPassport('chbvcnurbkuw')).not.toBeNull());
    expect(reader.lastLoadOutcome).toEqual({ ok: true });
  } finally {
    reader.close();
  }
});

it(`a ledger over LEDGER_MAX_BYTES (${LEDGER_MAX_BYTES / 1024 / 1024} MiB) is refused without being read`, async () => {
  await writeFile(file, good);
  await truncate(file, LEDGER_MAX_BYTES + 1);
  await expect(readLedgerFile(file)).rejects.toMatchObject({ code: 'over_64_MiB' });
});
