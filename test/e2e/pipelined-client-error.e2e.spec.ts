/**
 * A client error (a malformed request, a body cut short by a FIN, broken chunked framing) on a connection
 * with several answers still pending must not cost those answers. Found by a probe of 718c5af:
 * - the client-error handler waits for the first pending answer, then runs again and finds the next
 *   pipelined answer already written (`headersSent`): it takes it for an early answer to the broken
 *   request and destroys the socket. Every answer after the second, and the 400, are lost (3 GETs and a
 *   malformed request: 2 answers);
 * - the first run does the same while an earlier, complete request's answer is still being written (a
 *   client slow to read): that answer is cut midway.
 * - a client that sends a request and resets the connection before the server accepts it: the socket
 *   has no peer address (getpeername fails), the rate limit throws and fails open (warned as "rate limit
 *   store unavailable"), and /mcp answers 500 with an error logged.
 * - a malformed request behind one slower than HTTP_HEADERS_TIMEOUT_MS: a 408 in place of the slow answer.
 */
import { spawn } from 'node:child_process';
import { connect } from 'node:net';
import { randomFaceTokenId } from '@passport/core';
import { cryptoRandomInt } from '@passport/core/token-id';
import { startFakeNearRpc, type FakeNearRpc } from '../fake-near-rpc/fake-near-rpc.server.js';
import { seedNearFamily } from '../chain/support/near-family.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

interface Exchange {
  readonly data: Buffer;
}

/** Writes `request` and reads until the server closes (the client pauses reading `pauseMs` first). */
function exchange(app: TestApp, request: string, opts: { pauseMs?: number; finAfterMs?: number } = {}) {
  const { hostname, port } = new URL(app.baseUrl);
  return new Promise<Exchange>((resolve) => {
    const chunks: Buffer[] = [];
    const socket = connect(Number(port), hostname, () => {
      socket.write(request);
      if (opts.finAfterMs !== undefined) setTimeout(() => socket.end(), opts.finAfterMs);
      setTimeout(() => socket.resume(), opts.pauseMs ?? 0);
    });
    socket.pause();
    const timer = setTimeout(() => socket.destroy(), 10_000);
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({ data: Buffer.concat(chunks) });
    });
  });
}

/** Splits a byte stream of HTTP/1.1 answers (each with Content-Length) into status and whether whole. */
function answers(data: Buffer): { status: number; whole: boolean }[] {
  const text = data.toString('latin1');
  const out: { status: number; whole: boolean }[] = [];
  let pos = 0;
  while (pos < text.length) {
    const end = text.indexOf('\r\n\r\n', pos);
    if (end < 0) break;
    const head = text.slice(pos, end);
    const length = Number(/content-length: (\d+)/i.exec(head)?.[1] ?? 0);
    const whole = text.length - (end + 4) >= length;
    out.push({ status: Number(head.slice(9, 12)), whole });
    if (!whole) break;
    pos = end + 4 + length;
  }
  return out;
}

const get = (path: string) => `GET ${path} HTTP/1.1\r\nHost: x\r\n\r\n`;
const MALFORMED = 'GET / HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n';
const UNFINISHED =
  'POST /api/identity/verify HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 50\r\n\r\n{"ho';

describe('a client error behind several pipelined requests', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ STORE: 'memory' });
  });
  afterAll(() => app.close());

  it('three GETs then a malformed request: three answers, then the 400', async () => {
    const { data } = await exchange(app, get('/api/login/timestamp').repeat(3) + MALFORMED);
    expect(answers(data).map((a) => a.status)).toEqual([200, 200, 200, 400]);
  });

  it('answers being written to a slow reader are not cut when the next request breaks (FIN mid-body)', async () => {
    const { data } = await exchange(app, get('/openapi.json').repeat(20) + UNFINISHED, {
      pauseMs: 3000,
      finAfterMs: 300,
    });
    const got = answers(data);
    expect(got.filter((a) => a.status === 200 && a.whole)).toHaveLength(20);
    expect(got.at(-1)).toEqual({ status: 400, whole: true });
  }, 15_000);
});

describe('a request whose client reset the connection before the server accepted it', () => {
  let app: TestApp;
  const warnings: string[] = [];
  beforeAll(async () => {
    app = await startTestApp(
      { STORE: 'memory', RATE_LIMIT_CAPACITY: '3', RATE_LIMIT_REFILL_PER_MINUTE: '1', LOG_LEVEL: 'debug' },
      {
        logDestination: {
          write: (line: string) => void warnings.push(line),
        },
      },
    );
  });
  afterAll(() => app.close());

  it('is not served beyond the rate limit, and logs no TypeError', async () => {
    const { port } = new URL(app.baseUrl);
    // A child sends 20 requests, each followed by an RST, while this process (the server) is busy:
    // the kernel completes the handshakes, the server accepts them after the resets.
    const child = spawn(process.execPath, [
      '-e',
      `const net=require('node:net');let n=0;for(let i=0;i<20;i++){const s=net.connect(${port},'127.0.0.1',()=>{s.write('GET /api/login/timestamp HTTP/1.1\\r\\nHost: x\\r\\n\\r\\n');s.resetAndDestroy();});s.on('error',()=>{});s.on('close',()=>{if(++n===20)process.exit(0)});}`,
    ]);
    const busyUntil = Date.now() + 1500;
    while (Date.now() < busyUntil) {
      /* the event loop is blocked: no accept */
    }
    await new Promise((resolve) => child.on('exit', resolve));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(warnings.filter((l) => l.includes("reading 'includes'")).length).toBe(0);
    // A bucket of 3: at most 3 of them are served (dropped unserved, or metered and refused).
    const served = warnings.filter(
      (l) => l.includes('"route":"/api/login/timestamp"') && l.includes('"status":200'),
    );
    expect(served.length).toBeLessThanOrEqual(3);
  }, 15_000);
});

describe('a malformed request behind one slower than the header timeout (CHAIN=near, a slow node)', () => {
  // Found by a probe of 718c5af: the parser's error leaves the malformed request's headers unfinished,
  // so Node reports a request timeout for it at HTTP_HEADERS_TIMEOUT_MS; the handler now answers a
  // timeout at once even while the earlier answer is awaited: the 408 is written in the place of the
  // slow request's answer (which the client takes for it) and the 400 is never sent.
  let rpc: FakeNearRpc;
  let app: TestApp;
  const CONTRACT = 'passport.test.near';
  beforeAll(async () => {
    rpc = await startFakeNearRpc(CONTRACT);
    rpc.blockTimeMs = Date.now();
    const { dataDir } = await seedNearFamily(rpc, CONTRACT);
    app = await startTestApp({
      DATA_DIR: dataDir,
      CHAIN: 'near',
      NEAR_RPC_URL: rpc.url,
      NEAR_CONTRACT_ID: CONTRACT,
      STORE: 'memory',
      HTTP_REQUEST_TIMEOUT_MS: '1000',
      HTTP_HEADERS_TIMEOUT_MS: '1000',
    });
  });
  afterAll(async () => {
    await app?.close();
    await rpc?.close();
  });

  it('the slow request is answered first, then the 400', async () => {
    rpc.enqueue(...Array.from({ length: 4 }, () => ({ kind: 'slow' as const, delayMs: 2500 })));
    const tokenId = randomFaceTokenId(cryptoRandomInt);
    const { data } = await exchange(
      app,
      `GET /api/identity/token/${tokenId}/public HTTP/1.1\r\nHost: x\r\n\r\n` + MALFORMED,
    );
    const got = answers(data).map((a) => a.status);
    expect(got).toHaveLength(2);
    expect(got[0]).not.toBe(408);
    expect(got[1]).toBe(400);
  }, 15_000);
});
