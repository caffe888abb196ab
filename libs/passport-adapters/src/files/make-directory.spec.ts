/** makeDirectorySync: mkdir -p that fails with one line instead of looping where Node's recursive mkdir does. */
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeDirectorySync } from './make-directory.js';

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'make-dir-'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const make = async (dir: string, mode?: number) => makeDirectorySync(dir, mode);

describe('makeDirectorySync', () => {
  it('creates the missing parents and answers the first directory it created', async () => {
    await expect(make(join(root, 'a', 'b', 'c'), 0o700)).resolves.toBe(join(root, 'a'));
    expect(statSync(join(root, 'a', 'b', 'c')).isDirectory()).toBe(true);
    expect(statSync(join(root, 'a', 'b', 'c')).mode & 0o077).toBe(0);
    await expect(make(join(root, 'a', 'b'))).resolves.toBeUndefined();
  });

  it('refuses a path through a file, naming the directory', async () => {
    writeFileSync(join(root, 'f'), 'x');
    await expect(make(join(root, 'f', 'd'))).rejects.toThrow(
      `cannot create directory ${join(root, 'f', 'd')} (ENOTDIR)`,
    );
  });

  it('refuses a path that exists as a file (found by a review: it was taken for a directory)', async () => {
    writeFileSync(join(root, 'f'), 'x');
    await expect(make(join(root, 'f'))).rejects.toThrow(
      `cannot create directory ${join(root, 'f')} (ENOTDIR)`,
    );
  });

  // Node's recursive mkdir loops forever here (ENOENT for a directory whose parent exists).
  it('refuses a directory under /proc at once', async () => {
    await expect(make('/proc/passport-nonexistent/data')).rejects.toThrow(
      'cannot create directory /proc/passport-nonexistent (ENOENT)',
    );
  });
});
