/**
 * A bound on the connections one client address holds open at once (HTTP_MAX_CONNECTIONS_PER_ADDRESS),
 * keyed as the other per-address limits are (an IPv6 client by its /64). A connection that sends
 * nothing meets no request limit, so without it one address could hold every descriptor of the
 * process: a probe held 1,100 idle sockets under a limit of 1,024, every other client's connection was
 * reset, and a ledger read failed with EMFILE. Peers in TRUSTED_PROXIES are not bounded: a proxy carries
 * many clients (the edge in docker/nginx bounds none per client: its idle ones end at its header and
 * keep-alive timeouts).
 *
 * A connection over the bound is answered at once, before its request is read, with 429
 * `RATE_LIMIT_EXCEEDED` (`details.reason: 'connections_per_address'`) and closed after the linger
 * (what still arrives is read and dropped until the client closes, at most 2 s: closed outright, a
 * client still sending its body got a reset instead of the 429, in a probe 24 of 40). Its request is
 * never handled: the connection is closing, and the request hook drops what arrives on one. A lingering
 * refusal holds a descriptor too, so refusals are counted with the rest: once an address holds the bound
 * and as many again (at most 64 more), a further connection is closed at once, without an answer (a
 * review: uncounted, refusals arriving faster than they lingered held ~1,000 descriptors with a bound of 5).
 */
import { type Server } from 'node:http';
import { type Socket } from 'node:net';
import { AppError } from './app.error.js';
import { clientAddressKey } from './client-address.js';
import { answerOnSocket } from './client-error.handler.js';
import { lingerAfterClientError } from './lingering-close.js';
import { newRequestUlid } from './request-ulid.js';

/** Refused connections of one address that may linger for their 429 at once (at most the bound itself). */
const REFUSED_LINGERING_MAX = 64;

/** At most one warning per this long, with the refusals since the last one. */
const WARN_INTERVAL_MS = 10_000;

export function boundConnectionsPerAddress(
  server: Server,
  maxPerAddress: number,
  isTrustedPeer: (address: string) => boolean,
  warn: (refused: number, lastAddressKey: string) => void = () => undefined,
): void {
  const open = new Map<string, number>();
  let refusedSinceWarning = 0;
  let lastWarningAt = -Infinity;
  const refused = (key: string): void => {
    refusedSinceWarning++;
    const now = performance.now();
    if (now - lastWarningAt < WARN_INTERVAL_MS) return;
    lastWarningAt = now;
    warn(refusedSinceWarning, key);
    refusedSinceWarning = 0;
  };
  const track = (key: string, socket: Socket): void => {
    open.set(key, (open.get(key) ?? 0) + 1);
    socket.once('close', () => {
      const left = (open.get(key) ?? 1) - 1;
      if (left === 0) open.delete(key);
      else open.set(key, left);
    });
  };
  server.prependListener('connection', (socket: Socket) => {
    const address = socket.remoteAddress;
    // A socket whose peer is already gone has no address; Node's server closes it.
    if (address === undefined || isTrustedPeer(address)) return;
    const key = clientAddressKey(address);
    const count = open.get(key) ?? 0;
    if (count >= maxPerAddress) {
      refused(key);
      // A refused connection lingers too (up to LINGER_MS) and holds a descriptor meanwhile: it is
      // counted, and beyond a few of them a connection is closed at once, without the answer.
      if (count >= maxPerAddress + Math.min(maxPerAddress, REFUSED_LINGERING_MAX)) {
        socket.destroy();
        return;
      }
      track(key, socket);
      // The request may still be arriving: close after a linger, or its bytes draw a reset and the
      // client reports a broken pipe instead of the 429 (lingering-close.ts).
      lingerAfterClientError(socket);
      answerOnSocket(
        socket,
        new AppError('RATE_LIMIT_EXCEEDED', {
          reason: 'connections_per_address',
          maxConnectionsPerAddress: maxPerAddress,
          retryAfterSeconds: 1,
        }),
        newRequestUlid(),
        ['Retry-After: 1'],
      );
      return;
    }
    track(key, socket);
  });
}
