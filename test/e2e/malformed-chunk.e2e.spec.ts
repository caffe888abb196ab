/**
 * Found by a probe (hostile bytes): a chunked body whose framing breaks after its first chunk
 * (`2\r\n{}\r\nZZ\r\n`: a chunk size that is no hex number) got no answer at all, not the 400 of any
 * other malformed request nor the 408 of HTTP_REQUEST_TIMEOUT_MS, and its socket was never closed: the
 * client error handler waited for the answer to the request "in flight" on the socket, but that request
 * is the one whose body the parser has just refused, so it never ends. A client that then closed its
 * side left the server's socket in CLOSE_WAIT until HTTP_CONNECTION_TIMEOUT_MS (300 s); a drain then
 * waited DRAIN_TIMEOUT_MS for it. The client here keeps its side open (it never sends a FIN): the
 * server must answer, send its own FIN and let go of the socket after the linger all the same.
 */
import { type Server } from 'node:http';
import { LINGER_MS } from '../../apps/api/src/platform/http/lingering-close.js';
import { openRaw } from '../support/raw-http.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

const openConnections = (server: Server) =>
  new Promise<number>((resolve, reject) =>
    server.getConnections((err, count) => (err ? reject(err) : resolve(count))),
  );

describe('a chunked body whose framing breaks mid-body', () => {
  let app: TestApp;
  let server: Server;
  beforeAll(async () => {
    app = await startTestApp({
      STORE: 'memory',
      HTTP_REQUEST_TIMEOUT_MS: '1000',
      HTTP_HEADERS_TIMEOUT_MS: '1000',
    });
    server = app.app.getHttpServer() as Server;
  });
  afterAll(async () => {
    // Before the fix the stuck requests held app.close() (it waits for them) past the hook's timeout.
    (server as unknown as { closeAllConnections(): void }).closeAllConnections();
    await app.close();
  });

  it.each([
    ['a chunk size that is no hex number', '2\r\n{}\r\nZZ\r\n'],
    ['a chunk without its CRLF', '2\r\n{}XX'],
  ])('%s: answered 400, and the server lets go of the socket after the linger', async (_name, body) => {
    const connection = await openRaw(app.baseUrl, { allowHalfOpen: true });
    const answered = new Promise<string>((resolve) =>
      connection.socket.once('end', () => resolve(connection.received())),
    );
    connection.socket.write(
      `POST /api/identity/verify HTTP/1.1\r\nHost: ${new URL(app.baseUrl).host}\r\nContent-Type: application/json\r\n` +
        `Transfer-Encoding: chunked\r\n\r\n${body}`,
    );
    const timeout = new Promise<null>((resolve) => setTimeout(() => resolve(null), 5000).unref());
    const text = await Promise.race([answered, timeout]);
    expect(text).toMatch(/^HTTP\/1\.1 400 /);
    expect(text).toContain('"code":"VALIDATION_FAILED"');
    // The client never closes its side; the server's descriptor is gone once the linger has passed.
    let open = await openConnections(server);
    for (const deadline = Date.now() + LINGER_MS + 3000; open > 0 && Date.now() < deadline;) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      open = await openConnections(server);
    }
    expect(open).toBe(0);
    connection.socket.destroy();
  });
});
