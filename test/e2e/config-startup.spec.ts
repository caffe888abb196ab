/**
 * A bad configuration value stops the real entry point with one line naming the variable and exit
 * code 1 (docs/protocol.md §9). The process is spawned from source with tsx: configuration is validated
 * before any Nest module is built, so decorator metadata (which tsx does not emit) plays no part.
 */
import { spawn } from 'node:child_process';
import { createServer, type AddressInfo } from 'node:net';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const ROOT = path.resolve(new URL('../..', import.meta.url).pathname);

function runMain(
  env: Record<string, string>,
): Promise<{ code: number | null; stderr: string; stdout: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'apps/api/src/main.ts'], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', LOG_LEVEL: 'silent', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    let stdout = '';
    child.stderr.on('data', (d) => (stderr += d));
    child.stdout.on('data', (d) => (stdout += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stderr, stdout });
    });
  });
}

let dataDir: string;
beforeAll(async () => {
  dataDir = await mkdtemp(path.join(tmpdir(), 'passport-config-'));
});
afterAll(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

it.each([
  ['PORT', { PORT: 'eighty' }],
  ['TRUSTED_PROXIES', { TRUSTED_PROXIES: 'everyone' }],
  ['STORE', { STORE: 'postgres' }],
])(
  'a bad %s stops the process with one line naming it',
  async (variable, env) => {
    const result = await runMain({ DATA_DIR: dataDir, ...env });
    expect(result.code).toBe(1);
    const lines = result.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(new RegExp(`^Invalid configuration: ${variable} `));
    expect(result.stdout).toBe('');
  },
  30_000,
);

/** Runs the built entry point (past the configuration the Nest modules need the build's metadata). */
function runBuiltMain(env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['apps/api/dist/main.js'], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', LOG_LEVEL: 'silent', ...env },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stderr });
    });
  });
}

// Found by a review: a listen failure printed Node's bare cause ("getaddrinfo ENOTFOUND x"), naming
// neither variable.
it('a port in use and a HOST that is no address here stop the start with one line naming HOST and PORT', async () => {
  const taken = createServer();
  await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
  const port = (taken.address() as AddressInfo).port;
  try {
    const inUse = await runBuiltMain({ DATA_DIR: dataDir, HOST: '127.0.0.1', PORT: String(port) });
    expect(inUse.code).toBe(1);
    expect(inUse.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(
        new RegExp(
          `^Passport Identity API failed to start: cannot listen on HOST=127\\.0\\.0\\.1 PORT=${port}: the port is in use \\(listen EADDRINUSE`,
        ),
      ),
    ]);
    // Nothing was created: a first start on a port in use wrote the family (its server passport
    // recording that PORT) and the store, so a start on another PORT was degraded and refused logins.
    expect(await readdir(dataDir)).toEqual([]);
  } finally {
    taken.close();
  }
  const elsewhere = await runBuiltMain({
    DATA_DIR: dataDir,
    HOST: 'passport-test.invalid',
    PORT: '0',
    PUBLIC_BASE_URL: 'http://localhost:3000',
  });
  expect(elsewhere.code).toBe(1);
  expect(elsewhere.stderr.trim().split('\n')).toEqual([
    expect.stringMatching(
      /^Passport Identity API failed to start: cannot listen on HOST=passport-test\.invalid PORT=0: HOST is not an address of this machine \(getaddrinfo /,
    ),
  ]);
}, 60_000);

// Found by a probe: Node's recursive mkdir loops forever at full CPU under /proc, so the start hung.
// The built entry point (npm test builds first): the failure comes from the app's start, past the
// configuration, where the Nest modules need the build's decorator metadata.
it('a DATA_DIR that cannot be created stops the start with one line, never a hang', async () => {
  const result = await runBuiltMain({ DATA_DIR: '/proc/passport-nonexistent' });
  expect(result.code).toBe(1);
  const lines = result.stderr.trim().split('\n');
  expect(lines).toHaveLength(1);
  expect(lines[0]).toBe(
    'Passport Identity API failed to start: cannot create directory /proc/passport-nonexistent (ENOENT) (DATA_DIR=/proc/passport-nonexistent)',
  );
}, 30_000);

// Found by a probe: the line named the path but not the variable that chose it.
it('a DATA_DIR that is a file stops the start with one line naming DATA_DIR', async () => {
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'passport-datadir-file-')), 'not-a-directory');
  writeFileSync(file, '');
  const result = await runBuiltMain({ DATA_DIR: file, PORT: '0', PUBLIC_BASE_URL: 'http://localhost:3000' });
  expect(result.code).toBe(1);
  expect(result.stderr.trim().split('\n')).toEqual([
    `Passport Identity API failed to start: cannot create directory ${file} (ENOTDIR) (DATA_DIR=${file})`,
  ]);
}, 30_000);

// Found by a README walkthrough: with STORE=memory (nothing opens SQLite first) an unwritable DATA_DIR
// stopped the start with a bare "EACCES: permission denied, open '…/ledger.json.lock'". /sys/kernel is a
// directory nobody may create files in, root included (EACCES, or EROFS where /sys is mounted read-only).
it('a DATA_DIR that cannot be written stops the start with one line naming the directory and what to check', async () => {
  const result = await runBuiltMain({
    DATA_DIR: '/sys/kernel',
    STORE: 'memory',
    PORT: '0',
    PUBLIC_BASE_URL: 'http://localhost:3000',
  });
  expect(result.code).toBe(1);
  expect(result.stderr.trim().split('\n')).toEqual([
    expect.stringMatching(
      /^Passport Identity API failed to start: cannot create the development family in \/sys\/kernel \(LEDGER_FILE, under DATA_DIR by default\): (EACCES|EROFS): .* \(is the directory writable\?\)$/,
    ),
  ]);
}, 30_000);

// Found by a probe of operators' deployments: scripts/serve.sh (what `npm start` runs) changed to the
// repository's directory first, so a relative DATA_DIR was taken from the code tree, not the caller's
// directory as with `node apps/api/dist/main.js`.
it('scripts/serve.sh takes a relative DATA_DIR from the directory it is run in', async () => {
  const caller = mkdtempSync(path.join(tmpdir(), 'passport-serve-cwd-'));
  // A file where the data directory's parent should be: the start stops at once, naming the path it took.
  writeFileSync(path.join(caller, 'data'), 'not a directory');
  try {
    const { code, stderr } = await new Promise<{ code: number | null; stderr: string }>((resolve, reject) => {
      const child = spawn('bash', [path.join(ROOT, 'scripts/serve.sh')], {
        cwd: caller,
        env: {
          PATH: process.env.PATH ?? '',
          HOME: process.env.HOME ?? '',
          LOG_LEVEL: 'silent',
          DATA_DIR: 'data/sub',
          PORT: '0',
          PUBLIC_BASE_URL: 'http://localhost:3000',
        },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let text = '';
      child.stderr.on('data', (d) => (text += d));
      const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
      child.on('error', reject);
      child.on('close', (exitCode) => {
        clearTimeout(timer);
        resolve({ code: exitCode, stderr: text });
      });
    });
    expect(code).toBe(1);
    expect(stderr).toContain(`DATA_DIR=${path.join(caller, 'data/sub')}`);
  } finally {
    await rm(caller, { recursive: true, force: true });
  }
});
