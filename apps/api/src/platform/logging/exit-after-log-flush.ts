/**
 * Ends the process once the log's stream has written what it holds and closed, or has failed, or
 * `boundMs` has passed. pino's own exit hook writes what a stream still holds synchronously, and that
 * write (sonic-boom's flushSync) retries a pipe whose reader is gone (EPIPE) forever: with
 * `npm start | tee` and Ctrl-C, `tee` ends first, and the server never exited, deaf to further signals
 * (a probe). Ended first, the stream either closes (and leaves pino's exit hook) or meets the EPIPE as
 * an error, after which pino writes nothing more to it; either way the exit hook has nothing to do.
 * (sonic-boom's asynchronous `flush` does not help: it calls back at once, a write still in flight.)
 */
import { pino } from 'pino';

/** What this needs of a log stream (pino's sonic-boom; a Node stream passed as the destination too). */
interface EndableStream {
  write(chunk: string): boolean;
  end(): void;
  once(event: 'close' | 'error', listener: () => void): unknown;
}

/** Longer than any healthy reader needs for the few lines of a shutdown. */
const LOG_FLUSH_BOUND_MS = 2000;

function isEndable(stream: unknown): stream is EndableStream {
  return (
    typeof stream === 'object' &&
    stream !== null &&
    typeof (stream as EndableStream).write === 'function' &&
    typeof (stream as EndableStream).end === 'function' &&
    typeof (stream as EndableStream).once === 'function'
  );
}

/** `log`: the app's pino logger (typed as Fastify's logger); its stream is pino's, found by pino's symbol. */
export function exitAfterLogFlush(log: object, code: number): void {
  let exiting = false;
  const exit = () => {
    if (exiting) return;
    exiting = true;
    process.exit(code);
  };
  const stream = (log as Record<symbol, unknown>)[pino.symbols.streamSym];
  if (!isEndable(stream)) return exit();
  // After a broken pipe pino has made `end` a no-op, and no event comes: the bound ends the wait, and
  // pino's exit hook is a no-op then too.
  setTimeout(exit, LOG_FLUSH_BOUND_MS);
  stream.once('close', exit);
  stream.once('error', exit);
  // A line logged once the stream has ended (a connection's late event) is dropped: sonic-boom throws on
  // a write after its end, and that uncaught error turned a clean stop into exit status 1.
  const write = stream.write.bind(stream);
  stream.write = (chunk: string) => {
    try {
      return write(chunk);
    } catch {
      return false;
    }
  };
  try {
    stream.end();
  } catch {
    exit(); // already ended
  }
}
