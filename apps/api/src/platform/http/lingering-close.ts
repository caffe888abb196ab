/**
 * An answer that closes its connection before the request's body has all arrived (a body beyond the
 * limit, a 429 from the rate-limit hook) must not close the socket outright: the kernel answers the
 * bytes the client is still sending with a reset, and a client or proxy still writing (nginx sending a
 * buffered body upstream) reports the broken pipe instead of the answer, the edge a 502 for the API's
 * 400. As nginx does for its own answers (`lingering_close`), the socket's sending side closes after
 * the answer, and its receiving side reads and drops what still comes until the client closes or
 * `LINGER_MS` has passed.
 */
import { type IncomingMessage } from 'node:http';
import { type Socket } from 'node:net';

/** How long a socket keeps reading after its answer, at most: a client that neither stops nor closes is cut off then. */
export const LINGER_MS = 2_000;

const lingering = new WeakSet<Socket>();

/**
 * Makes the close that follows the answer to `request` linger while the request's body is still
 * arriving. Call it before the answer is sent, when the answer says `Connection: close`.
 */
export function lingerAfterAnswer(request: IncomingMessage): void {
  const socket = request.socket as Socket | null;
  if (request.complete || !socket || socket.destroyed) return;
  // What the body parser stopped reading (it gives up at the limit) nobody reads now: let it flow away,
  // or the socket stops reading and the client's writes stall until the linger ends.
  request.resume();
  lingerOnClose(socket);
}

/**
 * Makes `socket.destroySoon()` (which Node's HTTP server calls once a `Connection: close` answer is
 * written, and the answers written straight to a socket call) linger. For an answer that no request
 * object owns, such as headers over the limit, whose rest and body may still be arriving.
 */
export function lingerOnClose(socket: Socket): void {
  socket.destroySoon = endThenLinger;
}

/** Whether `socket` has answered and now only drops what still comes. */
export function isLingering(socket: Socket): boolean {
  return lingering.has(socket);
}

function endThenLinger(this: Socket): void {
  if (this.writable) this.end();
  // Called again when the client's close cuts the body short (Node's parser reports that as a client error).
  if (this.destroyed || lingering.has(this)) return;
  lingering.add(this);
  const timer = setTimeout(() => this.destroy(), LINGER_MS);
  timer.unref();
  this.once('close', () => clearTimeout(timer));
  // The client's own close (it read the answer) ends the linger sooner.
  this.once('end', () => this.destroy());
}
