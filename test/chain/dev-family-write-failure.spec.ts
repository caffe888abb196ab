/**
 * From a full-disk probe: a first start whose disk fills between the key files and the ledger (the
 * keys fit, the ledger does not) stopped with "ENOSPC: no space left on device, write", and every later
 * start, with the space back, was refused ("LEDGER_FILE … does not exist (SERVER_CREDENTIALS_FILE …
 * does) … remove …"): the operator had to delete the keys by hand. The keys of a family whose ledger was
 * never written named no passport; the failed start can remove them, so that the next start with room
 * creates the family. A file size limit (prlimit --fsize) makes the ledger's write fail the same way
 * (EFBIG) without a full disk: the key files (~276 bytes) fit under 600 bytes, the ledger (~960) does not.
 */
import { spawnSync } from 'node:child_process';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureDevFamily } from '@passport/adapters/ledger';
import { loadConfig } from '../../apps/api/src/platform/config/app-config.js';

// prlimit is util-linux's, on every Debian machine.
describe('development family: a first start whose ledger write fails', () => {
  let dataDir: string;
  const config = () => loadConfig({ DATA_DIR: dataDir, PUBLIC_BASE_URL: 'http://localhost:4555' });

  beforeEach(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'dev-family-fail-'));
  });
  afterEach(() => rm(dataDir, { recursive: true, force: true }));

  it('fails, and the next start (with room) creates the family without anything removed by hand', async () => {
    const c = config();
    const adapters = join(process.cwd(), 'libs/passport-adapters/dist/ledger/index.js');
    const script = `import { ensureDevFamily } from ${JSON.stringify(adapters)};
await ensureDevFamily(${JSON.stringify({
      chain: c.chain,
      ledgerFile: c.ledgerFile,
      serverCredentialsFile: c.serverCredentialsFile,
      familyCredentialsFile: c.familyCredentialsFile,
      publicBaseUrl: c.publicBaseUrl,
      nearContractId: c.nearContractId,
    })}).catch((e) => { console.error(e.message); process.exit(2); });`;
    const run = spawnSync('prlimit', ['--fsize=600', process.execPath, '--input-type=module', '-e', script], {
      encoding: 'utf8',
    });
    expect(run.status).toBe(2);
    // One line naming the file that could not be written, and saying that nothing was kept.
    expect(run.stderr.trim()).toBe(
      `cannot write ${c.ledgerFile} (EFBIG) while creating the development family; nothing of it was kept: free space on that volume and start again`,
    );
    expect(await readdir(dataDir, { recursive: true })).not.toContain('keys/server.json');

    // The space is back: the next start must not need the operator to remove files.
    const outcome = await ensureDevFamily(c);
    expect(outcome.created).toBe(true);
    expect((await readdir(dataDir)).filter((name) => name.endsWith('.tmp'))).toEqual([]);
  });
});
