/**
 * A client whose session event stream (GET /mcp) ends on its side can open it again (MCP: a client may
 * reconnect its GET stream; the Python SDK retries twice, a second apart, then goes without). A probe
 * with the Python SDK and curl: once the server answers half-closed clients (httpAllowHalfOpen), a
 * client that closed its stream left it open on the server (socket in CLOSE-WAIT, nothing is ever
 * written on it to find out), so every new GET of that session was 409 "Only one SSE stream is
 * allowed per session" for ~15-30 s.
 */
import { connect } from 'node:net';
import { openRawSession } from './support/mcp-probe.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

/** Opens the session's event stream on a raw socket, waits for its 200 head, then closes the socket. */
function openAndDropStream(app: TestApp, sessionId: string): Promise<string> {
  const { hostname, port } = new URL(app.baseUrl);
  return new Promise((resolve, reject) => {
    let text = '';
    const socket = connect(Number(port), hostname, () =>
      socket.write(
        `GET /mcp HTTP/1.1\r\nHost: ${hostname}:${port}\r\nAccept: text/event-stream\r\n` +
          `Mcp-Session-Id: ${sessionId}\r\nMCP-Protocol-Version: 2025-11-25\r\n\r\n`,
      ),
    );
    socket.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      if (text.includes('\r\n\r\n')) {
        socket.end(); // the client goes away, as on a dropped connection or a client-side timeout
        resolve(text.slice(0, text.indexOf('\r\n')));
      }
    });
    socket.on('error', reject);
  });
}

describe('GET /mcp event stream dropped by its client', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ STORE: 'memory' });
  });
  afterAll(() => app.close());

  it('can be opened again on the same session (not 409 for the dropped one)', async () => {
    const sessionId = await openRawSession(app.baseUrl);
    expect(await openAndDropStream(app, sessionId)).toBe('HTTP/1.1 200 OK');
    // What the Python SDK does: reconnect after 1 s, once more after another.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const abort = new AbortController();
    const response = await fetch(`${app.baseUrl}/mcp`, {
      headers: {
        accept: 'text/event-stream',
        'mcp-session-id': sessionId,
        'mcp-protocol-version': '2025-11-25',
      },
      signal: abort.signal,
    });
    const second = response.status;
    abort.abort(); // a 200 is an open stream: only its status is needed
    await response.body?.cancel().catch(() => undefined);
    expect(second).not.toBe(409);
  }, 15_000);
});
