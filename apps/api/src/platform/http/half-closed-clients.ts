/**
 * A client that sends its request and then closes its sending side (a TCP FIN: `nc -N`, a health checker,
 * `shutdown(SHUT_WR)`) is answered. Node's HTTP server (`httpAllowHalfOpen` false, its default) aborts
 * the requests in flight when the client's FIN arrives and closes at once, so such a client got no
 * answer whenever the FIN came before the app had answered (an operators' probe: 3 of 5 health checks
 * after an idle period). Allowed, Node answers what is in flight, marks the last answer as the last, and
 * closes after it (RFC 9112 §9.6: a half-closed connection may still carry the response).
 */
import { type Server } from 'node:http';

export function answerHalfClosedClients(server: Server): void {
  // Read by Node's HTTP server on each client FIN (lib/_http_server.js socketOnEnd); not in the typings.
  (server as Server & { httpAllowHalfOpen: boolean }).httpAllowHalfOpen = true;
}
