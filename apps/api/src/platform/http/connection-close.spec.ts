import { createServer, get, type IncomingHttpHeaders } from 'node:http';
import { type AddressInfo } from 'node:net';
import { forceConnectionClose } from './connection-close.js';

/** The headers a client receives from a server whose handler is `handle`. */
async function headersFrom(handle: Parameters<typeof createServer>[1]): Promise<IncomingHttpHeaders> {
  const server = createServer(handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const { port } = server.address() as AddressInfo;
    return await new Promise((resolve, reject) => {
      get({ host: '127.0.0.1', port, agent: false }, (res) => {
        res.resume();
        resolve(res.headers);
      }).on('error', reject);
    });
  } finally {
    server.closeAllConnections();
    server.close();
  }
}

describe('forceConnectionClose', () => {
  it.each([
    [
      'writeHead(status, headers) naming keep-alive',
      (res: any) => res.writeHead(200, { Connection: 'keep-alive', 'X-A': '1' }),
    ],
    [
      'writeHead(status, message, headers)',
      (res: any) => res.writeHead(200, 'OK', { connection: 'keep-alive' }),
    ],
    [
      'setHeader then writeHead(status)',
      (res: any) => (res.setHeader('Connection', 'keep-alive'), res.writeHead(200)),
    ],
    ['no writeHead at all', () => undefined],
  ])('answers Connection: close after %s', async (_name, write) => {
    const headers = await headersFrom((_req, res) => {
      forceConnectionClose(res);
      write(res);
      res.end('x');
    });
    expect(headers.connection).toBe('close');
  });

  it('keeps the other headers the writer gave', async () => {
    const headers = await headersFrom((_req, res) => {
      forceConnectionClose(res);
      res.writeHead(200, { Connection: 'keep-alive', 'Content-Type': 'text/event-stream', 'X-A': '1' });
      res.end();
    });
    expect(headers).toMatchObject({ connection: 'close', 'content-type': 'text/event-stream', 'x-a': '1' });
  });
});
