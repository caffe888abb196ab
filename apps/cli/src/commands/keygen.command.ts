/**
 * `passport keygen`: a new Ed25519 key in NEAR's credential format (docs/protocol.md §1), for its implicit
 * account (64 hex = the public key) unless `--account` names one. Written with mode 0600; an existing
 * file is never overwritten without `--force`.
 */
import { randomBytes } from 'node:crypto';
import { stat } from 'node:fs/promises';
import { formatNearCredentials, nearCredentialsFromSeed } from '@passport/core';
import { isNearAccountId } from '@passport/core/credentials';
import { CliError, output, parseCommandLine, refuseEmptyFlags, type CliCommand } from '../cli-context.js';
import { NotARegularFileError, writePrivateFile } from '../private-file.js';

export const keygenCommand: CliCommand = {
  name: 'keygen',
  summary: 'create a key file (NEAR credential JSON, implicit account)',
  help: `Usage: passport keygen --out <file> [--account <named.near>] [--force] [--json]

Creates a new Ed25519 key and writes it as NEAR credential JSON
{account_id, public_key, private_key} with mode 0600. The account is the key's
implicit account (64 hex characters) unless --account names another.
--force replaces a regular file (or a symbolic link itself, never its target),
never a FIFO, device or directory; --out - is refused (a key never goes to stdout).`,
  async run(args, io) {
    const { values } = parseCommandLine({
      args,
      options: {
        out: { type: 'string' },
        account: { type: 'string' },
        force: { type: 'boolean' },
        json: { type: 'boolean' },
      },
      strict: true,
      allowPositionals: false,
    });
    refuseEmptyFlags(values, ['out']);
    if (!values.out) throw new CliError('--out <file> is required');
    // A private key goes to a 0600 file only: terminals, pipes and logs keep standard output.
    if (values.out === '-')
      throw new CliError(
        '--out - is not taken: a private key is never written to standard output; name a file',
      );
    if (values.account !== undefined && !isNearAccountId(values.account))
      throw new CliError(`--account "${values.account}" is not a NEAR account id`);
    const credentials = nearCredentialsFromSeed(randomBytes(32), values.account);
    const json = formatNearCredentials(credentials);
    try {
      await writePrivateFile(values.out, `${JSON.stringify(json, null, 2)}\n`, { replace: !!values.force });
    } catch (error) {
      if (error instanceof NotARegularFileError && !(await isDirectory(values.out)))
        throw new CliError(error.message);
      const code = (error as NodeJS.ErrnoException).code;
      throw new CliError(
        (await isDirectory(values.out))
          ? `${values.out} is a directory`
          : code === 'EEXIST'
            ? // --force would not replace a FIFO, a device or a link to one (a CLI probe: invited, it failed).
              (await isRegularOrMissing(values.out))
              ? `${values.out} exists; use --force to replace it`
              : `${values.out} is not a regular file; it was not overwritten`
            : `cannot write ${values.out} (${code ?? 'error'})`,
      );
    }
    io.done?.(`wrote the key of ${json.account_id} (${json.public_key}) to ${values.out}`);
    output(
      io,
      !!values.json,
      { file: values.out, accountId: json.account_id, publicKey: json.public_key },
      `${json.account_id}\n${json.public_key}\nwritten to ${values.out}`,
    );
  },
};

/** Whether `file` (followed through links) is a regular file or names nothing. */
async function isRegularOrMissing(file: string): Promise<boolean> {
  return stat(file).then(
    (s) => s.isFile(),
    () => true,
  );
}

async function isDirectory(file: string): Promise<boolean> {
  return stat(file).then(
    (s) => s.isDirectory(),
    () => false,
  );
}
