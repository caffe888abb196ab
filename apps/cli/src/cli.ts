/**
 * The `passport` command-line tool: dispatches to one command per file (`commands/*.command.ts`).
 * Every command has `--help`, prints JSON with `--json`, and fails with one line and a non-zero exit
 * code on bad input (2: usage or input; 1: unexpected).
 */
import { printableText } from '@passport/core/codecs';
import { CliError, HelpRequested, type CliCommand, type CliIo } from './cli-context.js';
import { COMMANDS } from './commands/index.js';
import { CLI_VERSION } from './cli-version.js';

function usage(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length));
  return [
    'Usage: passport <command> [options]   (passport <command> --help for details; passport --version)',
    '',
    'Commands:',
    ...COMMANDS.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
  ].join('\n');
}

const MAX_ERROR_LENGTH = 2000;

/**
 * The line said on stderr when the result could not be written to stdout: `errorCode` for a write that
 * failed (a full disk: the run ends with exit 2), `readerGone` when the reader went away (EPIPE: quiet,
 * unless the run had done something). `done` is what the run did that stays done (`CliIo.done`), so a
 * passport minted, a key written or a login is never left unsaid. Null when there is nothing to say.
 */
export function lostOutputLine(
  argv: readonly string[],
  errorCode: string | null,
  readerGone: boolean,
  done: readonly string[],
): string | null {
  if (errorCode === null && (!readerGone || done.length === 0)) return null;
  const command = COMMANDS.find((c) => c.name === argv[0]);
  const what =
    errorCode !== null
      ? `standard output could not be written (${errorCode})`
      : 'the reader of standard output went away before the result';
  const line = `${what}${done.length > 0 ? `; what was done: ${done.join('; ')}` : ''}`;
  return `passport${command ? ` ${command.name}` : ''}: ${printableText(line, MAX_ERROR_LENGTH)}\n`;
}

/** Runs one command line; returns the exit code (never calls process.exit, so tests run it in-process). */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  const [name, ...rest] = argv;
  // Asked for, help is the output (stdout, 0); a bare `passport` is a usage error (stderr, 2), so that a
  // script's stdout never takes the usage for a result (a probe).
  if (!name) {
    io.stderr(`${usage()}\n`);
    return 2;
  }
  if (name === '--help' || name === '-h' || name === 'help') {
    io.stdout(`${usage()}\n`);
    return 0;
  }
  if (name === '--version' || name === '-V' || name === 'version') {
    io.stdout(`${CLI_VERSION}\n`);
    return 0;
  }
  const command: CliCommand | undefined = COMMANDS.find((c) => c.name === name);
  if (!command) {
    io.stderr(`passport: unknown command "${printableText(name, 80)}" (see passport --help)\n`);
    return 2;
  }
  try {
    return (await command.run(rest, io)) ?? 0;
  } catch (error) {
    // Asked for by the command's own parsing: `-h` after `--` or after a line is a line, not help.
    if (error instanceof HelpRequested) {
      io.stdout(`${command.help}\n`);
      return 0;
    }
    // One printable line whatever it quotes (a peer's line, a server's field, a file name).
    if (error instanceof CliError) {
      io.stderr(`passport ${name}: ${printableText(error.message, MAX_ERROR_LENGTH)}\n`);
      return 2;
    }
    const message = (error as Error)?.message?.split('\n')[0] ?? String(error);
    io.stderr(`passport ${name}: unexpected error: ${printableText(message, MAX_ERROR_LENGTH)}\n`);
    return 1;
  }
}
