/**
 * A docs probe (1.11.0): `keygen --out /dev/stdout --force` is refused only while standard output is a
 * terminal, a pipe or a device. With standard output redirected to a file (`… > log`, cron, CI, a service
 * manager writing to a file) `/dev/stdout` → `/proc/self/fd/1` resolves to a regular file, so the link
 * check of `writePrivateFile` passes and the key is renamed over the link itself: as root, `/dev/stdout`
 * became a 0600 file holding the private key for every process of the machine (the probe restored it by
 * hand). A link through `/proc/<pid>/fd` names an open file, not a key file: it is refused as a link to
 * a device is. The link here stands in for `/dev/stdout` (same target), so the test changes no system file.
 */
import { spawn } from 'node:child_process';
import { lstat, mkdir, mkdtemp, open, readFile, readlink, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

/**
 * Runs `passport keygen --out <out>` (and `--force` when asked) with standard output redirected to
 * `logFile`, as `… > log` does: its exit code, its stderr, and what reached the log.
 */
async function keygenIntoLog(
  out: string,
  logFile: string,
  force: boolean,
): Promise<{ code: number | null; stderr: string; logged: string }> {
  const log = await open(logFile, 'w');
  let stderr = '';
  const code = await new Promise<number | null>((resolve) => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', 'apps/cli/src/main.ts', 'keygen', '--out', out, ...(force ? ['--force'] : [])],
      { stdio: ['ignore', log.fd, 'pipe'] },
    );
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('close', resolve);
  });
  await log.close();
  return { code, stderr, logged: await readFile(logFile, 'utf8') };
}

describe('keygen --force and a link to standard output redirected to a file', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'cli-keygen-stdout-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it.each([
    ['/proc/self/fd/1', 'stdout-like'],
    // `/dev/fd` is itself a link to `/proc/self/fd`: the hop through /proc is in a directory.
    ['/dev/fd/1', 'dev-fd-like'],
    // A link to `/dev/stdout` itself: /proc is two hops on (a mutation probe: a check of the first hop
    // only passed).
    ['/dev/stdout', 'to-dev-stdout'],
    // A link straight into /proc's top directory (a file there): refused as well.
    ['/proc/version', 'proc-file'],
  ])(
    'refuses a link to %s (exit 2) and keeps it, the key written nowhere',
    async (target, name) => {
      const link = path.join(dir, name);
      await symlink(target, link);
      const run = await keygenIntoLog(link, path.join(dir, 'log'), true);
      expect(run.code).toBe(2);
      expect(run.logged).not.toContain('private_key');
      expect((await lstat(link)).isSymbolicLink()).toBe(true);
      expect(await readlink(link)).toBe(target);
    },
    30_000,
  );

  // The path itself under a directory that links into /proc (`--out /dev/fd/1`, `--out /proc/self/fd/1`):
  // refused with the documented line, not `cannot write /dev/fd/1 (ENOENT)` from the hidden file beside
  // it (a review).
  it.each(['/dev/fd/1', '/proc/self/fd/1'])(
    'refuses --out %s itself with the line docs/cli.md gives (exit 2)',
    async (target) => {
      const run = await keygenIntoLog(target, path.join(dir, 'log-direct'), true);
      expect(run.code).toBe(2);
      expect(run.stderr).toContain(`${target} is not a regular file; it was not overwritten`);
      expect(run.logged).not.toContain('private_key');
    },
    30_000,
  );

  // Without --force (a review): `keygen --out /dev/stdout > log` answered "/dev/stdout exists; use --force to
  // replace it", and --force then refuses it (`… is not a regular file`): the line invited a flag that
  // fails, as the FIFO's once did; `--out /dev/fd/1` answered `cannot write /dev/fd/1 (ENOENT)` from the
  // hidden file beside it. The same line as with --force, and the key written nowhere.
  it.each(['/dev/stdout', '/dev/fd/1', '/proc/self/fd/1', 'link'])(
    'refuses --out %s without --force, stdout redirected to a file, with the line --force gives (exit 2)',
    async (name) => {
      const target = name === 'link' ? path.join(dir, 'no-force-link') : name;
      if (name === 'link') await symlink('/dev/fd/1', target);
      const run = await keygenIntoLog(target, path.join(dir, 'log-no-force'), false);
      expect(run.code).toBe(2);
      expect(run.stderr.trim()).toBe(
        `passport keygen: ${target} is not a regular file; it was not overwritten`,
      );
      expect(run.logged).not.toContain('private_key');
    },
    30_000,
  );

  // A relative hop (`../l3`) in a directory reached through a linked directory is taken from where the
  // kernel takes it (the real directory), not lexically: the chain reaches /proc there (a mutation
  // probe: following the unresolved path found no /proc and wrote the key).
  it('refuses a chain whose relative hop in a linked directory leads to /proc', async () => {
    const base = path.join(dir, 'relative');
    await mkdir(path.join(base, 'real', 'sub'), { recursive: true });
    await symlink(path.join(base, 'real', 'sub'), path.join(base, 'alias'));
    await symlink('../l3', path.join(base, 'real', 'sub', 'l2'));
    await symlink('/proc/self/fd/1', path.join(base, 'real', 'l3'));
    const link = path.join(base, 'key');
    await symlink(path.join(base, 'alias', 'l2'), link);
    const run = await keygenIntoLog(link, path.join(base, 'log'), true);
    expect(run.code).toBe(2);
    expect((await lstat(link)).isSymbolicLink()).toBe(true);
    expect(run.logged).not.toContain('private_key');
  }, 30_000);
});
