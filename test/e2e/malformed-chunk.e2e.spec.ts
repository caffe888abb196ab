/**
 * Found by a probe (hostile bytes): a chunked body whose framing breaks after its first chunk
 * (`2\r\n{}\r\nZZ\r\n`: a chunk size that is no hex number) got no answer at all, not the 400 of any
 * other malformed request nor the 408 of HTTP_REQUEST_TIMEOUT_MS, and its socket was never closed: the
 * client error handler waits for the answer to the request "in flight" on the socket, but that request
 * is the one whose body the parser has just refused, so it never ends. A client that then closes its
 * side leaves the server's socket in CLOSE_WAIT until HTTP_CONNECTION_TIMEOUT_MS (300 s); a drain then
 * waits DRAIN_TIMEOUT_MS for it.
 */
import { openRaw } from '../support/raw-http.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

describe('a chunked body whose framing breaks mid-body', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({
      STORE: 'memory',
      PORT: '44053',
      PUBLIC_BASE_URL: 'http://127.0.0.1:44053',
      HTTP_REQUEST_TIMEOUT_MS: '1000',
      HTTP_HEADERS_TIMEOUT_MS: '1000',
    });
  });
  afterAll(async () => {
    // The stuck requests would hold app.close() (it waits for them) past the hook's timeout.
    (app.app.getHttpServer() as { closeAllConnections(): void }).closeAllConnections();
    await app.close();
  });

  it.each([
    ['a chunk size that is no hex number', '2\r\n{}\r\nZZ\r\n'],
    ['a chunk without its CRLF', '2\r\n{}XX'],
  ])('%s: answered and closed within the request timeout', async (_name, body) => {
    const connection = await openRaw(app.baseUrl, { allowHalfOpen: true });
    const started = Date.now();
    connection.socket.write(
      'POST /api/identity/verify HTTP/1.1\r\nHost: 127.0.0.1:44053\r\nContent-Type: application/json\r\n' +
        `Transfer-Encoding: chunked\r\n\r\n${body}`,
    );
    const timeout = new Promise<null>((resolve) => setTimeout(() => resolve(null), 5000));
    const closed = await Promise.race([connection.closed, timeout]);
    connection.socket.destroy();
    expect(closed).not.toBeNull();
    expect((closed as { atMs: number }).atMs - started).toBeLessThan(5000);
    expect((closed as { text: string }).text).toMatch(/^HTTP\/1\.1 (400|408) /);
  });
});
