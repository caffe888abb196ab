/**
 * Media types are case-insensitive (RFC 9110 §8.3.1), but the v1 SDK's transport looks for
 * `application/json` and `text/event-stream` in `Accept` as lowercase text: `Application/JSON` was
 * refused 406 (a fuzz's note). The header is lowercased before the transport or this service's own
 * reading of it (`sessionedTransportRefuses`) sees it. The transport builds its web Request from the raw
 * header list (@hono/node-server reads `rawHeaders`), so both forms are rewritten. Nothing in an Accept
 * header is case-sensitive to either reader (parameters such as `q` are compared as numbers).
 */
import { type IncomingMessage } from 'node:http';

export function lowercaseAcceptHeader(request: IncomingMessage): void {
  const accept = request.headers.accept;
  if (accept === undefined || accept === accept.toLowerCase()) return;
  request.headers.accept = accept.toLowerCase();
  const raw = request.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    if ((raw[i] as string).toLowerCase() === 'accept') raw[i + 1] = (raw[i + 1] as string).toLowerCase();
  }
}
