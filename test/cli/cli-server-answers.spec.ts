/**
 * Answers of an API that the CLI must not take at their word, pinned where a mutation probe of the CLI
 * found a check that no test needed: the real commands, in-process, against a small local HTTP server
 * that answers what a misbehaving or hostile API could (the real app never answers so).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runCliCaptured } from '../support/run-cli.js';

const cli = runCliCaptured;
const JWT = 'eyJhbGciOiJFZERTQSJ9.eyJzdWIiOiJ4In0.c2ln';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

async function fakeApi(handler: Handler): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => handler(req, res));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

async function close(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

function json(res: ServerResponse, body: unknown): void {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

describe('passport and the answers of an API it cannot trust', () => {
  // Fails on mutant: a 200 without `sessionClosed: true` was printed as "logged out: session … closed".
  it.each([
    ['sessionClosed false', { sessionClosed: false, sessionId: 'sess_x_01' }, ' (session sess_x_01)'],
    ['no sessionClosed', { message: 'ok' }, ''],
    [
      'sessionClosed "true" (a string)',
      { sessionClosed: 'true', sessionId: 'sess_x_01' },
      ' (session sess_x_01)',
    ],
  ])('logout answered 200 with %s: exit 2, the session may still be open', async (_label, body, named) => {
    const api = await fakeApi((_req, res) => json(res, body));
    try {
      const run = await cli(['logout', '--api', api.url, '--jwt', JWT]);
      expect([run.code, run.out]).toEqual([2, '']);
      expect(run.err).toBe(
        `passport logout: /api/logout answered without sessionClosed: true${named}; the session may still be open\n`,
      );
    } finally {
      await close(api.server);
    }
  });

  // Fails on mutant: a noncetsHex of hex characters of any length was printed as the nonce.
  it.each([30, 34])('nonce answered a noncetsHex of %i hex characters: exit 2', async (length) => {
    const api = await fakeApi((_req, res) =>
      json(res, { timestamp: new Date().toISOString(), noncetsHex: 'A'.repeat(length) }),
    );
    try {
      const run = await cli(['nonce', '--api', api.url, '--jwt', JWT]);
      expect([run.code, run.out]).toEqual([2, '']);
      expect(run.err).toBe(
        'passport nonce: /api/holanonce16ts answered without a noncetsHex of 32 hex characters\n',
      );
    } finally {
      await close(api.server);
    }
  });

  // Fails on mutant: `verify --api A --host H` went to the API, --host dropped without a word
  // (docs/cli.md: --api and the offline flags, --host among them, are alternatives).
  it('verify --api with --host stops the run (exit 2) before any request', async () => {
    let requests = 0;
    const api = await fakeApi((_req, res) => {
      requests++;
      json(res, { verified: false, failureReasons: ['signature_invalid'], peerTokenId: 'bhahbkbramax' });
    });
    const dir = await mkdtemp(path.join(tmpdir(), 'cli-answers-'));
    try {
      const key = path.join(dir, 'key.json');
      expect((await cli(['keygen', '--out', key])).code).toBe(0);
      const line = (
        await cli(['hola', '--key', key, '--passport', 'bhahbkbramax', '--host', 'a.example'])
      ).out.trim();
      const run = await cli(['verify', '--api', api.url, '--host', 'a.example', '--', line]);
      expect([run.code, run.out, requests]).toEqual([2, '', 0]);
      expect(run.err).toBe(
        'passport verify: --api and --host are alternatives: give one way to reach the chain\n',
      );
    } finally {
      await close(api.server);
      await rm(dir, { recursive: true, force: true });
    }
  });

  // Fails on mutant: an answer nested 65 levels deep (one more than the 64 allowed) was printed.
  it('did --api prints an answer nested 64 levels deep and refuses one of 65', async () => {
    const nested = (levels: number): unknown => (levels === 1 ? { id: 'x' } : { a: nested(levels - 1) });
    const api = await fakeApi((req, res) => json(res, nested(req.url?.startsWith('/deeper/') ? 65 : 64)));
    try {
      const deep = await cli(['did', '--api', api.url, 'bhahbkbramax']);
      expect([deep.code, deep.err]).toEqual([0, '']);
      expect(JSON.parse(deep.out)).toEqual(nested(64));
      const deeper = await cli(['did', '--api', `${api.url}/deeper`, 'bhahbkbramax']);
      expect([deeper.code, deeper.out, deeper.err]).toEqual([
        2,
        '',
        'passport did: /deeper/.well-known/did/resolve answered 200 with JSON nested deeper than 64 levels\n',
      ]);
    } finally {
      await close(api.server);
    }
  });
});
