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

const CLOSING = Symbol('passport.closing');
const LINGERING = Symbol('passport.lingering');

interface LingeringSocket extends Socket {
  /** An answer that closes the connection was given (or decided): later requests are dropped. */
  [CLOSING]?: true;
  /**
   * 'request': the answer's request may not have arrived whole (a parser error mid-headers); 'never':
   * the client is cut off at once (too slow to send its request in time).
   */
  [LINGERING]?: 'request' | 'never' | 'lingering';
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
 * For an answer written straight to the socket (a client error: headers beyond the limit), whose
 * request never became a message: the rest of it may still be arriving.
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

/** Whether the connection has answered with a close: a request arriving on it is not to be processed. */
export function isClosing(socket: Socket | null | undefined): boolean {
  return (socket as LingeringSocket | null | undefined)?.[CLOSING] === true;
}

/** Whether `socket` has answered and now only drops what still comes. */
export function isLingering(socket: Socket): boolean {
  return (socket as LingeringSocket)[LINGERING] === 'lingering';
}

function destroySoonLingering(this: LingeringSocket): void {
  if (this[LINGERING] === 'lingering') return;
  // Decided now, once the answer is written: a request is complete only once the parser has read it all
  // (a GET refused in a synchronous hook is not yet).
  const incoming = this.parser?.incoming;
  const arriving =
    this[LINGERING] === 'request' ||
    (this[LINGERING] !== 'never' && incoming !== null && incoming?.complete === false);
  if (!arriving || this.destroyed) {
    destroySoon.call(this);
    return;
  }
  this[CLOSING] = true;
  this[LINGERING] = 'lingering';
  // What the body parser stopped reading (it gives up at the limit) nobody reads: let it flow away, or
  // the socket stops reading and the client's writes stall until the linger ends.
  incoming?.resume();
  if (this.writable) this.end();
  const timer = setTimeout(() => this.destroy(), LINGER_MS);
  timer.unref();
  this.once('close', () => clearTimeout(timer));
  // The client's own close (it read the answer) ends the linger sooner.
  this.once('end', () => this.destroy());
}
