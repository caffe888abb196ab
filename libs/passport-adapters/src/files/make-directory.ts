/**
 * `mkdir -p` without Node's recursive mkdir, which loops forever at full CPU when the file system
 * answers ENOENT for a directory whose parent exists (a path under /proc: the API's start would hang
 * on DATA_DIR=/proc/x). Each missing component is created on its own; any refusal is an
 * error naming the directory. Synchronous: it runs at start-up only, a few directories.
 */
import { existsSync, mkdirSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

/** The directories of `dir` that do not exist yet, outermost first. */
function missingDirectories(dir: string, exists: (path: string) => boolean): string[] {
  const missing: string[] = [];
  for (let current = resolve(dir); !exists(current); current = dirname(current)) {
    missing.unshift(current);
    if (dirname(current) === current) break;
  }
  return missing;
}

function refused(dir: string, error: unknown): Error {
  return new Error(`cannot create directory ${dir} (${(error as NodeJS.ErrnoException).code ?? 'error'})`, {
    cause: error,
  });
}

function isDirectorySync(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** `dir` itself when it exists but is not a directory (a file, a dangling link): refused like a failed mkdir. */
function assertNotOtherFile(dir: string): void {
  const target = resolve(dir);
  if (existsSync(target) && !isDirectorySync(target))
    throw refused(target, Object.assign(new Error(), { code: 'ENOTDIR' }));
}

/** Creates `dir` and its missing parents; returns the first directory it created, or undefined. */
export function makeDirectorySync(dir: string, mode?: number): string | undefined {
  assertNotOtherFile(dir);
  let first: string | undefined;
  for (const path of missingDirectories(dir, existsSync)) {
    try {
      mkdirSync(path, { mode });
    } catch (error) {
      // Made meanwhile by someone else: fine when it is a directory.
      if ((error as NodeJS.ErrnoException).code === 'EEXIST' && isDirectorySync(path)) continue;
      throw refused(path, error);
    }
    first ??= path;
  }
  return first;
}
