/**
 * Structured JSON logs (pino), one logger for Fastify's request logs and Nest's own messages. Every
 * request log line carries `requestId`. Secrets stay out: request logs record method, path without
 * query string and peer address (never headers or bodies), and known secret fields are redacted.
 */
import { writeSync } from 'node:fs';
import { type LoggerService } from '@nestjs/common';
import { pino, type Logger } from 'pino';
import { type AppConfig } from '../config/app-config.js';

const REDACT = [
  'req.headers.authorization',
  'req.headers.cookie',
  '*.authorization',
  '*.jwt_token',
  '*.secretSeed',
  '*.private_key',
  '*.base64url_signature',
  '*.passportid_base64url_signature',
];

/** `destination`: where the JSON lines go (standard output when absent; tests read them). */
export function createLogger(
  config: Pick<AppConfig, 'logLevel'>,
  destination?: pino.DestinationStream,
): Logger {
  const options: pino.LoggerOptions = {
    level: config.logLevel,
    base: { service: 'passport-identity-api' },
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: { paths: REDACT, censor: '[redacted]' },
    serializers: {
      req: (req: { method?: string; url?: string; ip?: string }) => ({
        method: req.method,
        path: typeof req.url === 'string' ? req.url.split('?')[0] : undefined,
        remoteAddress: req.ip,
      }),
      res: (res: { statusCode?: number }) => ({ statusCode: res.statusCode }),
    },
  };
  return pino(options, destination ?? standardOutput());
}

/**
 * Standard output as pino's own default destination, plus what to do when it refuses a write with
 * anything but EPIPE (which pino handles): a log file on a full disk (ENOSPC), a terminal gone (EIO).
 * pino re-emitted such an error with no listener, the process died of it, and pino's exit hook then
 * retried the lines it held every 100 ms forever: the server neither served nor exited, deaf to
 * SIGTERM, silent (a probe: `> /dev/full`, and a log file on a tmpfs filled while it ran). The server
 * goes on serving without a log instead, as it does after EPIPE, and says so once on standard error.
 */
function standardOutput(): pino.DestinationStream {
  const stream = pino.destination({ dest: 1, sync: false });
  let dropped = false;
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (dropped || error.code === 'EPIPE') return;
    dropped = true;
    const ignore = () => {};
    Object.assign(stream, { write: ignore, end: ignore, flushSync: ignore, destroy: ignore });
    try {
      writeSync(
        2,
        `log output failed (${error.code ?? error.message}): the server goes on serving and writes no more log lines\n`,
      );
    } catch {
      // Standard error refused too (the same full disk): nothing is left to tell.
    }
  });
  return stream;
}

/**
 * A log line with fields of its own (an audit record: who did what, and the request id), for
 * `Logger.log`: its fields become top-level fields of the JSON line, so a search by `requestId` or
 * `audit` finds it.
 */
export interface StructuredLogMessage {
  readonly msg: string;
  readonly [field: string]: unknown;
}

function isStructured(message: unknown): message is StructuredLogMessage {
  return (
    typeof message === 'object' && message !== null && typeof (message as { msg?: unknown }).msg === 'string'
  );
}

/**
 * Nest's own start-up account, one line per module, controller and route (~90 lines): at `debug`, so
 * that a start at the default level shows what a reader needs (a README walkthrough found the first
 * start's "Next steps" buried among the route lines).
 */
const FRAMEWORK_BOOTSTRAP_CONTEXTS: ReadonlySet<string> = new Set([
  'InstanceLoader',
  'RoutesResolver',
  'RouterExplorer',
]);

/** Nest's LoggerService on top of the same pino logger. */
export class PinoNestLogger implements LoggerService {
  constructor(private readonly logger: Logger) {}

  log(message: unknown, context?: string): void {
    this.write(
      context !== undefined && FRAMEWORK_BOOTSTRAP_CONTEXTS.has(context) ? 'debug' : 'info',
      message,
      context,
    );
  }
  error(message: unknown, traceOrContext?: string, context?: string): void {
    this.write('error', message, context ?? traceOrContext);
  }
  warn(message: unknown, context?: string): void {
    this.write('warn', message, context);
  }
  debug(message: unknown, context?: string): void {
    this.write('debug', message, context);
  }
  verbose(message: unknown, context?: string): void {
    this.write('trace', message, context);
  }
  fatal(message: unknown, context?: string): void {
    this.write('fatal', message, context);
  }

  /** One line at `level`: a structured message's fields as top-level fields, anything else as text. */
  private write(
    level: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace',
    message: unknown,
    context?: string,
  ): void {
    if (isStructured(message)) {
      const { msg, ...fields } = message;
      this.logger[level]({ context, ...fields }, msg);
    } else {
      this.logger[level]({ context }, String(message));
    }
  }
}
