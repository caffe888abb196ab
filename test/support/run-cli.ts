/**
 * The `passport` tool run in-process, its output captured: what each CLI test drove through `runCli`
 * with a helper of its own (four copies).
 */
import { runCli } from '../../apps/cli/src/cli.js';

export interface CliRun {
  readonly code: number;
  readonly out: string;
  readonly err: string;
}

export async function runCliCaptured(args: string[], env: Record<string, string> = {}): Promise<CliRun> {
  let out = '';
  let err = '';
  const code = await runCli(args, {
    stdout: (text) => (out += text),
    stderr: (text) => (err += text),
    env,
    fetch: globalThis.fetch,
  });
  return { code, out, err };
}
