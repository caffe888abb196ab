/** The JWT for bearer commands: `--jwt`, else `--jwt-file`, else PASSPORT_JWT. */
import { readFile } from 'node:fs/promises';
import { CliError, type CliIo } from './cli-context.js';

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
