/**
 * The JWT for bearer commands: `--jwt`, else `--jwt-file`, else PASSPORT_JWT. `bearerIo` also keeps a
 * long-lived agent's JWT fresh: the API renews a token in its last 20 % with the `New-Token` response
 * header, and the returned io swaps it in (the core's renewing fetch) and rewrites `--jwt-file` with
 * it (mode 0600, written to a temporary file and renamed, so a reader never sees half a token).
 */
import { type Stats } from 'node:fs';
import { open, realpath, stat } from 'node:fs/promises';
import { createRenewingFetch } from '@passport/core';
import { CliError, type CliIo } from './cli-context.js';
import { NotARegularFileError, refuseIrreplaceable, writePrivateFile } from './private-file.js';
import { FileTooLargeError, readSmallTextFile, SMALL_FILE_MAX_BYTES } from './small-file.js';

/**
 * `--jwt` and `--jwt-file` as a run may take them: one of them, not empty (an unset variable would
 * have sent the run to PASSPORT_JWT). A probe: with both, --jwt won and the file was neither read nor
 * given the renewed token, without a word.
 */
export function checkJwtFlags(jwt: string | undefined, file: string | undefined): void {
  if (jwt !== undefined && file !== undefined) throw new CliError('give --jwt or --jwt-file, not both');
  // A blank file name too (a review: --jwt-file ' ' read a file named " ").
  const emptyFile = file !== undefined && file.trim() === '';
  if (jwt === '' || emptyFile)
    throw new CliError(`${jwt === '' ? '--jwt' : '--jwt-file'} is empty (an unset variable?)`);
}

export async function readJwt(jwt: string | undefined, file: string | undefined, io: CliIo): Promise<string> {
  checkJwtFlags(jwt, file);
  let token: string;
  let source: string;
  if (jwt) [token, source] = [jwt.trim(), '--jwt'];
  else if (file) {
    try {
      [token, source] = [(await readSmallTextFile(file, SMALL_FILE_MAX_BYTES)).trim(), file];
    } catch (error) {
      if (error instanceof FileTooLargeError)
        throw new CliError(`${file} holds more than ${SMALL_FILE_MAX_BYTES} bytes: not a JWT`);
      throw new CliError(`cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
    }
  } else if (io.env.PASSPORT_JWT) [token, source] = [io.env.PASSPORT_JWT.trim(), 'PASSPORT_JWT'];
  else throw new CliError('--jwt <token> or --jwt-file <file> is required (or set PASSPORT_JWT)');
  // Said here: a token with a newline (a key file given as --jwt-file) would fail inside fetch, and the
  // tool would say it could not reach the API.
  if (!isJwtShaped(token)) throw new CliError(`${source} does not hold a JWT (three base64url segments)`);
  return token;
}

/** A JWT as the CLI saves it: three base64url segments (the file adds a newline). */
const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

export function isJwtShaped(text: string): boolean {
  if (!JWT_SHAPE.test(text)) return false;
  // Its header is a JSON object naming an algorithm: "1.2.3" or "www.example.com" are no JWT (and
  // login --save must not replace such files).
  try {
    const header: unknown = JSON.parse(
      Buffer.from(text.slice(0, text.indexOf('.')), 'base64url').toString('utf8'),
    );
    return (
      typeof header === 'object' && header !== null && typeof (header as { alg?: unknown }).alg === 'string'
    );
  } catch {
    return false;
  }
}

/** More than any saved JWT: a file this large is something else, and is not read whole. */
const MAX_JWT_FILE_BYTES = 64 * 1024;

/**
 * Refuses to replace `file` with a token unless it is missing, empty or holds a saved JWT, and is not
 * the key file: `login --key k.json --save k.json` would replace the private key with the token.
 */
export async function assertReplaceableJwtFile(file: string, keyFile?: string): Promise<void> {
  // Only a regular file is read: opening a FIFO waits for a writer (`login --save fifo` would hang
  // before logging in), a device never ends.
  // What writePrivateFile would refuse (a link through /proc: `/dev/stdout` with stdout redirected to a
  // file resolves to a regular file here) is refused before the login too (a review: it logged in, then
  // failed `cannot write /dev/stdout (error)` and closed the new session).
  try {
    await refuseIrreplaceable(file);
  } catch (error) {
    if (error instanceof NotARegularFileError) throw new CliError(error.message);
    throw error;
  }
  let kind: Stats;
  try {
    kind = await stat(file);
  } catch {
    return; // missing (or unreadable: the write itself then fails with its own error)
  }
  if (!kind.isFile()) throw new CliError(`${file} is not a regular file; it was not overwritten`);
  let content: string;
  try {
    const handle = await open(file, 'r');
    try {
      const buffer = Buffer.alloc(MAX_JWT_FILE_BYTES + 1);
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
      content = buffer.subarray(0, bytesRead).toString('utf8');
    } finally {
      await handle.close();
    }
  } catch {
    return; // missing (or unreadable: the write itself then fails with its own error)
  }
  const [real, realKey] = await Promise.all([
    realpath(file).catch(() => {
      throw new CliError(`${file} cannot be resolved; it was not overwritten`);
    }),
    keyFile ? realpath(keyFile).catch(() => null) : null,
  ]);
  if (real === realKey) throw new CliError(`${file} is the --key file; it was not overwritten`);
  if (content.trim() !== '' && !isJwtShaped(content.trim()))
    throw new CliError(`${file} holds something other than a saved JWT; it was not overwritten`);
}

/**
 * Writes a renewed token to `file`. A write that fails (a read-only file system, a full disk) is a
 * warning, not the command's failure: the API answered, and the token in the file stays valid until it
 * expires (failing the fetch would have the CLI print "cannot reach" the API).
 */
async function saveRenewed(file: string, token: string, io: CliIo): Promise<void> {
  try {
    await assertReplaceableJwtFile(file);
  } catch (error) {
    io.stderr(`warning: the renewed token was not saved: ${(error as Error).message}\n`);
    return;
  }
  try {
    await writePrivateFile(file, `${token}\n`, { replace: true });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    io.stderr(
      `warning: the renewed token could not be saved to ${file} (${code}); the token in it stays valid until it expires\n`,
    );
  }
}

/** The JWT, and an io whose fetch sends it and takes a renewed one (saved back to `file` when given). */
export async function bearerIo(
  jwt: string | undefined,
  file: string | undefined,
  io: CliIo,
  api: string,
): Promise<{ jwt: string; io: CliIo }> {
  const token = await readJwt(jwt, file, io);
  const save = jwt || !file ? undefined : file;
  const renewing = createRenewingFetch({
    token,
    fetch: io.fetch,
    // The API named on the command line (its URL may differ from the token's issuer: a proxy, 127.0.0.1).
    origins: [api],
    onNewToken: save ? (fresh) => saveRenewed(save, fresh, io) : undefined,
  });
  return { jwt: token, io: { ...io, fetch: renewing as typeof fetch } };
}
