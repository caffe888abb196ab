#!/usr/bin/env node
/** Entry point of the `passport` command-line tool. */
import { writeSync } from 'node:fs';
import { lostOutputLine, runCli } from './cli.js';

/** The code of a stdout write that failed for another reason than a reader that went away (ENOSPC). */
let outputError: string | null = null;
/** Set when stdout's reader went away (EPIPE). */
let readerGone = false;
/** What the run has done that stays done (a passport minted, a file written), said when stdout fails. */
const done: string[] = [];

/** Settles once every write to stdout so far has been written or has failed. */
let stdoutSettled: Promise<void> = Promise.resolve();

/**
 * A stream whose reader went away (`passport --help | head -1`): what is left to write has nowhere to
 * go, which is no error of the command, so it is dropped and the command ends with its own exit code.
 * Otherwise Node throws EPIPE as an unhandled 'error' event, a stack trace on stderr.
 */
function writerOf(stream: NodeJS.WriteStream, isStdout: boolean): (text: string) => void {
  let gone = false;
  // A reader that went away (EPIPE) drops the rest quietly; any other write error (ENOSPC on /dev/full)
  // too, instead of an unhandled error's stack trace, and the run then ends with exit 2 when what
  // failed was its output (a verdict that could not be printed is no answer a script may trust).
  const failed = (error: NodeJS.ErrnoException): void => {
    gone = true;
    if (!isStdout) return;
    if (error.code === 'EPIPE') readerGone = true;
    else outputError ??= error.code ?? 'error';
  };
  stream.on('error', failed);
  return (text) => {
    if (gone) return;
    // The write's callback comes once it was written or failed (before its 'error' event).
    const settled = new Promise<void>((resolve) =>
      stream.write(text, (error) => {
        if (error) failed(error);
        resolve();
      }),
    );
    if (isStdout) stdoutSettled = stdoutSettled.then(() => settled);
  };
}

const argv = process.argv.slice(2);
const code = await runCli(argv, {
  stdout: writerOf(process.stdout, true),
  stderr: writerOf(process.stderr, false),
  env: process.env,
  fetch: globalThis.fetch,
  done: (what) => done.push(what),
  stdoutWritten: () => stdoutSettled.then(() => outputError === null && !readerGone),
});
process.exitCode = code;
// A write fails after the call that made it (its error event comes later): decided as the process ends.
// Said on stderr with what the run did (a probe: `mint > /dev/full` minted, then exited 2 without a word).
process.on('exit', () => {
  const line = lostOutputLine(argv, outputError, readerGone, done);
  if (line !== null) {
    try {
      writeSync(2, line);
    } catch {
      // stderr is gone too: the exit code is all there is.
    }
  }
  if (outputError !== null) process.exitCode = 2;
});
