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

export interface CountedCliRun extends CliRun {
  /** How many requests the run made. */
  readonly calls: number;
}

/**
 * A run whose requests never leave the process: each is answered `200` with the JSON `answer(url)`
 * gives, and counted (tests that a refused flag makes no request).
 */
export async function runCliAnswering(
  args: string[],
  env: Record<string, string>,
  answer: (url: URL) => unknown,
): Promise<CountedCliRun> {
  let out = '';
  let err = '';
  let calls = 0;
  const code = await runCli(args, {
    stdout: (text) => (out += text),
    stderr: (text) => (err += text),
    env,
    fetch: ((input: string | URL | Request) => {
      calls++;
      const url = new URL(input instanceof Request ? input.url : input);
      return Promise.resolve(
        new Response(JSON.stringify(answer(url)), {
          status: 200,
          headers: { 'content-type': 'application/json' },
        }),
      );
    }) as typeof fetch,
  });
  return { code, out, err, calls };
}
