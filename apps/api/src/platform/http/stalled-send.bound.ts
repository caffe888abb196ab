/**
 * A connection whose answers make no progress towards its client for `sendTimeoutMs` is destroyed, as a
 * proxy's send timeout does. A client that sends requests and never reads would make the server hold
 * every answer until the socket's idle timeout (300 s): ~850 MB with 10 addresses pipelining MCP
 * batches of OpenAPI reads (measured), and answers pipelined behind an unread one are held whole too (Node keeps
 * them until the one before is written). Destroying the connection frees them all.
 *
 * Progress is what the kernel took: the bytes handed to libuv less those it still queues
 * (`bytesWritten − writeQueueSize` of the socket's handle), sampled once a second. A socket with answer
 * bytes still pending (Node's `writableLength`) whose kernel count has not moved at any sample for the
 * whole timeout is stalled. The kernel's send buffer frees in steps (it takes more only once about a third
 * of it has drained), so a reader looks stalled between steps: on loopback with 4 MB buffers, gaps of
 * 14 s at 100 KB/s and 54 s at 20 KB/s (measured). A reader slower than about 20 KB/s of a
 * multi-MB answer can therefore be cut at the default 60 s; an idle socket (an MCP event stream with
 * nothing to send) has nothing pending and never is. Costs nothing per request: sockets are tracked from
 * their `connection` event.
 */
import { type Server } from 'node:http';
import { type Socket } from 'node:net';

/** How often the kernel's count is sampled. */
const SAMPLE_INTERVAL_MS = 1000;

interface SocketHandle {
  readonly bytesWritten?: number;
  readonly writeQueueSize?: number;
}

interface Watched {
  /** The kernel's count at the last sample. */
  taken: number;
  /** Samples in a row with answer bytes pending and the kernel's count unchanged. */
  stalledSamples: number;
}

/** Bytes of this socket's answers the kernel has taken (sent, or in its send buffer), or null without a handle. */
function takenBytes(socket: Socket): number | null {
  const handle = (socket as unknown as { _handle?: SocketHandle | null })._handle;
  if (!handle || typeof handle.bytesWritten !== 'number' || typeof handle.writeQueueSize !== 'number')
    return null;
  return handle.bytesWritten - handle.writeQueueSize;
}

export interface StalledSendBound {
  /** Connections destroyed for a stalled send since the start. */
  readonly destroyed: () => number;
  close(): void;
}

/**
 * Destroys every connection of `server` whose queued answer bytes have not gone down for `sendTimeoutMs`
 * (to within a second).
 */
export function boundStalledSends(
  server: Server,
  sendTimeoutMs: number,
  onDestroyed?: (queuedBytes: number) => void,
  onUnmeasurable?: () => void,
): StalledSendBound {
  const watched = new Map<Socket, Watched>();
  const samplesToCut = Math.max(1, Math.ceil(sendTimeoutMs / SAMPLE_INTERVAL_MS));
  let destroyed = 0;
  let unmeasurableSaid = false;
  const onConnection = (socket: Socket): void => {
    watched.set(socket, { taken: 0, stalledSamples: 0 });
    socket.once('close', () => watched.delete(socket));
  };
  server.on('connection', onConnection);
  const timer = setInterval(() => {
    for (const [socket, state] of watched) {
      const taken = takenBytes(socket);
      // Node's private handle fields are what progress is read from: said once if a Node version lacks
      // them, rather than the bound switching itself off without a word.
      if (taken === null && !socket.destroyed && !unmeasurableSaid) {
        unmeasurableSaid = true;
        onUnmeasurable?.();
      }
      if (taken === null || socket.writableLength === 0 || taken !== state.taken) {
        state.taken = taken ?? 0;
        state.stalledSamples = 0;
        continue;
      }
      if (++state.stalledSamples < samplesToCut) continue;
      destroyed++;
      watched.delete(socket);
      const pending = socket.writableLength;
      socket.destroy();
      onDestroyed?.(pending);
    }
  }, SAMPLE_INTERVAL_MS);
  timer.unref();
  return {
    destroyed: () => destroyed,
    close() {
      clearInterval(timer);
      server.off('connection', onConnection);
      watched.clear();
    },
  };
}
