/**
 * Standard output that refuses writes with an error other than EPIPE (a log file on a full disk:
 * ENOSPC; a terminal gone: EIO). pino re-emits such an error on its stream with no listener, the
 * process ends on the uncaught error, and pino's exit hook then writes the lines it holds
 * synchronously: sonic-boom's flushSync retries every failed write each 100 ms forever. The server
 * neither served nor exited, deaf to SIGTERM, and said nothing on standard error (a probe:
 * `node apps/api/dist/main.js > /dev/full`, and a log file on a tmpfs filled while it ran).
 * Now it goes on serving without a log (as after EPIPE), says so once on standard error, and a
 * SIGTERM ends it with 0.
 */
import { spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort } from '../support/test-app.js';

const ROOT = path.resolve(new URL('../..', import.meta.url).pathname);
describe('standard output refusing writes (ENOSPC: /dev/full)', () => {
  it('the server serves without a log, says so once on standard error, and SIGTERM ends it with 0', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'passport-devfull-'));
    const port = await freePort();
    const baseUrl = `http://127.0.0.1:${port}`;
    const full = openSync('/dev/full', 'w');
    const child = spawn(
      process.execPath,
      ['--import', '@swc-node/register/esm-register', 'apps/api/src/main.ts'],
      {
        cwd: ROOT,
        stdio: ['ignore', full, 'pipe'],
        env: {
          PATH: process.env.PATH ?? '',
          HOME: process.env.HOME ?? '',
          SWC_NODE_PROJECT: 'tsconfig.json',
          HOST: '127.0.0.1',
          PORT: String(port),
          PUBLIC_BASE_URL: baseUrl,
          DATA_DIR: dataDir,
          STORE: 'memory',
          LOG_LEVEL: 'info',
        },
      },
    );
    closeSync(full);
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      let outcome: 'ready' | 'exited' | 'neither' = 'neither';
      const deadline = Date.now() + 60_000;
      while (Date.now() < deadline) {
        if (child.exitCode !== null) {
          outcome = 'exited';
          break;
        }
        try {
          if ((await fetch(`${baseUrl}/health/ready`)).status === 200) {
            outcome = 'ready';
            break;
          }
        } catch {
          /* not listening yet */
        }
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      expect(outcome).toBe('ready');
      for (let i = 0; i < 20; i++) expect((await fetch(`${baseUrl}/health`)).status).toBe(200);
      expect(stderr.match(/log output failed \(ENOSPC\)/g)).toHaveLength(1);
      child.kill('SIGTERM');
      const code = await Promise.race([
        exited,
        new Promise<string>((resolve) => setTimeout(() => resolve('still running'), 15_000)),
      ]);
      expect(code).toBe(0);
    } finally {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGKILL');
        await exited;
      }
      await rm(dataDir, { recursive: true, force: true });
    }
  }, 120_000);
});
