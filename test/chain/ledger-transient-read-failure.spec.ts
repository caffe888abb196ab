/**
 * A ledger read that fails for a while (EMFILE while a client holds the process's descriptors with idle
 * connections; EACCES while an operator fixes a file's mode) is not a verdict on the file's content. A
 * hostile-neighbour probe: the reader marked that content rejected, as it does content that fails to
 * parse, and never read it again until the file changed once more, so a revocation written meanwhile
 * was ignored (the revoked passport kept its sessions, logged in and verified) and health said
 * `ledger_unreadable` of a file that read fine.
 *
 * The reader runs in a child process under `ulimit -n 64`, where taking every descriptor is quick and
 * touches nothing of the test runner's.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
// The built package, as a consumer loads it (jest maps the package to its sources, which node cannot run).
const ledgerModule = new URL('../../libs/passport-adapters/dist/ledger/index.js', import.meta.url).href;

/** Reads the ledger, has it revoked, fails one refresh with EMFILE, refreshes again; prints what it saw. */
const SCRIPT = `
import { closeSync, openSync } from 'node:fs';
import { rename, writeFile } from 'node:fs/promises';
const { LedgerChainReader, serializeLedger } = await import(process.argv[2]);
const file = process.argv[3];
const TOKEN = 'bjbvcjzqbdsj';
const write = async (revoked) => {
  const text = serializeLedger({
    contractId: 'passport.local',
    passports: [{ token_id: TOKEN, owner_id: 'x.near', metadata: {}, ...(revoked && { revoked: true }) }],
    accounts: {},
  });
  await writeFile(file + '.tmp', text);
  await rename(file + '.tmp', file);
};
await write(false);
const reader = await LedgerChainReader.open(file, { watch: false, statIntervalMs: 0 });
const seen = { before: (await reader.getPassport(TOKEN))?.revoked };
await write(true);
const fds = [];
try {
  for (;;) fds.push(openSync('/dev/null', 'r'));
} catch {}
try {
  await reader.refresh();
} finally {
  for (const fd of fds) closeSync(fd);
}
seen.during = reader.lastLoadOutcome;
await reader.refresh();
seen.after = reader.lastLoadOutcome;
seen.revoked = (await reader.getPassport(TOKEN))?.revoked;
reader.close();
console.log(JSON.stringify(seen));
`;

describe('the ledger reader after a read that failed for a while', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'ledger-transient-'));
    await writeFile(join(dir, 'probe.mjs'), SCRIPT);
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('reads the current content once it can (a revocation written meanwhile is not lost)', async () => {
    const { stdout } = await run('bash', [
      '-c',
      'ulimit -n 64 && exec node "$@"',
      'bash',
      join(dir, 'probe.mjs'),
      ledgerModule,
      join(dir, 'ledger.json'),
    ]);
    expect(JSON.parse(stdout.trim().split('\n').pop()!)).toEqual({
      before: false,
      during: { ok: false, problem: 'unreadable' },
      after: { ok: true },
      revoked: true,
    });
  });
});
