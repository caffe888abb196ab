/**
 * The CLI loads a chain client only in the commands that read a chain: `passport keygen` must not load
 * near-api-js (nor the SQLite driver). The CLI runs from source in a child process whose module hooks
 * record every module it resolves; a `did` lookup against a NEAR RPC is the control that the recording
 * does see near-api-js when it is loaded.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

const ROOT = path.resolve(new URL('../..', import.meta.url).pathname);
const HOOK = path.join(ROOT, 'test/support/record-loads.mjs');

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'passport-cli-loads-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function runCliRecordingLoads(
  args: string[],
  logName: string,
): Promise<{ code: number | null; stderr: string; loaded: string[] }> {
  const log = path.join(dir, logName);
  let stderr = '';
  const code = await new Promise<number | null>((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', '--import', HOOK, 'apps/cli/src/main.ts', ...args],
      {
        cwd: ROOT,
        env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', PASSPORT_LOAD_LOG: log },
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    );
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.on('error', reject);
    child.on('close', (exitCode) => {
      clearTimeout(timer);
      if (exitCode === null) reject(new Error(`passport ${args[0]} was killed: ${stderr}`));
      else resolve(exitCode);
    });
  });
  const loaded = (await readFile(log, 'utf8').catch(() => '')).split('\n').filter(Boolean);
  return { code, stderr, loaded };
}

const NEAR_CLIENT = /\/node_modules\/(near-api-js|@near-js\/)/;
const SQLITE_DRIVER = /\/node_modules\/better-sqlite3\//;

describe('passport keygen', () => {
  it('writes a key without loading near-api-js or better-sqlite3', async () => {
    const out = path.join(dir, 'key.json');
    const run = await runCliRecordingLoads(['keygen', '--out', out], 'keygen.log');
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
    expect((await stat(out)).isFile()).toBe(true);
    // The recording worked: the CLI's own modules and the core are in it.
    expect(run.loaded.some((url) => url.endsWith('/apps/cli/src/commands/keygen.command.ts'))).toBe(true);
    expect(run.loaded.some((url) => /\/libs\/passport-core\/src\//.test(url))).toBe(true);
    expect(run.loaded.filter((url) => NEAR_CLIENT.test(url))).toEqual([]);
    expect(run.loaded.filter((url) => SQLITE_DRIVER.test(url))).toEqual([]);
  });
});

describe('control: a command reading NEAR', () => {
  it('loads near-api-js (so the recording would have seen it in keygen)', async () => {
    // Port 9 (discard) on loopback: nothing answers; the command fails after loading the NEAR reader.
    const run = await runCliRecordingLoads(
      ['did', 'abcdefghijkl', '--near-rpc', 'http://127.0.0.1:9', '--contract', 'passport.testnet'],
      'did.log',
    );
    expect(run.code).not.toBe(0);
    expect(run.loaded.some((url) => NEAR_CLIENT.test(url))).toBe(true);
    expect(run.loaded.some((url) => url.includes('/libs/passport-adapters/src/near/'))).toBe(true);
  });
});
