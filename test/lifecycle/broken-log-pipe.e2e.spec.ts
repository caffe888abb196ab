/**
 * The reader of the server's log pipe gone before a stop (`npm start | tee` and Ctrl-C: the terminal's
 * SIGINT ends `tee` too): the server still drains, closes and exits 0. pino's exit hook wrote the lines
 * it still held synchronously, and that write retried the broken pipe every 100 ms forever, so the
 * process never ended and ignored every later signal (a probe).
 */
import { startServerProcess, type ServerProcess } from '../support/server-process.js';

const EXIT_BOUND_MS = 15_000;

describe('a stop after the log pipe lost its reader', () => {
  let server: ServerProcess | undefined;

  afterEach(async () => {
    await server?.dispose();
    server = undefined;
  });

  it.each(['SIGINT', 'SIGTERM'] as const)(
    '%s: the process exits 0',
    async (signal) => {
      server = await startServerProcess();
      // The parent's end of the child's stdout closed: every write of the child's log now fails (EPIPE).
      server.child.stdout?.destroy();
      // A request, so that the server has written (and failed to write) before the stop too.
      expect((await fetch(`${server.baseUrl}/health`)).status).toBe(200);
      server.child.kill(signal);
      const outcome = await Promise.race([
        server.exited,
        new Promise<string>((resolve) => setTimeout(() => resolve('still running'), EXIT_BOUND_MS)),
      ]);
      expect(outcome).toBe(0);
    },
    90_000,
  );
});
