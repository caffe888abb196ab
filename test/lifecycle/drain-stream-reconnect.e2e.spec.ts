/**
 * The drain ends MCP event streams once, as it stops accepting (DrainListeners). A client that opens its
 * stream again at once on the same keep-alive connection (before the 20 ms idle sweep closes it) gets a
 * new stream (200, `Connection: close`), which never ends on its own: the drain waits DRAIN_TIMEOUT_MS
 * again (a review: 8 s of 8 with a raw socket reconnecting as the stream's last chunk arrived).
 */
import net from 'node:net';
import { drainAndClose } from '../../apps/api/src/platform/lifecycle/graceful-shutdown.js';
import { openRawSession, probe } from '../mcp/support/mcp-probe.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

describe('drainAndClose with an event stream opened again on the same connection', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp();
  });
  afterAll(() => app.close().catch(() => undefined));

  it('does not wait DRAIN_TIMEOUT_MS for a stream reopened after the drain ended it', async () => {
    const sid = await openRawSession(app.baseUrl);
    await probe(app.baseUrl, {
      headers: { 'mcp-session-id': sid, 'mcp-protocol-version': '2025-11-25' },
      body: { jsonrpc: '2.0', method: 'notifications/initialized' },
    });
    const { host, port } = new URL(app.baseUrl);
    const get =
      `GET /mcp HTTP/1.1\r\nHost: ${host}\r\nAccept: text/event-stream\r\nMcp-Session-Id: ${sid}\r\n` +
      'MCP-Protocol-Version: 2025-11-25\r\n\r\n';
    const socket = net.connect(Number(port), '127.0.0.1');
    let seen = '';
    let reopened = false;
    socket.on('data', (chunk) => {
      seen += String(chunk);
      // The first stream's last chunk: open it again at once, as a client reconnecting would.
      if (!reopened && seen.includes('0\r\n\r\n')) {
        reopened = true;
        socket.write(get);
      }
    });
    socket.on('error', () => undefined);
    socket.write(get);
    while (!seen.includes('text/event-stream')) await new Promise((r) => setTimeout(r, 10));
    const log = { info: () => undefined, warn: () => undefined };
    const started = Date.now();
    await drainAndClose(app.app, { drainDelayMs: 0, drainTimeoutMs: 5_000 }, log);
    socket.destroy();
    expect(reopened).toBe(true);
    // Fails: about 5 s (the reopened stream was cut at the timeout).
    expect(Date.now() - started).toBeLessThan(2_000);
  }, 30_000);
});
