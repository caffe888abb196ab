/**
 * Review of 35de6d0 (a session's GET event stream ends on its client's FIN): the 'end' listener is
 * added to the connection's socket by every GET of a session, also by one the transport answers at once
 * (409 while the session's stream is open), and stays until the connection ends. A client repeating its
 * GET on one keep-alive connection piles them up, each holding its request (a probe with curl: 15 GETs,
 * then "MaxListenersExceededWarning: Possible EventEmitter memory leak detected. 11 end listeners added
 * to [Socket]" on the server's stderr). Failing test.
 */
import { type Server } from 'node:http';
import { connect, type Socket } from 'node:net';
import { openRawSession } from './support/mcp-probe.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

describe('GET /mcp answered at once on a keep-alive connection', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ STORE: 'memory' });
  });
  afterAll(() => app.close());

  it('leaves no listener behind on the connection', async () => {
    const sessionId = await openRawSession(app.baseUrl);
    const stream = new AbortController();
    const open = await fetch(`${app.baseUrl}/mcp`, {
      headers: {
        accept: 'text/event-stream',
        'mcp-session-id': sessionId,
        'mcp-protocol-version': '2025-11-25',
      },
      signal: stream.signal,
    });
    expect(open.status).toBe(200);
    // The server's side of the connection, to count its 'end' listeners.
    const sockets: Socket[] = [];
    const onConnection = (socket: Socket) => sockets.push(socket);
    const server = app.app.getHttpServer() as Server;
    server.on('connection', onConnection);
    const { hostname, port } = new URL(app.baseUrl);
    const request =
      `GET /mcp HTTP/1.1\r\nHost: ${hostname}:${port}\r\nAccept: text/event-stream\r\n` +
      `Mcp-Session-Id: ${sessionId}\r\nMCP-Protocol-Version: 2025-11-25\r\n\r\n`;
    try {
      const endListeners: number[] = [];
      // One request at a time on one connection (as curl does with several URLs), each answered 409.
      const statuses = await new Promise<string[]>((resolve, reject) => {
        const heads: string[] = [];
        let text = '';
        const socket = connect(Number(port), hostname, () => socket.write(request));
        socket.on('data', (chunk: Buffer) => {
          text += chunk.toString();
          const end = text.indexOf('"id":null}');
          if (end < 0) return;
          heads.push(text.slice(0, text.indexOf('\r\n')));
          text = text.slice(end + '"id":null}'.length);
          if (heads.length === 12) {
            endListeners.push(...sockets.map((s) => s.listenerCount('end')));
            socket.destroy();
            resolve(heads);
          } else socket.write(request);
        });
        socket.on('error', reject);
      });
      expect(new Set(statuses)).toEqual(new Set(['HTTP/1.1 409 Conflict']));
      // Counted before the destroy above reaches the server: a connection's own 'end' listeners are a few.
      expect(Math.max(...endListeners)).toBeLessThan(5);
    } finally {
      server.off('connection', onConnection);
      stream.abort();
      await open.body?.cancel().catch(() => undefined);
    }
  }, 15_000);
});
