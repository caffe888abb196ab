#!/usr/bin/env node
/** Entry point of the `passport` command-line tool. */
import { runCli } from './cli.js';

/**
 * A stream whose reader went away (`passport --help | head -1`): what is left to write has nowhere to
 * go, which is no error of the command, so it is dropped and the command ends with its own exit code.
 * Otherwise Node throws EPIPE as an unhandled 'error' event, a stack trace on stderr.
 */
/** Set when stdout could not be written for another reason than a reader that went away (a full disk). */
let outputFailed = false;

function writerOf(stream: NodeJS.WriteStream, isStdout: boolean): (text: string) => void {
  let gone = false;
  // A reader that went away (EPIPE) drops the rest quietly; any other write error (ENOSPC on /dev/full)
  // too, instead of an unhandled error's stack trace, and the run then ends with exit 2 when what
  // failed was its output (a verdict that could not be printed is no answer a script may trust).
  stream.on('error', (error: NodeJS.ErrnoException) => {
    gone = true;
    if (error.code !== 'EPIPE' && isStdout) outputFailed = true;
  });
  return (text) => {
    if (!gone) stream.write(text);
  };
}

const code = await runCli(process.argv.slice(2), {
  stdout: writerOf(process.stdout, true),
  stderr: writerOf(process.stderr, false),
  env: process.env,
  fetch: globalThis.fetch,
});
process.exitCode = code;
// A write fails after the call that made it (its error event comes later): decided as the process ends.
process.on('exit', () => {
  if (outputFailed) process.exitCode = 2;
});
