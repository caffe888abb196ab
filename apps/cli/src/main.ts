#!/usr/bin/env node
/** Entry point of the `passport` command-line tool. */
import { runCli } from './cli.js';

/**
 * A stream whose reader went away (`passport --help | head -1`): what is left to write has nowhere to
 * go, which is no error of the command, so it is dropped and the command ends with its own exit code.
 * Node threw EPIPE as an unhandled 'error' event, a stack trace on stderr (a probe).
 */
function writerOf(stream: NodeJS.WriteStream): (text: string) => void {
  let gone = false;
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
    gone = true;
  });
  return (text) => {
    if (!gone) stream.write(text);
  };
}

const code = await runCli(process.argv.slice(2), {
  stdout: writerOf(process.stdout),
  stderr: writerOf(process.stderr),
  env: process.env,
  fetch: globalThis.fetch,
});
process.exitCode = code;
