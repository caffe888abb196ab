/**
 * Starts the API's real entry point (`apps/api/src/main.ts`) as a child process, as `npm start` runs
 * it but from source (the swc loader keeps the decorator metadata Nest's DI needs), on a free port with
 * a fresh DATA_DIR: for tests of process behaviour (signals, exit codes) that an in-process app cannot
 * show.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort } from './test-app.js';

const ROOT = path.resolve(new URL('../..', import.meta.url).pathname);

export interface ServerProcess {
  readonly baseUrl: string;
  readonly port: number;
  readonly child: ChildProcess;
  /** Resolves with the exit code (null when killed by a signal) once the process has ended. */
  readonly exited: Promise<number | null>;
  output(): string;
  /** Ends the process if still running (SIGKILL) and removes its DATA_DIR. */
  dispose(): Promise<void>;
}

export async function startServerProcess(env: Record<string, string> = {}): Promise<ServerProcess> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'passport-process-'));
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const child = spawn(
    process.execPath,
    ['--import', '@swc-node/register/esm-register', 'apps/api/src/main.ts'],
    {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
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
        ...env,
      },
    },
  );
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the server exited at start: ${output}`);
    try {
      if ((await fetch(`${baseUrl}/health/ready`)).status === 200) break;
    } catch {
      /* not listening yet */
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`the server did not become ready: ${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    baseUrl,
    port,
    child,
    exited,
    output: () => output,
    dispose: async () => {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGKILL');
        await exited;
      }
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
