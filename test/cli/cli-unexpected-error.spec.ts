/**
 * docs/cli.md's exit codes: 1 is "any command: an unexpected error (a bug: please report it)", 2 a run
 * that stopped on bad input or a refusal. `runCli` tells them apart by the error's kind; an error that is
 * no CliError (here, an output stream that throws) must end the run with 1 and one line, never with 2,
 * which a script reads as its own mistake. The real command and files; the io is the test's own.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runCli } from '../../apps/cli/src/cli.js';

describe('passport: an unexpected error', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'cli-unexpected-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  // Fails on mutant: an unexpected error ended the run with 2, the code of a usage error.
  it('ends the run with exit 1 and the first line of its message', async () => {
    let err = '';
    const code = await runCli(['keygen', '--out', path.join(dir, 'key.json')], {
      stdout: () => {
        throw new Error('the output stream broke\nsecond line');
      },
      stderr: (text) => (err += text),
      env: {},
      fetch: globalThis.fetch,
    });
    expect([code, err]).toEqual([1, 'passport keygen: unexpected error: the output stream broke\n']);
  });
});
