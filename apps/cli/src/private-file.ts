/**
 * Writes a file only its owner may read (a private key, a JWT). A new file is created with mode 0600 and
 * O_EXCL; a replacement is written to a fresh 0600 temporary file beside it and renamed over the old one,
 * so the result is a new 0600 file whatever the old one was, never a key or JWT left at an existing
 * file's 0644 (`keygen --force`, `login --save`) or in the target of a symlink. The content is
 * synced before the rename, so a crash leaves the old file or the new one, never an empty one; a
 * failed write removes what it wrote (no partial key is left behind). A reader never sees half a file.
 */
import { randomBytes } from 'node:crypto';
import { link, lstat, open, readlink, realpath, rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';

/**
 * The path names something other than a regular file or a symbolic link (a FIFO, a device, a socket):
 * `keygen --force` would rename a key over a FIFO, and as root over /dev/full.
 */
export class NotARegularFileError extends Error {
  override readonly name = 'NotARegularFileError';
  constructor(readonly file: string) {
    super(`${file} is not a regular file; it was not overwritten`);
  }
}

export async function writePrivateFile(
  file: string,
  content: string,
  options: { replace: boolean },
): Promise<void> {
  // A fixed-length name: the file's own name and a suffix went past NAME_MAX for a long name (a review).
  const temporary = join(dirname(file), `.passport-${randomBytes(6).toString('hex')}.tmp`);
  // What --force would refuse to replace is refused as such without it too (a review: `keygen --out
  // /dev/stdout > log` answered "exists; use --force", and --force then refused it; `--out /dev/fd/1`
  // failed `ENOENT` on the hidden file beside it, in /proc).
  await refuseIrreplaceable(file);
  if (!options.replace) {
    // Written whole beside it, then linked to its name (which fails, as O_EXCL does, when the name is
    // taken): a kill -9 midway left an empty key file that the next keygen called existing (a CLI probe).
    await writeNew(temporary, content);
    try {
      await link(temporary, file);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      // A file system without hard links: created in place, as before.
      if (code === 'EPERM' || code === 'ENOTSUP' || code === 'EOPNOTSUPP' || code === 'ENOSYS')
        await writeNew(file, content);
      else throw error;
    } finally {
      await rm(temporary, { force: true });
    }
    return;
  }
  await writeNew(temporary, content);
  try {
    await rename(temporary, file);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}

/**
 * A symbolic link is replaced itself (its target is never written), unless it names something other
 * than a regular file: `/dev/stdout` is a link to a device, and as root `keygen --force` replaced it for
 * the whole system (a CLI probe). Anything else but a file is kept. Throws `NotARegularFileError`; `login
 * --save` asks it before logging in.
 */
export async function refuseIrreplaceable(file: string): Promise<void> {
  const existing = await lstat(file).catch(() => null);
  if (existing && !existing.isFile() && !existing.isSymbolicLink()) throw new NotARegularFileError(file);
  if (existing?.isSymbolicLink()) {
    const target = await stat(file).catch(() => null);
    if (target && !target.isFile()) throw new NotARegularFileError(file);
    // `/dev/stdout` → `/proc/self/fd/1` names whatever standard output is: with it redirected to a file,
    // the link resolves to a regular file, and as root the key was renamed over `/dev/stdout` itself for
    // every process of the machine (a docs probe). A link through `/proc` names an open file, not a file
    // of the user's: refused, however it resolves.
    if (await linksThroughProc(file)) throw new NotARegularFileError(file);
  }
}

/** Whether a hop of the symbolic link chain at `file` lies under `/proc` (e.g. `/dev/fd` → `/proc/self/fd`). */
async function linksThroughProc(file: string): Promise<boolean> {
  // The path's own directory too: `/dev/fd/1` is a link in `/proc/<pid>/fd` reached through `/dev/fd`
  // (a review: it failed later, `cannot write /dev/fd/1 (ENOENT)`, not as docs/cli.md says).
  const own = await realpath(dirname(file)).catch(() => dirname(file));
  if (own === '/proc' || own.startsWith('/proc/')) return true;
  let current = join(own, basename(file));
  // As many hops as the kernel follows (ELOOP beyond): a longer chain fails the rename's own checks.
  for (let hop = 0; hop < 40; hop++) {
    const link = await lstat(current).catch(() => null);
    if (!link?.isSymbolicLink()) return false;
    const next = resolve(dirname(current), await readlink(current));
    const directory = await realpath(dirname(next)).catch(() => dirname(next));
    if (directory === '/proc' || directory.startsWith('/proc/')) return true;
    current = join(directory, basename(next));
  }
  return false;
}

/** Creates `file` (O_EXCL, 0600), writes and syncs it; removes it again when that fails. */
async function writeNew(file: string, content: string): Promise<void> {
  const handle = await open(file, 'wx', 0o600);
  try {
    await handle.writeFile(content);
    await handle.sync();
  } catch (error) {
    await handle.close().catch(() => undefined);
    await rm(file, { force: true });
    throw error;
  }
  await handle.close();
}
