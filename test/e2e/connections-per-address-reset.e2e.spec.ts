/**
 * A connection refused by HTTP_MAX_CONNECTIONS_PER_ADDRESS while its client is still sending its request
 * (a POST body) reads the 429. A probe: the refusal closed the socket outright, so the client's bytes drew
 * a reset and it reported a broken pipe instead (lingering-close.ts: "the kernel answers the bytes the
 * client is still sending with a reset"); the bound's listener runs before lingerBeforeClosing's, so the
 * refusal lingers by itself now.
 */
import { execFile } from 'node:child_process';
import { connect, type Socket } from 'node:net';
import { startTestApp, type TestApp } from '../support/test-app.js';

const MAX = 2;

function openIdle(app: TestApp, localAddress: string): Promise<Socket> {
  const { hostname, port } = new URL(app.baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port), localAddress }, () => resolve(socket));
    socket.on('error', reject);
  });
}

/**
 * `trials` POSTs from `localAddress`, each with a 60 000-byte body sent in 2 000-byte pieces every 20 ms,
 * run in a child process (as a separate client is: in this process the app reads each piece before the
 * client sends the next, and the race never shows): per trial '429' or the socket error.
 */
const CLIENT = `
const { connect } = require('node:net');
const [port, localAddress, trials] = process.argv.slice(1);
(async () => {
  const outcomes = [];
  for (let t = 0; t < Number(trials); t++) {
    outcomes.push(await new Promise((resolve) => {
      let text = '';
      let error = null;
      const s = connect({ host: '127.0.0.1', port: Number(port), localAddress });
      s.on('data', (d) => (text += d));
      s.on('error', (e) => (error = e.code));
      s.on('close', () => resolve(text.startsWith('HTTP/1.1 429') ? '429' : 'no answer (' + error + ')'));
      s.on('connect', async () => {
        s.write('POST /api/identity/verify HTTP/1.1\\r\\nHost: x\\r\\nContent-Type: application/json\\r\\nContent-Length: 60000\\r\\n\\r\\n');
        for (let i = 0; i < 30 && !s.destroyed; i++) {
          s.write('x'.repeat(2000));
          await new Promise((r) => setTimeout(r, 20));
        }
      });
    }));
  }
  process.stdout.write(JSON.stringify(outcomes));
})();
`;

function posts(app: TestApp, localAddress: string, trials: number): Promise<string[]> {
  const { port } = new URL(app.baseUrl);
  return new Promise((resolve, reject) =>
    execFile(process.execPath, ['-e', CLIENT, port, localAddress, String(trials)], (error, stdout) =>
      error ? reject(error) : resolve(JSON.parse(stdout) as string[]),
    ),
  );
}

describe('a connection refused by the per-address bound while its request is arriving', () => {
  let app: TestApp;
  const held: Socket[] = [];
  beforeAll(async () => {
    app = await startTestApp({ STORE: 'memory', HTTP_MAX_CONNECTIONS_PER_ADDRESS: String(MAX) });
    for (let i = 0; i < MAX; i++) held.push(await openIdle(app, '127.0.0.7'));
  });
  afterAll(async () => {
    for (const socket of held) socket.destroy();
    await app.close();
  });

  it('receives the 429, not a reset', async () => {
    const outcomes = await posts(app, '127.0.0.7', 20);
    expect(outcomes.filter((o) => o !== '429')).toEqual([]);
  }, 30_000);
});
