/**
 * A client that writes its request and half-closes (FIN) at once is answered, then the connection is
 * closed. An operators' probe: Node's server aborted the request in flight on the FIN, and such clients
 * (TCP health checkers, `nc -N`) got no answer about one time in ten to three in five.
 */
import { connect } from 'node:net';
import { startTestApp, type TestApp } from '../support/test-app.js';

const TRIALS = 50;

/** The request written and the sending side closed in one call; everything received until the server closed. */
function halfClosedExchange(app: TestApp, request: string): Promise<string> {
  const { hostname, port } = new URL(app.baseUrl);
  return new Promise((resolve) => {
    let text = '';
    const socket = connect(Number(port), hostname, () => socket.end(request));
    socket.on('data', (chunk: Buffer) => (text += chunk.toString()));
    socket.on('close', () => resolve(text));
    socket.on('error', () => undefined);
  });
}

describe('a client that half-closes after its request', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ STORE: 'memory' });
  });
  afterAll(() => app.close());

  it(`is answered every time (${TRIALS} trials), and the connection closed after the answer`, async () => {
    const unanswered: string[] = [];
    for (let i = 0; i < TRIALS; i++) {
      const text = await halfClosedExchange(
        app,
        `GET /health HTTP/1.1\r\nHost: x\r\nX-Request-Id: half-${i}\r\n\r\n`,
      );
      if (!text.startsWith('HTTP/1.1 200') || !text.includes('"status"')) unanswered.push(`half-${i}`);
    }
    expect(unanswered).toEqual([]);
  });

  // Resolved on the server's close: a connection left open would time the test out.
  it('has every pipelined request answered, then the connection closed', async () => {
    const text = await halfClosedExchange(
      app,
      'GET /health HTTP/1.1\r\nHost: x\r\n\r\nGET /api/login/timestamp HTTP/1.1\r\nHost: x\r\n\r\n',
    );
    // The second status line follows the first body directly.
    expect(text.match(/HTTP\/1\.1 200 OK\r\n/g)).toHaveLength(2);
    expect(text).toContain('"timestamp_iso"');
  });
});
