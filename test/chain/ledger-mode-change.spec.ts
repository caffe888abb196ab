/**
 * A ledger whose mode or owner changes while the server runs. Found by a probe of operators' data
 * operations: `chmod 000` on the live ledger changed neither its inode, size nor mtime, so the reader
 * never looked at it again and health said the chain was ok, until the next start failed on it
 * (EACCES). The reader now takes the inode's change time into the file's identity: a mode change is
 * read again, and a file it cannot read shows in health (`ledger_unreadable`: the transient-read spec).
 */
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LedgerChainReader, serializeLedger } from '@passport/adapters/ledger';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

it('a change of mode alone makes the reader read the file again', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'passport-ledger-mode-'));
  const file = join(dir, 'ledger.json');
  await writeFile(
    file,
    serializeLedger({
      contractId: 'passport.local',
      passports: [{ token_id: 'bjbvcjzqbdsj', owner_id: 'x.near', metadata: {} }],
      accounts: {},
    }),
    { mode: 0o600 },
  );
  const reader = await LedgerChainReader.open(file, { watch: false, statIntervalMs: 0 });
  try {
    await reader.refresh();
    expect([reader.reloads, reader.lastLoadOutcome]).toEqual([0, { ok: true }]);
    await sleep(20);
    await chmod(file, 0o640);
    await reader.refresh();
    expect([reader.reloads, reader.lastLoadOutcome]).toEqual([1, { ok: true }]);
    // Nothing changed since: not read again.
    await reader.refresh();
    expect(reader.reloads).toBe(1);
  } finally {
    reader.close();
    await rm(dir, { recursive: true, force: true });
  }
});
