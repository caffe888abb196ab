/**
 * `scripts/serve.sh` asked to stop before it starts the server (while it reads the CPU count for
 * UV_THREADPOOL_SIZE with a `node -p` of its own): it exits 0 without starting it, as the server does for
 * a stop during its start (EarlyStop), not bash's death by the signal, 143 (a review: random-delay
 * SIGTERMs to serve.sh). A stand-in `node` on PATH makes that read slow and says if the server was run.
 */
import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

let bin: string;
beforeAll(() => {
  bin = mkdtempSync(join(tmpdir(), 'serve-sh-'));
  const node = join(bin, 'node');
  writeFileSync(node, '#!/bin/sh\nif [ "$1" = "-p" ]; then sleep 2; echo 1; else echo "server ran"; fi\n');
  chmodSync(node, 0o755);
});
afterAll(() => rmSync(bin, { recursive: true, force: true }));

function serveStopped(signal: NodeJS.Signals): Promise<{ code: number | null; out: string }> {
  return new Promise((done) => {
    const env: NodeJS.ProcessEnv = { ...process.env, PATH: `${bin}:${process.env.PATH}` };
    delete env.UV_THREADPOOL_SIZE;
    const child = spawn('bash', [resolve('scripts/serve.sh')], { env });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    setTimeout(() => child.kill(signal), 500);
    child.on('exit', (code) => done({ code, out }));
  });
}

describe('serve.sh stopped before it starts the server', () => {
  it.each(['SIGTERM', 'SIGINT'] as const)('%s: exit 0, the server not run', async (signal) => {
    const { code, out } = await serveStopped(signal);
    expect([code, out]).toEqual([0, '']);
  });
});
