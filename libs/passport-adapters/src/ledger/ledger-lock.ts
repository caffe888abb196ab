/**
 * The exclusive lock of ledger writers (`<ledger>.lock`): a file created with O_EXCL holding
 * `<pid>\n<token>\n<host>\n<start>\n`, where `host` names the pid namespace and the boot
 * (`pid:[…]@<boot id>`) and `start` the process's start time (clock ticks since boot, /proc). Two
 * writers must never both take over one stale lock (each seeing it stale, the second removing the
 * first's fresh lock), nor a release remove whatever lock is there: concurrent mints would print
 * passports then missing from the ledger. So:
 * - a lock made on this host since this boot is judged by its process: abandoned when its pid names no
 *   process, or names one that started at another time (the pid was reused, or it is this process's
 *   own earlier incarnation: a restarted container is pid 1 again); otherwise its writer is waited
 *   for. A lock of another host or boot (shared storage, another container's pid namespace), an
 *   unreadable one or one of an older version cannot be judged so, and is abandoned once older than
 *   `staleMs`; any lock older than `ABANDONED_AFTER_STALE_PERIODS` × `staleMs` is abandoned whatever it
 *   says;
 * - an abandoned lock is removed by one writer at a time, the holder of a second exclusive file
 *   (`<lock>.takeover`, judged by the same rules), which judges the lock again once it holds that file
 *   and removes it only if the file at the path is still the one judged (device, inode, mtime and
 *   size; age and content read from one open descriptor), so a fresh lock is never removed; whatever
 *   else sits at the lock's path (a symlink, a socket, an empty directory) is an unreadable lock;
 * - a writer releases only its own lock (its token);
 * - a lock whose write fails (a full disk) is removed at once, not left to block the next writers.
 * Writers also check, before their rename, that the ledger is still the file they read
 * (`updateLedgerFile`), which narrows what two holders at once could do to a window of microseconds.
 * The lock protocol assumes Linux's /proc; elsewhere every lock is judged by age.
 */
import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { lstat, open, readFile, readlink, rm, rmdir } from 'node:fs/promises';

/** Another writer holds the ledger's lock past the wait: nothing was written; retry later. */
export class LedgerLockedError extends Error {
  override readonly name = 'LedgerLockedError';
  constructor(
    readonly lock: string,
    options?: ErrorOptions,
  ) {
    super(`the ledger is locked by another writer (${lock})`, options);
  }
}

/** A lock this old is abandoned whatever process it names (its pid may have been reused). */
export const ABANDONED_AFTER_STALE_PERIODS = 20;

export interface LedgerLockOptions {
  /** How long to wait for another writer (default 5 s). */
  readonly timeoutMs?: number | undefined;
  /** Age after which a lock whose writer cannot be judged is abandoned (default 30 s). */
  readonly staleMs?: number | undefined;
}

/** Runs `work` holding the lock `lock`; throws LedgerLockedError when it cannot be had in time. */
export async function withLedgerLock<T>(
  lock: string,
  work: () => Promise<T>,
  options: LedgerLockOptions = {},
): Promise<T> {
  const staleMs = options.staleMs ?? 30_000;
  const content = await acquire(lock, options.timeoutMs ?? 5000, staleMs);
  try {
    return await work();
  } finally {
    await releaseOwn(lock, content);
  }
}

async function acquire(lock: string, timeoutMs: number, staleMs: number): Promise<string> {
  const content = await newLockContent();
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await createExclusive(lock, content);
      return content;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const cleared = await takeOverIfAbandoned(lock, staleMs);
      if (Date.now() > deadline) throw new LedgerLockedError(lock, { cause: error });
      if (!cleared) await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }
}

let hostIdentity: Promise<string> | undefined;

/**
 * This process's pid namespace and boot (`pid:[4026531836]@<boot id>`), or `unknown` without /proc or
 * when the /proc mounted here is another pid namespace's (its pids are not ours: under
 * `unshare --pid` without its own /proc every lock would be judged abandoned).
 */
function ownHost(): Promise<string> {
  hostIdentity ??= Promise.all([
    readlink('/proc/self/ns/pid'),
    readFile('/proc/sys/kernel/random/boot_id', 'utf8'),
    readlink('/proc/self'),
  ])
    .then(([namespace, boot, self]) =>
      self === String(process.pid) ? `${namespace}@${boot.trim()}` : 'unknown',
    )
    .catch(() => 'unknown');
  return hostIdentity;
}

/**
 * When process `pid` started (clock ticks since boot, /proc/<pid>/stat field 22): undefined when there
 * is no such process or it has ended (a zombie: killed, not yet reaped, which would block mints for 10
 * min); `unreadable` when /proc will not say (hidepid, another user), so the lock is judged by age.
 */
async function processStart(pid: number | 'self'): Promise<string | undefined> {
  let stat: string;
  try {
    stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT' ? undefined : 'unreadable';
  }
  // The command name (field 2) may hold spaces and parentheses: count from the last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return fields[0] === 'Z' || fields[0] === 'X' ? undefined : fields[19];
}

async function newLockContent(): Promise<string> {
  const token = randomBytes(9).toString('hex');
  const start = await processStart('self');
  return `${process.pid}\n${token}\n${await ownHost()}\n${start === undefined || start === 'unreadable' ? 'unknown' : start}\n`;
}

/** Creates `file` with O_EXCL and writes `content`; a failed write removes the file again. */
async function createExclusive(file: string, content: string): Promise<void> {
  const handle = await open(file, 'wx', 0o644);
  try {
    await handle.writeFile(content, 'utf8');
  } catch (error) {
    await handle.close().catch(() => undefined);
    await rm(file, { force: true });
    throw error;
  }
  await handle.close();
}

/**
 * Whether the lock was out of the way (removed as abandoned, or gone already): the caller tries again
 * at once. While the abandoned lock exists nobody can create another, and only its own writer or a
 * takeover removes a lock, so the one removed under the takeover file is the one judged.
 */
async function takeOverIfAbandoned(lock: string, staleMs: number): Promise<boolean> {
  const judged = await inspect(lock);
  if (judged === null) return true;
  if (!(await isAbandoned(judged, staleMs))) return false;
  const takeover = `${lock}.takeover`;
  const content = await newLockContent();
  try {
    await createExclusive(takeover, content);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    // Another writer is taking over; its file is removed when that writer is gone, by the lock's rules.
    const other = await inspect(takeover);
    if (other !== null && (await isAbandoned(other, staleMs))) await removeIfStill(takeover, other);
    return false;
  }
  try {
    // Judged again now that no other takeover runs: the first look may be of a lock another takeover
    // has replaced since, whose new file can even reuse the freed inode number.
    const current = await inspect(lock);
    if (current === null) return true;
    // Not removable (a non-empty directory): the caller waits rather than spinning.
    return (await isAbandoned(current, staleMs)) && (await removeIfStill(lock, current));
  } finally {
    await releaseOwn(takeover, content);
  }
}

interface LockFile {
  readonly dev: number;
  readonly ino: number;
  readonly mtimeMs: number;
  readonly size: number;
  readonly text: string;
  readonly directory: boolean;
}

/**
 * What is at the lock's path: a regular file's identity, age, size and content from one open
 * descriptor; anything else (a symlink, dangling or not, a directory, a socket, a FIFO: O_EXCL refuses
 * them too, so a writer would spin forever) as an unreadable lock with its own age. null when nothing is there.
 */
async function inspect(file: string): Promise<LockFile | null> {
  const link = await lstat(file).catch(() => null);
  if (link === null) return null;
  const unreadable = {
    dev: link.dev,
    ino: link.ino,
    mtimeMs: link.mtimeMs,
    size: link.size,
    text: '',
    directory: link.isDirectory(),
  };
  if (!link.isFile()) return unreadable;
  let handle;
  try {
    handle = await open(file, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
  } catch {
    return unreadable;
  }
  try {
    const info = await handle.stat();
    const text = info.size <= 4096 ? await handle.readFile('utf8') : '';
    return { dev: info.dev, ino: info.ino, mtimeMs: info.mtimeMs, size: info.size, text, directory: false };
  } catch {
    return unreadable;
  } finally {
    await handle.close().catch(() => undefined);
  }
}

/** Whether the path no longer holds `judged` afterwards (removed, or gone): only if it is still that file (device, inode, mtime, size). */
async function removeIfStill(file: string, judged: LockFile): Promise<boolean> {
  const now = await lstat(file).catch(() => null);
  if (now === null) return true;
  if (
    now.dev !== judged.dev ||
    now.ino !== judged.ino ||
    now.mtimeMs !== judged.mtimeMs ||
    now.size !== judged.size
  )
    return false;
  // A directory only when empty (rmdir): a tree at the lock's path is nobody's lock to delete.
  if (judged.directory)
    return rmdir(file).then(
      () => true,
      () => false,
    );
  await rm(file, { force: true });
  return true;
}

async function isAbandoned(lock: LockFile, staleMs: number): Promise<boolean> {
  const ageMs = Date.now() - lock.mtimeMs;
  if (ageMs > staleMs * ABANDONED_AFTER_STALE_PERIODS) return true;
  const [pidText, , host, start] = lock.text.split('\n');
  const pid = Number(pidText);
  const here = await ownHost();
  const judgeable =
    Number.isSafeInteger(pid) &&
    pid > 0 &&
    here !== 'unknown' &&
    host === here &&
    start !== undefined &&
    start !== 'unknown';
  if (!judgeable) return ageMs > staleMs;
  // No such process (or only its zombie), or one that started at another time than the lock's writer.
  const running = await processStart(pid);
  if (running === 'unreadable') return ageMs > staleMs;
  return running !== start;
}

/** Removes `lock` only when it is still the one this writer made. */
async function releaseOwn(lock: string, content: string): Promise<void> {
  const current = await inspect(lock);
  if (current?.text === content) await removeIfStill(lock, current);
}
