/**
 * Fastify's per-request logger, created only when a request actually logs. Fastify builds a pino
 * child (bindings serialised, redaction paths compiled) for every request; at the default level a
 * request almost never logs, and profiling the verify endpoint put that child at ~3% of server CPU.
 * This stands in for the child and builds it on the first enabled log call; lines are identical.
 */
import { type FastifyBaseLogger } from 'fastify';
import { type Bindings, type ChildLoggerOptions, type Logger } from 'pino';

type LevelName = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';
type LogMethod = (...args: unknown[]) => void;

export class LazyRequestLogger {
  private built: Logger | undefined;

  constructor(
    private readonly parent: Logger,
    private readonly bindings: Bindings,
    private readonly options: ChildLoggerOptions,
  ) {}

  get level(): string {
    return this.options.level ?? this.parent.level;
  }

  // Prototype methods, not per-instance closures: one small object per request is the whole cost.
  fatal(...args: unknown[]): void {
    this.write('fatal', args);
  }
  error(...args: unknown[]): void {
    this.write('error', args);
  }
  warn(...args: unknown[]): void {
    this.write('warn', args);
  }
  info(...args: unknown[]): void {
    this.write('info', args);
  }
  debug(...args: unknown[]): void {
    this.write('debug', args);
  }
  trace(...args: unknown[]): void {
    this.write('trace', args);
  }
  silent(): void {}

  isLevelEnabled(level: string): boolean {
    return this.real().isLevelEnabled(level);
  }

  child(bindings: Bindings, options?: ChildLoggerOptions): Logger {
    return this.real().child(bindings, options);
  }

  private write(level: LevelName, args: unknown[]): void {
    // The parent answers "is this level on?" without building the child (no per-request level here).
    if (this.options.level === undefined && !this.parent.isLevelEnabled(level)) return;
    (this.real()[level] as LogMethod)(...args);
  }

  private real(): Logger {
    return (this.built ??= this.parent.child(this.bindings, this.options));
  }
}

/** Fastify's `childLoggerFactory` option: a lazy child per request. */
export function lazyChildLoggerFactory(
  logger: FastifyBaseLogger,
  bindings: Bindings,
  options: ChildLoggerOptions,
): FastifyBaseLogger {
  return new LazyRequestLogger(logger as Logger, bindings, options) as unknown as FastifyBaseLogger;
}
