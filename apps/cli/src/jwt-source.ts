/**
 * The JWT for bearer commands: `--jwt`, else `--jwt-file`, else PASSPORT_JWT. `bearerIo` also keeps a
 * long-lived agent's JWT fresh: the API renews a token in its last 20 % with the `New-Token` response
 * header, and the returned io swaps it in (the core's renewing fetch) and rewrites `--jwt-file` with
 * it (mode 0600, written to a temporary file and renamed, so a reader never sees half a token).
 */
import { readFile } from 'node:fs/promises';
import { createRenewingFetch } from '@passport/core';
import { CliError, type CliIo } from './cli-context.js';
import { writePrivateFile } from './private-file.js';

export async function readJwt(jwt: string | undefined, file: string | undefined, io: CliIo): Promise<string> {
  if (jwt) return jwt.trim();
  if (file) {
    try {
      return (await readFile(file, 'utf8')).trim();
    } catch (error) {
      throw new CliError(`cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
    }
  }
  if (io.env.PASSPORT_JWT) return io.env.PASSPORT_JWT.trim();
  throw new CliError('--jwt <token> or --jwt-file <file> is required (or set PASSPORT_JWT)');
}

/**
 * Writes a renewed token to `file`. A write that fails (a read-only file system, a full disk) is a
 * warning, not the command's failure: the API answered, and the token in the file stays valid until it
 * expires. It failed the fetch before, which the CLI printed as "cannot reach" the API (a probe).
 */
async function saveRenewed(file: string, token: string, io: CliIo): Promise<void> {
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
): Promise<{ jwt: string; io: CliIo }> {
  const token = await readJwt(jwt, file, io);
  const save = jwt || !file ? undefined : file;
  const renewing = createRenewingFetch({
    token,
    fetch: io.fetch,
    onNewToken: save ? (fresh) => saveRenewed(save, fresh, io) : undefined,
  });
  return { jwt: token, io: { ...io, fetch: renewing as typeof fetch } };
}
