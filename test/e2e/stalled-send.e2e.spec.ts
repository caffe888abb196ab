/**
 * A connection whose client reads none of its answers for HTTP_SEND_TIMEOUT_MS is destroyed, freeing the
 * answers held for it; a client that reads, however slowly, is not cut. A probe's non-reading clients made
 * the server hold ~850 MB of answers until the 300 s idle timeout. Over real HTTP against the real app.
 */
import { connect, type Socket } from 'node:net';
import { parseRawResponses } from '../support/raw-http.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

/** Pipelined requests for the ~320 KB OpenAPI document: ~10 MB of answers, more than loopback buffers hold. */
const REQUESTS = 30;
const pipelined = `GET /openapi.json HTTP/1.1\r\nHost: localhost\r\n\r\n`.repeat(REQUESTS);
/** The slow reader's pace: several times what the 3 s send timeout needs, far below what loopback gives. */
const READ_BYTES_PER_SECOND = 2_000_000;

function connectPaused(t: TestApp): Promise<Socket> {
  const url = new URL(t.baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname);
    socket.pause();
    socket.once('error', reject);
    socket.once('connect', () => resolve(socket));
  });
}

/** Everything the socket delivers from now until it ends, and whether the server ended it. */
function readAll(socket: Socket, idleMs: number): Promise<{ text: string; ended: boolean }> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let idle: NodeJS.Timeout;
    const done = (ended: boolean) => {
      clearTimeout(idle);
      socket.removeAllListeners('data');
      resolve({ text: Buffer.concat(chunks).toString('latin1'), ended });
    };
    const rearm = () => {
      clearTimeout(idle);
      idle = setTimeout(() => done(false), idleMs);
    };
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      rearm();
    });
    socket.once('end', () => done(true));
    socket.once('close', () => done(true));
    socket.once('error', () => done(true));
    rearm();
    socket.resume();
  });
}

describe('a client that does not read its answers', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ STORE: 'memory', HTTP_SEND_TIMEOUT_MS: '3000' });
  });
  afterAll(() => t.close());

  it('loses its connection once it has read nothing for the send timeout, with the answers not yet sent', async () => {
    const socket = await connectPaused(t);
    socket.write(pipelined);
    // Nothing read for the timeout and more (the kernel's count is sampled once a second).
    await new Promise((r) => setTimeout(r, 5000));
    const { text, ended } = await readAll(socket, 3000);
    socket.destroy();
    expect(ended).toBe(true);
    const answered = parseRawResponses(text);
    expect(answered.length).toBeLessThan(REQUESTS);
    expect(answered.every((r) => r.status === 200)).toBe(true);
  });

  it('keeps a connection whose client reads slowly, and answers every request on it', async () => {
    const socket = await connectPaused(t);
    socket.write(pipelined);
    const chunks: Buffer[] = [];
    let bytes = 0;
    const started = Date.now();
    // Reads at about READ_BYTES_PER_SECOND, in steps 0.1 s apart, catching up after a step the machine
    // delayed: a reader paced by its steps alone fell below what the kernel's steps need (about a third
    // of its ~4 MB send buffer per timeout) when both cores were busy, and was cut (a CI failure).
    const owed = () => ((Date.now() - started) / 1000) * READ_BYTES_PER_SECOND;
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      bytes += chunk.length;
      if (bytes >= owed()) socket.pause();
    });
    socket.pause();
    const received = () => parseRawResponses(Buffer.concat(chunks).toString('latin1')).length;
    const deadline = Date.now() + 60_000;
    while (received() < REQUESTS && !socket.destroyed && Date.now() < deadline) {
      if (bytes < owed()) socket.resume();
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(socket.destroyed).toBe(false);
    expect(received()).toBe(REQUESTS);
    // Slow indeed: the ~10 MB took seconds, while the server could have sent it in well under one.
    expect(Date.now() - started).toBeGreaterThan(3000);
    socket.destroy();
  });

  it('is not cut while it has nothing to read (an idle keep-alive connection)', async () => {
    const socket = await connectPaused(t);
    socket.write('GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n');
    const first = await readAll(socket, 500);
    expect(parseRawResponses(first.text).map((r) => r.status)).toEqual([200]);
    await new Promise((r) => setTimeout(r, 5000));
    socket.write('GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n');
    const second = await readAll(socket, 500);
    expect(parseRawResponses(second.text).map((r) => r.status)).toEqual([200]);
    socket.destroy();
  });
});
