/**
 * Keeps each connection's peer address known after the connection closes. Node reads a socket's
 * `remoteAddress` from its handle on first use and keeps it; first asked once the handle has closed, it
 * is undefined. A client that sent a request and reset the connection at once (an RST right after the
 * body) had its request reach the hooks with `request.ip` undefined: the public rate limit failed open,
 * so such requests were served and charged nothing (a probe: 20 of them, then 3 answered requests within
 * a capacity of 3), and /mcp threw a TypeError, logged at error level with its stack, per request. Read
 * at accept, the address is the client's for the connection's whole life. Costs one getpeername per
 * connection, which the first request's `request.ip` made anyway.
 */
import { type Server } from 'node:http';
import { type Socket } from 'node:net';

export function rememberPeerAddresses(server: Server): void {
  server.on('connection', (socket: Socket) => {
    // The getter keeps what it read on the socket (net.Socket#_getpeername).
    // A peer gone before the accept (an RST behind its request) has no address: nothing can answer it.
    if (socket.remoteAddress === undefined) socket.destroy();
  });
}
