/**
 * Writes a file only its owner may read (a private key, a JWT). A new file is created with mode 0600 and
 * O_EXCL; a replacement is written to a fresh 0600 temporary file beside it and renamed over the old one,
 * so the result is a new 0600 file whatever the old one was: a probe found `keygen --force` and `login
 * --save` left a key or JWT at an existing file's 0644, or in the target of a symlink. A reader never
 * sees half a file.
 */
import { randomBytes } from 'node:crypto';
import { rename, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

export async function writePrivateFile(
  file: string,
  content: string,
  options: { replace: boolean },
): Promise<void> {
  if (!options.replace) {
    await writeFile(file, content, { mode: 0o600, flag: 'wx' });
    return;
  }
  const temporary = join(dirname(file), `.${basename(file)}.${randomBytes(6).toString('hex')}.tmp`);
  await writeFile(temporary, content, { mode: 0o600, flag: 'wx' });
  try {
    await rename(temporary, file);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}
