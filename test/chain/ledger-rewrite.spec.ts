/**
 * What a ledger writer (`updateLedgerFile`: `passport mint`, the tests' helpers) keeps of the file it
 * replaces. Found by a probe: a mint turned an operator's 0600 ledger into 0644.
 */
import { chmod, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serializeLedger, updateLedgerFile } from '@passport/adapters/ledger';

let dir: string;
let file: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ledger-rewrite-'));
  file = join(dir, 'ledger.json');
  await writeFile(
    file,
    serializeLedger({
      contractId: 'passport.local',
      passports: [{ token_id: 'bjbvcjzqbdsj', owner_id: 'x.near', metadata: {} }],
      accounts: {},
    }),
  );
});
afterEach(() => rm(dir, { recursive: true, force: true }));

it.each([0o600, 0o640, 0o664])('keeps the mode %o of the ledger it replaces', async (mode) => {
  await chmod(file, mode);
  await updateLedgerFile(file, (doc) => ({
    ...doc,
    passports: [...doc.passports, { token_id: 'bjbvcjzqbdsk', owner_id: 'y.near', metadata: {} }],
  }));
  expect((await stat(file)).mode & 0o777).toBe(mode);
  expect(await readFile(file, 'utf8')).toContain('bjbvcjzqbdsk');
});

// docs/storage.md: the ledger is rewritten from its parsed model, so fields it does not know are dropped.
it('rewrites the ledger from its parsed model: fields it does not know are not kept', async () => {
  const doc = JSON.parse(await readFile(file, 'utf8')) as Record<string, unknown>;
  await writeFile(file, JSON.stringify({ ...doc, note: 'operator note' }));
  await updateLedgerFile(file, (d) => d);
  expect(await readFile(file, 'utf8')).not.toContain('operator note');
});
