#!/usr/bin/env node
/** Entry point of the `passport` command-line tool. */
import { runCli } from './cli.js';

const code = await runCli(process.argv.slice(2), {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  env: process.env,
  fetch: globalThis.fetch,
});
process.exitCode = code;
