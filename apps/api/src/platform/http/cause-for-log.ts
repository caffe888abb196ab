/**
 * The cause of a decided 500 (a store refusing a logout's write), as its log line carries it: type,
 * message and stack, bounded. Logged whole, pino's error serializer copied every own field of the
 * error: ioredis's `command` holds the script call's arguments (a client's logout reason among them)
 * and, on the first call after a start, the whole Lua script (a probe: 1.2 to 3.7 KB per request during
 * a Redis out-of-memory spell).
 */
import { printableText } from '@passport/core/codecs';

export const CAUSE_MESSAGE_MAX = 300;
export const CAUSE_STACK_MAX = 4000;

export interface LoggedCause {
  readonly type: string;
  readonly message: string;
  readonly stack?: string;
  readonly code?: string;
}

export function causeForLog(cause: unknown): LoggedCause | undefined {
  if (cause === undefined || cause === null) return undefined;
  if (!(cause instanceof Error))
    return { type: typeof cause, message: printableText(String(cause), CAUSE_MESSAGE_MAX) };
  const code = (cause as { code?: unknown }).code;
  return {
    type: printableText(cause.name, 64),
    message: printableText(cause.message, CAUSE_MESSAGE_MAX),
    ...(typeof cause.stack === 'string' ? { stack: stackFrames(cause, cause.stack) } : {}),
    ...(typeof code === 'string' ? { code: printableText(code, 64) } : {}),
  };
}

/**
 * The stack's frames only, each printable: a V8 stack begins with `name: message` as thrown (a review:
 * the message's controls and length reached the log through it); the message is logged on its own.
 */
function stackFrames(cause: Error, stack: string): string {
  // The head is cut first: a message may hold lines that look like frames (a review).
  const head = cause.message === '' ? cause.name : `${cause.name}: ${cause.message}`;
  return (stack.startsWith(head) ? stack.slice(head.length) : stack)
    .split('\n')
    .filter((line) => /^\s+at /.test(line))
    .map((line) => printableText(line, 300))
    .join('\n')
    .slice(0, CAUSE_STACK_MAX);
}
