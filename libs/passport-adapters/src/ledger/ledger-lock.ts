/**
 * The exclusive lock of ledger writers (`<ledger>.lock`): a file created with O_EXCL holding
 * `<pid>\n<token>\n<pid namespace>\n`. Found by a probe: two writers could both take over one stale lock
 * (each saw it stale, the second removed the first's fresh lock), and a release removed whatever lock
 * was there, so concurrent mints printed passports that were then missing from the ledger. Now:
 * - a lock is abandoned when its writer is known to be gone: its pid names no process in this pid
 *   namespace, or it names this very process with a token this process does not hold (a restarted
 *   container runs as pid 1 every time); a lock made in another pid namespace (another container, the
 *   host), an unreadable one, or one of an older version without a namespace cannot be judged that way
 *   and is abandoned once older than `staleMs`; any lock older than `ABANDONED_AFTER_STALE_PERIODS` ×
 *   `staleMs` is abandoned whatever it says (a pid another process reused after a crash). Otherwise its
 *   writer is waited for;
 * - an abandoned lock is removed by one writer at a time, the holder of a second exclusive file
 *   (`<lock>.takeover`, itself abandoned only once older than `staleMs`: its work takes milliseconds),
 *   which judges the lock again once it holds that file and removes it only if the file at the path is
 *   still the one judged (device, inode, mtime and size; age and content read from one open
 *   descriptor), so a fresh lock is never removed; whatever else sits at the lock's path (a directory,
 *   a symlink, a socket) is an unreadable lock;
 * - a writer releases only its own lock (its token);
 * - a lock whose write fails (a full disk) is removed at once, not left to block the next writers.
 * Writers also check, before their rename, that the ledger is still the file they read
 * (`updateLedgerFile`), which narrows what two holders at once could do to a window of microseconds.
 */
import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { lstat, open, readlink, rm } from 'node:fs/promises';

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
  readonly timeoutMs?: number;
  /** Age after which a lock whose writer cannot be judged is abandoned (default 30 s). */
  readonly staleMs?: number;
}

/** Tokens of the locks this process holds (a lock naming this pid with another token is a dead incarnation's). */
const heldTokens = new Set<string>();

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

let pidNamespace: Promise<string> | undefined;

/** This process's pid namespace (`pid:[4026531836]`), or `unknown` where /proc does not say. */
function ownPidNamespace(): Promise<string> {
  pidNamespace ??= readlink('/proc/self/ns/pid').catch(() => 'unknown');
  return pidNamespace;
}

async function newLockContent(): Promise<string> {
  const token = randomBytes(9).toString('hex');
  heldTokens.add(token);
  return `${process.pid}\n${token}\n${await ownPidNamespace()}\n`;
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
    // Another writer is taking over; its file is removed only if it stayed far past that work's length.
    const other = await inspect(takeover);
    if (other !== null && Date.now() - other.mtimeMs > staleMs) await removeIfStill(takeover, other);
    return false;
  }
  try {
    // Judged again now that no other takeover runs: the first look may be of a lock another takeover
    // has replaced since, whose new file can even reuse the freed inode number (a probe).
    const current = await inspect(lock);
    if (current !== null && (await isAbandoned(current, staleMs))) await removeIfStill(lock, current);
    return true;
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
 * descriptor; anything else (a symlink, dangling or not, a directory, a socket, a FIFO: a probe's spun
 * forever, since O_EXCL refuses them too) as an unreadable lock with its own age. null when nothing is there.
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

/** Removes `file` only if it is still the file `judged` (device, inode, modification time and size). */
async function removeIfStill(file: string, judged: LockFile): Promise<void> {
  const now = await lstat(file).catch(() => null);
  if (now === null || now.dev !== judged.dev || now.ino !== judged.ino) return;
  if (now.mtimeMs !== judged.mtimeMs || now.size !== judged.size) return;
  await rm(file, { force: true, recursive: judged.directory });
}

async function isAbandoned(lock: LockFile, staleMs: number): Promise<boolean> {
  const ageMs = Date.now() - lock.mtimeMs;
  if (ageMs > staleMs * ABANDONED_AFTER_STALE_PERIODS) return true;
  const [pidText, token, namespace] = lock.text.split('\n');
  const pid = Number(pidText);
  const judgeable =
    Number.isSafeInteger(pid) &&
    pid > 0 &&
    namespace !== undefined &&
    namespace !== 'unknown' &&
    namespace === (await ownPidNamespace());
  if (!judgeable) return ageMs > staleMs;
  if (pid === process.pid) return !heldTokens.has(token ?? '');
  return !isProcessAlive(pid);
}

function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists, under another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Removes `lock` only when it is still the one this writer made. */
async function releaseOwn(lock: string, content: string): Promise<void> {
  heldTokens.delete(content.split('\n')[1] ?? '');
  const current = await inspect(lock);
  if (current?.text === content) await removeIfStill(lock, current);
}
