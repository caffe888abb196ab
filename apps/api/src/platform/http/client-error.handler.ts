/**
 * Answers, in the ErrorResponse envelope, the client errors Node's HTTP server would otherwise answer
 * itself with a bare body (Fastify `clientErrorHandler` and the server's `checkExpectation` event):
 * - headers over the limit: 400 `REQUEST_HEADER_TOO_LARGE` instead of Node's bare 431;
 * - a request (headers and body) not arrived whole within the request or header timeout: 408
 *   `REQUEST_TIMEOUT`, then the socket is closed (a slow-body client cannot hold it open);
 * - an `Expect` other than `100-continue`: 417 `EXPECTATION_FAILED`;
 * - a `CONNECT` (a proxy tunnel, which Node hands to a `connect` listener or else drops without a
 *   word): 405 `METHOD_NOT_ALLOWED`, then the socket is closed;
 * - any other malformed request: 400 `VALIDATION_FAILED`.
 * (A missing Host header is answered by `checkHostHeader`.) Before a request exists there are no
 * parsed headers, so the request id of a client error is always a new ULID; the other two answers have
 * headers and resolve it as every request does.
 *
 * These answers are written outside Fastify, so its `onResponse` hook never sees them: each is told to
 * the server's observer (`observeAnswersBeforeRouting`), which counts it in the metrics as an unmatched
 * route (an admin probe: a flood of malformed or slow requests was invisible in `/metrics`).
 */
import { type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { type Socket } from 'node:net';
import { type FastifyRequest } from 'fastify';
import { newRequestUlid } from './request-ulid.js';
import { buildErrorEnvelope } from './error-envelope.js';
import { resolveRequestId } from './request-id.js';
import { AppError } from './app.error.js';
import { httpStatusOfError } from './http-status.table.js';
import { JSON_UTF8 } from './json-content-type.js';
import { closeWithoutLinger, isLingering, lingerAfterClientError } from './lingering-close.js';

const REASON: Record<number, string> = {
  400: 'Bad Request',
  405: 'Method Not Allowed',
  408: 'Request Timeout',
  417: 'Expectation Failed',
  429: 'Too Many Requests',
};

/** Told of each answer written outside Fastify: the request's method (`OTHER` when none was parsed) and status. */
export type AnswerBeforeRoutingObserver = (method: string, status: number) => void;

/** Per HTTP server (an accepted socket's `server`): several apps in one process each count their own. */
const observers = new WeakMap<object, AnswerBeforeRoutingObserver>();

/** Tells `observer` of every answer this module writes for `server`'s connections. */
export function observeAnswersBeforeRouting(server: Server, observer: AnswerBeforeRoutingObserver): void {
  observers.set(server, observer);
}

function noteAnswer(socket: Socket, method: string, status: number): void {
  const server = (socket as Socket & { server?: object | null }).server;
  if (server) observers.get(server)?.(method, status);
}

/** Sockets whose client error is answered once the answer to an earlier request on them is written. */
const waitingForEarlierAnswer = new WeakSet<Socket>();

interface PendingResponse {
  readonly headersSent?: boolean;
  /** The request this response answers (Node ≥ 15.7). */
  readonly req?: { readonly complete?: boolean };
  once(event: 'close', listener: () => void): unknown;
}

export function clientErrorHandler(err: Error & { code?: string }, socket: Socket): void {
  // Node's parser reports the same error again for every chunk that arrives after its first one.
  if (err.code === 'ECONNRESET' || socket.destroyed || isLingering(socket)) return;
  const code = clientErrorCode(err.code);
  // Already answered once the earlier answer is out (a timeout reported after a parse error is the same
  // request's: Node sees the malformed request's headers unfinished and reports them at the header timeout).
  if (waitingForEarlierAnswer.has(socket)) return;
  // A response already under way to the request that failed (e.g. an early 413 or 429 while the body
  // still trickles in) cannot be followed by another one on this socket: closing it is all that is left.
  // A response under way to a complete request is an earlier answer (pipelined, being written to a slow
  // reader, or written at once when the answer before it finished): it is waited for below, not cut.
  const inFlight = (socket as Socket & { _httpMessage?: PendingResponse | null })._httpMessage;
  if (inFlight?.headersSent && inFlight.req?.complete === false) {
    socket.destroy();
    return;
  }
  // The answer to an earlier request on this connection (pipelined before the malformed one) is not
  // written yet: it goes first. Written now, this answer would take its place (Node's own handler does
  // so) and that request, processed, would go unanswered. After an answer that closes the connection,
  // what follows is not answered at all (RFC 9112 §9.6: `HPE_CLOSED_CONNECTION`, the socket closed by then).
  // A response whose own request has not arrived whole is no earlier answer: the error is that request's
  // (its body cut short by a FIN, its chunked framing broken), and that answer would never come (a probe:
  // such sockets were held in CLOSE-WAIT until the 300 s connection timeout, and 2,100 of them used up
  // the process's descriptors). A request timeout waits for an earlier answer too: written now, the 408
  // would take that answer's place.
  if (inFlight && inFlight.req?.complete !== false) {
    waitingForEarlierAnswer.add(socket);
    inFlight.once('close', () => {
      waitingForEarlierAnswer.delete(socket);
      // Closed, or closing after that answer: nothing more is answered on it.
      if (socket.writable) clientErrorHandler(err, socket);
    });
    return;
  }
  // What Node's parser refused (an obs-fold, a bad header character, …), by its stable code.
  const details =
    code === 'VALIDATION_FAILED'
      ? { reason: 'malformed_request', parserError: parserErrorOf(err.code) }
      : null;
  // A client still sending the rest of its headers and a body must read the answer, not a reset; a
  // client too slow to send its request in time is cut off at once.
  if (code === 'REQUEST_TIMEOUT') closeWithoutLinger(socket);
  else lingerAfterClientError(socket);
  answerOnSocket(socket, new AppError(code, details), newRequestUlid());
}

/**
 * Writes `error` in the envelope straight to a socket no response object owns, then closes it.
 * `extraHeaders`: lines such as `Retry-After: 1`, each without its line end.
 */
export function answerOnSocket(
  socket: Socket,
  error: AppError,
  requestId: string,
  extraHeaders: readonly string[] = [],
  method = 'OTHER',
): void {
  const body = JSON.stringify(buildErrorEnvelope(error, requestId));
  if (socket.writable) {
    noteAnswer(socket, method, httpStatusOfError(error));
    socket.end(
      `HTTP/1.1 ${httpStatusOfError(error)} ${REASON[httpStatusOfError(error)] ?? 'Bad Request'}\r\n` +
        `Content-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
        extraHeaders.map((line) => `${line}\r\n`).join('') +
        `X-Request-Id: ${requestId}\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroySoon();
}

/**
 * Node drops a `CONNECT` without an answer unless the server has a `connect` listener. `allowedMethods`
 * gives the target's methods for `Allow`, which every 405 carries (RFC 9110 §15.5.6): empty for an
 * authority-form target (`host:443`) or an unknown path, which the RFC reads as "no method allowed".
 */
export function answerConnectInEnvelope(
  server: Server,
  allowedMethods: (target: string) => readonly string[],
): void {
  server.on('connect', (request: IncomingMessage, socket: Socket) => {
    // Node has handed the socket over, its parser detached: what the client still sends is read and
    // dropped here, for the linger (else the client's next bytes draw a reset instead of the answer).
    lingerAfterClientError(socket);
    socket.resume();
    const allowed = allowedMethods(request.url ?? '');
    answerOnSocket(
      socket,
      new AppError('METHOD_NOT_ALLOWED', { allowed: [...allowed] }),
      resolveRequestId(request.headers),
      [`Allow: ${allowed.join(', ')}`],
      'CONNECT',
    );
  });
}

function clientErrorCode(
  code: string | undefined,
): 'REQUEST_HEADER_TOO_LARGE' | 'REQUEST_TIMEOUT' | 'VALIDATION_FAILED' {
  if (code === 'HPE_HEADER_OVERFLOW') return 'REQUEST_HEADER_TOO_LARGE';
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return 'REQUEST_TIMEOUT';
  return 'VALIDATION_FAILED';
}

/** Node's parser error code (`HPE_INVALID_HEADER_TOKEN`, …) when it is one, else null. */
function parserErrorOf(code: string | undefined): string | null {
  return code !== undefined && /^HPE_[A-Z_]{1,40}$/.test(code) ? code : null;
}

/** Node answers a bare 417 for an `Expect` it does not know unless the server handles `checkExpectation`. */
export function answerExpectationsInEnvelope(server: Server): void {
  server.on('checkExpectation', (request: IncomingMessage, response: ServerResponse) => {
    const error = new AppError('EXPECTATION_FAILED');
    const requestId = resolveRequestId(request.headers);
    const body = JSON.stringify(buildErrorEnvelope(error, requestId));
    // Counted once written: pipelined requests behind this one (it closes the connection) get none (a
    // review: 50 pipelined were counted 50 times for the one 417 sent).
    response.once('finish', () =>
      noteAnswer(request.socket, request.method ?? 'OTHER', httpStatusOfError(error)),
    );
    response.writeHead(httpStatusOfError(error), {
      'Content-Type': JSON_UTF8,
      'Content-Length': Buffer.byteLength(body),
      'X-Request-Id': requestId,
      'Cache-Control': 'no-store',
      Connection: 'close',
    });
    response.end(body);
  });
}

/**
 * Node itself answers an HTTP/1.1 request without Host with a bare 400; the server is created with
 * `requireHostHeader: false` and the app's `onRequest` hook calls this to refuse such requests in the
 * envelope instead (after the rate limit, so they are metered). HTTP/1.0 needs no Host. More than one
 * Host is refused too (RFC 9112 §3.2): the server joins duplicate headers with ", ", which no host
 * contains.
 */
export function checkHostHeader(request: FastifyRequest): void {
  if (request.raw.httpVersion === '1.0') return;
  const host = request.headers.host;
  if (host === undefined || host === '' || host.includes(',')) throw new AppError('HOST_HEADER_REQUIRED');
}
