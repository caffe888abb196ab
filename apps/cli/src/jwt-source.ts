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
    onNewToken: save ? (fresh) => writePrivateFile(save, `${fresh}\n`, { replace: true }) : undefined,
  });
  return { jwt: token, io: { ...io, fetch: renewing as typeof fetch } };
}
