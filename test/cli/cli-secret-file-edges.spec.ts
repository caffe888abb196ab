/**
 * The edges of the CLI's secret files that a mutation probe of private-file.ts and small-file.ts found
 * unpinned: a failed write leaves nothing behind (neither its temporary file nor a partial key), and a
 * key or JWT file of exactly 64 KiB is still read (the bound is "more than 64 KiB"). Real commands,
 * real files; the write failure is a real one (a trailing slash, a file size limit).
 */
import { spawnSync } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runCliCaptured } from '../support/run-cli.js';

const ROOT = path.resolve(new URL('../..', import.meta.url).pathname);

describe('the CLI’s secret files at their edges', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'cli-secret-edges-'));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  // Fails on mutant: a failed rename of `keygen --force` left its .passport-*.tmp beside the name.
  it('keygen --force whose rename fails (a name with a trailing slash) says so and leaves no temporary file', async () => {
    const run = await runCliCaptured(['keygen', '--force', '--out', `${dir}/key.json/`]);
    expect([run.code, run.out]).toEqual([2, '']);
    expect(run.err).toBe(`passport keygen: cannot write ${dir}/key.json/ (ENOTDIR)\n`);
    expect(await readdir(dir)).toEqual([]);
  });

  // Fails on mutant: a write that failed after its file was created left that (empty) file behind.
  it.each([[[]], [['--force']]])(
    'keygen %j whose write fails (a file size limit, EFBIG) leaves no file at all',
    (extra) => {
      const run = spawnSync(
        'bash',
        [
          '-c',
          'ulimit -f 0; exec "$0" --import tsx apps/cli/src/main.ts "$@"',
          process.execPath,
          'keygen',
          '--out',
          path.join(dir, 'key.json'),
          ...extra,
        ],
        { cwd: ROOT, encoding: 'utf8', env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' } },
      );
      expect([run.status, run.stdout]).toEqual([2, '']);
      expect(run.stderr).toBe(`passport keygen: cannot write ${path.join(dir, 'key.json')} (EFBIG)\n`);
      return expect(readdir(dir)).resolves.toEqual([]);
    },
  );

  // Fails on mutant: a file of exactly 64 KiB was refused as "more than 65536 bytes".
  it('a --key of exactly 65536 bytes is read; one byte more is refused', async () => {
    const keyFile = path.join(dir, 'key.json');
    expect((await runCliCaptured(['keygen', '--out', keyFile])).code).toBe(0);
    const key = (await readFile(keyFile, 'utf8')).trimEnd();
    const exact = path.join(dir, 'exact.json');
    await writeFile(exact, key + ' '.repeat(65_536 - Buffer.byteLength(key)), { mode: 0o600 });
    const args = (file: string) => [
      'hola',
      '--key',
      file,
      '--passport',
      'bhahbkbramax',
      '--host',
      'a.example',
    ];
    const read = await runCliCaptured(args(exact));
    expect([read.code, read.err]).toEqual([0, '']);
    expect(read.out).toMatch(/^HOLA\/MUNDO\/BHAHBKBRAMAX\//);
    const over = path.join(dir, 'over.json');
    await writeFile(over, `${key}${' '.repeat(65_537 - Buffer.byteLength(key))}`, { mode: 0o600 });
    const refused = await runCliCaptured(args(over));
    expect([refused.code, refused.err]).toEqual([
      2,
      `passport hola: ${over} holds more than 65536 bytes: not a credentials file\n`,
    ]);
  });
});
