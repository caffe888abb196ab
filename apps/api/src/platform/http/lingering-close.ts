/**
 * An answer that closes its connection before the request has all arrived (a body beyond the limit, a
 * 429 from the rate-limit hook, headers beyond theirs, a 415 to a client that asked to close) must not
 * close the socket outright: the kernel answers the bytes the client is still sending with a reset, and
 * a client or proxy still writing (nginx sending a buffered body upstream) reports the broken pipe
 * instead of the answer, the edge a 502 for the API's 400. As nginx does (`lingering_close`), the
 * socket's sending side closes after the answer, and its receiving side reads and drops what still
 * comes until the client closes or `LINGER_MS` has passed. A request that arrives after an answer that
 * closes the connection is not processed (RFC 9112 §9.6): `isClosing` tells the request hook to drop it.
 */
import { type IncomingMessage, type Server } from 'node:http';
import { Socket } from 'node:net';

/** How long a socket keeps reading after its answer, at most: a client that neither stops nor closes is cut off then. */
export const LINGER_MS = 2_000;

/**
 * A body declared longer than this is not waited for (1 MiB, the edge's own body limit): its client
 * means to send that much, and reading it all to drop it costs more than the client is owed.
 */
export const LINGER_MAX_DECLARED_BYTES = 1024 * 1024;

/**
 * Requests dropped on a connection before its closing answer is written (pipelined behind it) at
 * most: Node keeps each until the socket closes, so a client pipelining thousands is cut off.
 */
export const MAX_DROPPED_REQUESTS = 64;

const CLOSING = Symbol('passport.closing');
const LINGERING = Symbol('passport.lingering');
const DROPPED = Symbol('passport.droppedRequests');

interface LingeringSocket extends Socket {
  /** An answer that closes the connection was given (or decided): later requests are dropped. */
  [CLOSING]?: true;
  /**
   * 'request': the answer's request may not have arrived whole (a parser error mid-headers); 'never':
   * the client is cut off at once (too slow to send its request in time); 'deciding': the answer is
   * out, the linger decided after the parser's current read; 'lingering': reading to drop.
   */
  [LINGERING]?: 'request' | 'never' | 'deciding' | 'lingering';
  /** Requests dropped on this connection (`dropRequest`). */
  [DROPPED]?: number;
  /** Node's HTTP parser, whose `incoming` is the message it is reading (undocumented, stable since Node 0.x). */
  parser?: { incoming?: IncomingMessage | null } | null;
}

const destroySoon = Socket.prototype.destroySoon;

/**
 * Makes every connection of `server` linger when it is closed after an answer while its request is
 * still arriving. Node's HTTP server closes a connection with `destroySoon` once an answer that says
 * `Connection: close` is written (whoever decided it: the app, the client, HTTP/1.0).
 */
export function lingerBeforeClosing(server: Server): void {
  server.on('connection', (socket: Socket) => {
    socket.destroySoon = destroySoonLingering;
  });
}

/** Marks the connection of `request` as closing with its answer: requests after it on it are dropped. */
export function closeAfterAnswer(request: IncomingMessage): void {
  const socket = request.socket as LingeringSocket | null;
  if (socket) socket[CLOSING] = true;
}

/**
 * For an answer written straight to the socket (a client error: headers beyond the limit; a CONNECT),
 * whose request never became a message: the rest of it may still be arriving.
 */
export function lingerAfterClientError(socket: Socket): void {
  const lingering = socket as LingeringSocket;
  lingering[CLOSING] = true;
  lingering[LINGERING] ??= 'request';
  socket.destroySoon = destroySoonLingering;
}

/** The answer on `socket` closes it at once, whatever is still arriving (a client too slow to send its request). */
export function closeWithoutLinger(socket: Socket): void {
  (socket as LingeringSocket)[LINGERING] = 'never';
}

/**
 * Whether `request` declares a body that has not all been read. An answer given then (an error before
 * the body was parsed, a route that reads none) closes the connection: otherwise Node reads the rest to
 * drop it for as long as it comes (a chunked body has no end: a probe held a connection busy 30 s, to the
 * request timeout), where the linger reads it at most `LINGER_MS`.
 */
export function hasUnreadBody(request: IncomingMessage): boolean {
  if (request.complete) return false;
  const { 'transfer-encoding': transferEncoding, 'content-length': contentLength } = request.headers;
  return transferEncoding !== undefined || (contentLength !== undefined && contentLength !== '0');
}

/**
 * Calls `decide` with whether `request`'s body is still unread once Node's parser has taken what has
 * arrived: at once when no body is declared or it is all read, else after this turn's reads. Node's
 * parser hands a request over from its headers' callback, and the answers given before routing or body
 * parsing (a bad URL, a 415) ran before it had read the body bytes that came in the same packet: a
 * review found such a body taken for unread, the connection closed and the request pipelined behind it
 * dropped unanswered.
 */
export function onceArrivedBodyIsRead(request: IncomingMessage, decide: (unread: boolean) => void): void {
  if (!hasUnreadBody(request)) decide(false);
  else setImmediate(() => decide(hasUnreadBody(request)));
}

/** Whether the connection has answered with a close: a request arriving on it is not to be processed. */
export function isClosing(socket: Socket | null | undefined): boolean {
  return (socket as LingeringSocket | null | undefined)?.[CLOSING] === true;
}

/** Whether `socket` has answered and now only drops what still comes. */
export function isLingering(socket: Socket): boolean {
  return (socket as LingeringSocket)[LINGERING] === 'lingering';
}

/**
 * A request on a closing connection (`isClosing`) is neither processed nor answered (RFC 9112 §9.6).
 * Node keeps such a request until its socket closes, so the socket closes soon: at once when its answer
 * is out already (the client sent a request after its body: nothing is left to wait for), else right
 * after that answer (no linger), or at once past `MAX_DROPPED_REQUESTS`.
 */
export function dropRequest(request: IncomingMessage): void {
  const socket = request.socket as LingeringSocket | null;
  request.resume();
  if (!socket) return;
  const dropped = (socket[DROPPED] ?? 0) + 1;
  socket[DROPPED] = dropped;
  const answered = socket[LINGERING] === 'lingering' || socket[LINGERING] === 'deciding';
  if (answered || dropped > MAX_DROPPED_REQUESTS) socket.destroy();
}

function destroySoonLingering(this: LingeringSocket): void {
  const state = this[LINGERING];
  if (state === 'lingering' || state === 'deciding') return;
  if (state === 'request' && !this.destroyed) {
    if (this.writable) this.end();
    linger(this);
    return;
  }
  if (!mayStillArrive(this)) {
    destroySoon.call(this);
    return;
  }
  // Node runs this between the parser's callbacks: the rest of a body that came in the same read as
  // its headers is not yet counted. Decided once the parser is through the read.
  this[LINGERING] = 'deciding';
  if (this.writable) this.end();
  setImmediate(() => {
    if (this.destroyed) return;
    if (mayStillArrive(this)) linger(this);
    else destroySoon.call(this);
  });
}

/** Whether the request the answer closes on may still be arriving (and is worth waiting for). */
function mayStillArrive(socket: LingeringSocket): boolean {
  if (socket[LINGERING] === 'never' || socket.destroyed || (socket[DROPPED] ?? 0) > 0) return false;
  const incoming = socket.parser?.incoming;
  if (!incoming || incoming.complete) return false;
  const declared = Number(incoming.headers['content-length']);
  return !(declared > LINGER_MAX_DECLARED_BYTES);
}

function linger(socket: LingeringSocket): void {
  socket[CLOSING] = true;
  socket[LINGERING] = 'lingering';
  // What the body parser stopped reading (it gives up at the limit) nobody reads: let it flow away, or
  // the socket stops reading and the client's writes stall until the linger ends.
  socket.parser?.incoming?.resume();
  const timer = setTimeout(() => socket.destroy(), LINGER_MS);
  timer.unref();
  socket.once('close', () => clearTimeout(timer));
  // The client's own close (it read the answer) ends the linger sooner.
  socket.once('end', () => socket.destroy());
}
