/**
 * Key files as editors and shells write them. Found by a CLI operator probe: a key file saved as UTF-8
 * with a byte-order mark (Windows Notepad, PowerShell 5's `Set-Content -Encoding utf8`) was refused with
 * "the text is not JSON", while the same file with CRLF line ends, or a JWT file with a BOM, is read.
 * The BOM test fails on the code it was written against.
 */
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCliCaptured as cli } from '../support/run-cli.js';

describe('passport --key file encodings', () => {
  let dir: string;
  let json: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'passport-cli-keyenc-'));
    const made = await cli(['keygen', '--out', join(dir, 'k.json')]);
    expect(made.code).toBe(0);
    json = (await import('node:fs')).readFileSync(join(dir, 'k.json'), 'utf8');
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const sign = (keyFile: string) =>
    cli(['hola', '--key', keyFile, '--passport', 'lhsrldbjsnlh', '--host', 'h.example']);

  it.each([
    ['CRLF line ends and a trailing newline', (t: string) => `${t.replace(/\n/g, '\r\n')}\r\n`],
    ['a UTF-8 byte-order mark', (t: string) => `\uFEFF${t}`],
  ])('a key file with %s signs', async (_name, shape) => {
    const file = join(dir, `k-${_name.length}.json`);
    await writeFile(file, shape(json), { mode: 0o600 });
    const run = await sign(file);
    expect([run.code, run.err]).toEqual([0, '']);
    expect(run.out).toMatch(/^HOLA\//);
  });

  // Found by a probe: key files other users could read (0644) or write (0666) were used without a word,
  // where ssh refuses them. The run goes on (the key is the user's to protect), with a warning on stderr.
  it.each([
    [0o644, 'warning'],
    [0o666, 'warning'],
    // Fails on mutant: only others' bits (0o007) were checked, and a file its group may read or write was not.
    [0o640, 'warning'],
    [0o620, 'warning'],
    [0o600, 'none'],
    [0o400, 'none'],
  ])('a key file of mode %o: %s', async (mode, expected) => {
    const file = join(dir, `k-mode-${mode.toString(8)}.json`);
    await writeFile(file, json);
    await chmod(file, mode);
    const run = await sign(file);
    expect(run.code).toBe(0);
    expect(run.out).toMatch(/^HOLA\//);
    expect(run.err).toBe(
      expected === 'none'
        ? ''
        : `warning: ${file} can be read or written by others (mode 0${mode.toString(8)}): a private key file should be chmod 600\n`,
    );
  });
});
