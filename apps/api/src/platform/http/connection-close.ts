/**
 * `Connection: close` on a response written by code that sets its own headers (the MCP SDK writes
 * `Connection: keep-alive` on its event-stream answers, and headers given to `writeHead` win over those
 * set before). While the instance drains, every answer must close its connection so that a balancer's
 * pool opens the next request on another instance (MCP answers during a drain would say keep-alive).
 */
import { type OutgoingHttpHeaders, type ServerResponse } from 'node:http';

/** Makes `response` answer with `Connection: close`, whatever its writer sets or passes to `writeHead`. */
export function forceConnectionClose(response: ServerResponse): void {
  response.setHeader('connection', 'close');
  const setHeader = response.setHeader;
  response.setHeader = function (
    this: ServerResponse,
    name: string,
    value: number | string | readonly string[],
  ) {
    return name.toLowerCase() === 'connection' ? this : setHeader.call(this, name, value);
  } as ServerResponse['setHeader'];
  const writeHead = response.writeHead;
  response.writeHead = function (this: ServerResponse, ...args: unknown[]) {
    const last = args.length - 1;
    const headers = args[last];
    if (last > 0 && typeof headers === 'object' && headers !== null && !Array.isArray(headers)) {
      const copy: OutgoingHttpHeaders = {};
      for (const [name, value] of Object.entries(headers as OutgoingHttpHeaders))
        if (name.toLowerCase() !== 'connection') copy[name] = value;
      copy.connection = 'close';
      args[last] = copy;
    }
    return (writeHead as (...a: unknown[]) => ServerResponse).apply(this, args);
  } as ServerResponse['writeHead'];
}

/**
 * Whether a response written past Fastify (MCP's transports, which set `Connection: keep-alive`
 * themselves) must end its connection: the drain said so (`replyConnection`, the reply's header), or
 * the client did (`Connection: close`, or HTTP/1.0 without keep-alive: Node's `shouldKeepAlive`). A
 * probe's `Connection: close` to /mcp was answered keep-alive and held until the keep-alive timeout.
 */
export function mustCloseConnection(replyConnection: unknown, response: ServerResponse): boolean {
  return replyConnection === 'close' || response.shouldKeepAlive === false;
}
