/**
 * Raw HTTP over a TCP socket, for requests fetch will not send (no Host, a body trickled byte by byte,
 * an odd Expect) and for watching whether the server closes the socket.
 */
import { connect, type Socket } from 'node:net';

export interface RawResponse {
  status: number;
  headers: Headers;
  body: unknown;
  /** The whole response text. */
  text: string;
}

/** Parses the first HTTP response in `text` (Content-Length bodies only). */
export function parseRawResponse(text: string): RawResponse {
  const split = text.indexOf('\r\n\r\n');
  const head = text.slice(0, split).split('\r\n');
  const status = Number(head[0]?.split(' ')[1]);
  const headers = new Headers();
  for (const line of head.slice(1)) {
    const colon = line.indexOf(':');
    headers.append(line.slice(0, colon).trim(), line.slice(colon + 1).trim());
  }
  const rest = text.slice(split + 4);
  const length = Number(headers.get('content-length') ?? rest.length);
  const bodyText = rest.slice(0, length);
  let body: unknown = bodyText;
  try {
    body = JSON.parse(bodyText);
  } catch {
    // not JSON: the raw text
  }
  return { status, headers, body, text };
}

/** Every whole response in `text`, in order (Content-Length bodies only; a trailing partial one is left out). */
export function parseRawResponses(text: string): RawResponse[] {
  const responses: RawResponse[] = [];
  let rest = Buffer.from(text); // Content-Length counts bytes
  for (;;) {
    const split = rest.indexOf('\r\n\r\n');
    if (split < 0) break;
    const length = Number(/\r\ncontent-length:\s*(\d+)/i.exec(rest.subarray(0, split).toString())?.[1] ?? 0);
    const end = split + 4 + length;
    if (end > rest.length) break;
    const head = rest.subarray(0, split + 4).toString();
    const body = rest.subarray(split + 4, end).toString();
    responses.push(parseRawResponse(head + body));
    rest = rest.subarray(end);
  }
  return responses;
}

export interface RawConnection {
  readonly socket: Socket;
  /** Everything received so far. */
  received(): string;
  /** Resolves when the server has closed the socket (with what it received and when). */
  readonly closed: Promise<{ text: string; atMs: number }>;
}

/**
 * `allowHalfOpen`: the socket stays open for writing after the server's FIN (as a client still sending
 * a body does), where Node's default closes it at once.
 */
export function openRaw(baseUrl: string, options: { allowHalfOpen?: boolean } = {}): Promise<RawConnection> {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect({
      port: Number(url.port),
      host: url.hostname,
      allowHalfOpen: options.allowHalfOpen,
    });
    let data = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (data += chunk));
    const closed = new Promise<{ text: string; atMs: number }>((done) => {
      socket.on('close', () => done({ text: data, atMs: Date.now() }));
    });
    socket.once('error', () => undefined);
    socket.once('connect', () => resolve({ socket, received: () => data, closed }));
    socket.once('error', reject);
  });
}

/** Sends `payload`, half-closes, and returns the response the server gave before closing. */
export async function rawRequest(baseUrl: string, payload: string): Promise<RawResponse> {
  const connection = await openRaw(baseUrl);
  connection.socket.end(payload);
  return parseRawResponse((await connection.closed).text);
}

/** Resolves once `predicate(received)` holds, polling every 10 ms, or rejects after `timeoutMs`. */
export async function waitFor(
  connection: RawConnection,
  predicate: (text: string) => boolean,
  timeoutMs: number,
): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate(connection.received())) {
    if (Date.now() > deadline) throw new Error(`timed out; received: ${connection.received().slice(0, 200)}`);
    await new Promise((r) => setTimeout(r, 10));
  }
  return connection.received();
}
