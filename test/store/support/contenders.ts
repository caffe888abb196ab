/**
 * Runs several store-contender processes against one database file, starting their work at the same
 * moment (after all have opened the file), and collects their reports.
 */
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

const here = dirname(fileURLToPath(import.meta.url));
const script = join(here, 'store-contender.ts');

export async function runContenders<R>(count: number, args: readonly string[]): Promise<R[]> {
  const children = Array.from({ length: count }, () =>
    fork(script, [...args], {
      execArgv: ['--import', 'tsx'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    }),
  );
  try {
    await Promise.all(children.map((child) => nextMessage(child, (m) => m === 'ready')));
    const reports = children.map((child) => nextMessage(child, (m) => typeof m === 'object' && m !== null));
    for (const child of children) child.send('go');
    const results = (await Promise.all(reports)) as Array<{ result?: R; error?: string }>;
    return results.map((r) => {
      if (r.error !== undefined) throw new Error(`contender failed: ${r.error}`);
      return r.result as R;
    });
  } finally {
    for (const child of children) if (child.exitCode === null) child.kill();
  }
}

function nextMessage(child: ReturnType<typeof fork>, accept: (m: unknown) => boolean): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const onMessage = (m: unknown): void => {
      if (!accept(m)) return;
      cleanup();
      resolve(m);
    };
    const onExit = (code: number | null): void => {
      cleanup();
      reject(new Error(`contender exited early (code ${code})`));
    };
    const cleanup = (): void => {
      child.off('message', onMessage);
      child.off('exit', onExit);
    };
    child.on('message', onMessage);
    child.on('exit', onExit);
  });
}
