/**
 * The exclusive lock of ledger writers (`<ledger>.lock`, on the ledger's own local file system): a file
 * created with O_EXCL holding `<pid>\n<token>\n`. Found by a probe: two writers could both take over
 * one stale lock (each saw it stale, the second removed the first's fresh lock), and a release removed
 * whatever lock was there, so concurrent mints printed passports that were then missing from the
 * ledger. Now:
 * - a lock is abandoned when its process is gone (signal 0 says ESRCH), or it is unreadable and older
 *   than `staleMs`, or older than `ABANDONED_AFTER_STALE_PERIODS` × `staleMs` whatever it says (a pid
 *   that another process reused after a crash); a live holder is waited for, however long it takes;
 * - an abandoned lock is removed by one writer at a time (a second exclusive file, `<lock>.takeover`),
 *   which checks again that it is abandoned first, so a fresh lock is never removed;
 * - a writer releases only its own lock (its token);
 * - a lock whose write fails (a full disk) is removed at once, not left to block the next writers.
 * Writers also check, before their rename, that the ledger is still the file they read
 * (`updateLedgerFile`), so even two holders at once could not lose a passport.
 */
import { randomBytes } from 'node:crypto';
import { open, readFile, rm, stat } from 'node:fs/promises';

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
  /** Age after which an unreadable lock is abandoned (default 30 s). */
  readonly staleMs?: number;
}

/** Runs `work` holding the lock `lock`; throws LedgerLockedError when it cannot be had in time. */
export async function withLedgerLock<T>(
  lock: string,
  work: () => Promise<T>,
  options: LedgerLockOptions = {},
): Promise<T> {
  const content = await acquire(lock, options.timeoutMs ?? 5000, options.staleMs ?? 30_000);
  try {
    return await work();
  } finally {
    await releaseOwn(lock, content);
  }
}

async function acquire(lock: string, timeoutMs: number, staleMs: number): Promise<string> {
  const content = `${process.pid}\n${randomBytes(9).toString('hex')}\n`;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await createExclusive(lock, content);
      return content;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      if (await takeOverIfAbandoned(lock, staleMs)) continue;
      if (Date.now() > deadline) throw new LedgerLockedError(lock, { cause: error });
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }
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
 * at once. Takeovers are serialised by a second exclusive file (`<lock>.takeover`): its holder checks
 * the lock again and removes it only if it is still abandoned. While that lock exists nobody can create
 * another, and only its own writer or a takeover removes a lock, so what is removed is the abandoned one.
 */
async function takeOverIfAbandoned(lock: string, staleMs: number): Promise<boolean> {
  if (!(await isLockAbandoned(lock, staleMs))) return false;
  const takeover = `${lock}.takeover`;
  const content = `${process.pid}\n${randomBytes(9).toString('hex')}\n`;
  try {
    await createExclusive(takeover, content);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    // Another writer is taking over; its takeover file is removed if its writer died meanwhile.
    if (await isLockAbandoned(takeover, staleMs)) await rm(takeover, { force: true });
    return false;
  }
  try {
    if (await isLockAbandoned(lock, staleMs)) await rm(lock, { force: true });
    return true;
  } finally {
    await releaseOwn(takeover, content);
  }
}

/** Whether `lock` exists and is abandoned (module doc); false when it is gone. */
async function isLockAbandoned(lock: string, staleMs: number): Promise<boolean> {
  const info = await stat(lock).catch(() => null);
  if (info === null) return false;
  const text = await readFile(lock, 'utf8').catch(() => null);
  return isAbandoned(text, Date.now() - info.mtimeMs, staleMs);
}

function isAbandoned(text: string | null, ageMs: number, staleMs: number): boolean {
  if (ageMs > staleMs * ABANDONED_AFTER_STALE_PERIODS) return true;
  const pid = text === null ? Number.NaN : Number(text.split('\n')[0]);
  if (!Number.isSafeInteger(pid) || pid <= 0) return ageMs > staleMs;
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
  const text = await readFile(lock, 'utf8').catch(() => null);
  if (text === content) await rm(lock, { force: true });
}
