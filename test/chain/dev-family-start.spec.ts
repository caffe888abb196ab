/**
 * The development family's start, as docs/protocol.md §8 and the printed next steps say (a mutation
 * probe of libs/passport-adapters/src/ledger: each test here failed on a mutant every other suite passed).
 * Real files in a temporary DATA_DIR.
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureDevFamily } from '@passport/adapters/ledger';
import { withLedgerLock } from '../../libs/passport-adapters/src/ledger/ledger-lock.js';
import { loadConfig } from '../../apps/api/src/platform/config/app-config.js';

let dataDir: string;
beforeEach(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'dev-family-start-'));
});
afterEach(() => rm(dataDir, { recursive: true, force: true }));

// Protocol §8: a start that finds the family complete takes no lock (it never waits behind a mint).
it('a start that finds the family complete does not wait for a writer holding the ledger lock', async () => {
  const config = loadConfig({ DATA_DIR: dataDir, PUBLIC_BASE_URL: 'http://localhost:4555' });
  await expect(ensureDevFamily(config)).resolves.toMatchObject({ created: true });
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let held!: () => void;
  const holding = new Promise<void>((resolve) => (held = resolve));
  const writer = withLedgerLock(`${config.ledgerFile}.lock`, async () => {
    held();
    await released;
  });
  await holding;
  try {
    const started = Date.now();
    const outcome = await Promise.race([
      ensureDevFamily(config),
      new Promise((resolve) => setTimeout(() => resolve('still waiting'), 2000)),
    ]);
    expect(outcome).toEqual({ created: false });
    expect(Date.now() - started).toBeLessThan(2000);
  } finally {
    release();
    await writer;
  }
});

// The mint line of the next steps is pasted into a shell: a DATA_DIR with a space (and nothing else a
// shell reads) must still come out as one word.
it('prints the mint line with a DATA_DIR holding a space as one shell word', async () => {
  const spaced = join(dataDir, 'my data');
  const lines: string[] = [];
  await ensureDevFamily(loadConfig({ DATA_DIR: spaced, PUBLIC_BASE_URL: 'http://localhost:4555' }), {
    log: (line) => lines.push(line),
  });
  const mint = lines.find((line) => line.includes(' mint '))!;
  const words = execFileSync('bash', ['-c', `printf '%s\\n' ${mint.trim()}`], { encoding: 'utf8' })
    .trimEnd()
    .split('\n');
  expect(words[words.indexOf('--ledger') + 1]).toBe(join(spaced, 'ledger.json'));
  expect(words[words.indexOf('--family-key') + 1]).toBe(join(spaced, 'keys', 'family-root.json'));
});
