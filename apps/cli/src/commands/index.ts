/** The commands of the `passport` tool, in the order `--help` lists them. */
import { type CliCommand } from '../cli-context.js';
import { delegateCommand } from './delegate.command.js';
import { didCommand } from './did.command.js';
import { holaCommand } from './hola.command.js';
import { keygenCommand } from './keygen.command.js';
import { loginCommand } from './login.command.js';
import { logoutCommand } from './logout.command.js';
import { mintCommand } from './mint.command.js';
import { nonceCommand } from './nonce.command.js';
import { verifyCommand } from './verify.command.js';

export const COMMANDS: readonly CliCommand[] = [
  keygenCommand,
  mintCommand,
  loginCommand,
  logoutCommand,
  nonceCommand,
  holaCommand,
  verifyCommand,
  delegateCommand,
  didCommand,
];
