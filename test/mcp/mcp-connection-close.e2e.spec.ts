/**
 * Found by a probe (algorithmic complexity, c1): a POST /mcp whose request says `Connection: close` was
 * answered `Connection: keep-alive` and its socket left open until the keep-alive timeout (72 s), where
 * every other route closes it after the answer (RFC 9112 §9.6). The SDK's transport sets the header
 * itself, and Node then keeps the connection.
 */
import { connect } from 'node:net';
import { startTestApp, type TestApp } from '../support/test-app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ STORE: 'memory' });
});
afterAll(async () => {
  await t?.close();
});

function closedWithin(
  path: string,
  body: string,
  ms: number,
  extraHeaders = '',
): Promise<{ closed: boolean; head: string }> {
  const url = new URL(t.baseUrl);
  return new Promise((resolve) => {
    let data = '';
    const socket = connect(Number(url.port), url.hostname, () =>
      socket.write(
        `POST ${path} HTTP/1.1\r\nHost: ${url.host}\r\nConnection: close\r\nContent-Type: application/json\r\n` +
          `Accept: application/json, text/event-stream\r\n${extraHeaders}Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
      ),
    );
    socket.setEncoding('utf8');
    socket.on('data', (chunk) => (data += chunk));
    const timer = setTimeout(() => {
      socket.destroy();
      resolve({ closed: false, head: data.split('\r\n\r\n')[0] });
    }, ms);
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({ closed: true, head: data.split('\r\n\r\n')[0] });
    });
  });
}

it('POST /mcp with Connection: close is answered and its connection closed', async () => {
  const initialize = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: {
      protocolVersion: '2025-03-26',
      capabilities: {},
      clientInfo: { name: 'close-probe', version: '0' },
    },
  });
  const answer = await closedWithin('/mcp', initialize, 3000);
  expect(answer.head).toMatch(/^HTTP\/1\.1 200/);
  expect(answer.head).not.toMatch(/\r\nconnection: *keep-alive/i);
  expect(answer.closed).toBe(true);
});

it('the stateless revision too', async () => {
  const list = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/list',
    params: {
      _meta: {
        'io.modelcontextprotocol/protocolVersion': '2026-07-28',
        'io.modelcontextprotocol/clientInfo': { name: 'close-probe', version: '0' },
        'io.modelcontextprotocol/clientCapabilities': {},
      },
    },
  });
  const answer = await closedWithin(
    '/mcp',
    list,
    3000,
    'MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/list\r\n',
  );
  expect(answer.head).toMatch(/^HTTP\/1\.1 200/);
  expect(answer.head).not.toMatch(/\r\nconnection: *keep-alive/i);
  expect(answer.closed).toBe(true);
});
