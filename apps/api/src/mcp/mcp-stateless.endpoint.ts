/**
 * The 2026-07-28 (stateless) leg of `/mcp`: the 2.x SDK's per-request handler, strict for that era
 * (`legacy: 'reject'`, because 2025-era traffic keeps our sessioned v1 path and never reaches it).
 * Each request gets a fresh server from the factory and nothing is kept between requests, so any
 * instance behind a balancer can answer any request. The SDK validates the `_meta` envelope and the
 * header/body agreement itself and answers in the revision's own error forms (-32022 unsupported
 * version, -32602 missing or malformed envelope, -32020 header/body mismatch).
 *
 * The SDK speaks web-standard Request/Response; Fastify has already parsed and size-capped the body,
 * so it is handed over parsed and the answer goes back through Fastify's reply (its hooks, the
 * X-Request-Id header and the access log line all apply). Only a streamed (SSE) answer is written
 * to the raw socket.
 *
 * The era's one long-lived exchange, a `subscriptions/listen` stream, cannot pile up here: the
 * servers say `listChanged: false` and offer no resource subscriptions, so the SDK acknowledges a
 * listen with an empty filter and ends its stream at once (a regression test holds that).
 */
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { type ReadableStream as NodeReadableStream } from 'node:stream/web';
import {
  createMcpHandler,
  type McpHttpHandler,
  type McpServer as StatelessMcpServer,
} from '@modelcontextprotocol/server';
import { type FastifyReply, type FastifyRequest } from 'fastify';
import { printableText } from '@passport/core/codecs';
import { forceConnectionClose, mustCloseConnection } from '../platform/http/connection-close.js';
import { MCP_CACHE_CONTROL } from './mcp-settings.js';
import { boundedJsonRpcErrorText } from './json-rpc-error-echo.js';

/** The request headers the handler reads (era, method and name claims, content negotiation). */
const FORWARDED_HEADERS = [
  'accept',
  'content-type',
  'mcp-protocol-version',
  'mcp-method',
  'mcp-name',
] as const;

export interface McpStatelessOptions {
  /** The absolute URL of `/mcp` (the web Request handed to the SDK needs one). */
  readonly endpointUrl: string;
  /** Reports requests the SDK rejected or failed (it has already answered them). */
  readonly onError: (error: Error) => void;
}

export class McpStatelessEndpoint {
  private readonly handler: McpHttpHandler;

  constructor(
    createServer: () => StatelessMcpServer,
    private readonly options: McpStatelessOptions,
  ) {
    this.handler = createMcpHandler(() => createServer(), { legacy: 'reject', onerror: options.onError });
  }

  async serve(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const headers = new Headers();
    for (const name of FORWARDED_HEADERS) {
      const value = request.headers[name];
      if (typeof value === 'string') headers.set(name, value);
    }
    const aborted = new AbortController();
    // A client that goes away cancels its exchange (the per-request server is then closed).
    reply.raw.once('close', () => {
      if (!reply.raw.writableFinished) aborted.abort();
    });
    const response = await this.handler.fetch(
      new Request(this.options.endpointUrl, { method: 'POST', headers, signal: aborted.signal }),
      { parsedBody: request.body },
    );
    request.log.debug(
      { mcpEra: 'stateless', rpcMethod: rpcMethodOf(request.body), status: response.status },
      'mcp request',
    );
    const contentType = response.headers.get('content-type') ?? '';
    if (contentType.startsWith('text/event-stream') && response.body) {
      reply.hijack();
      const raw = reply.raw;
      raw.setHeader('x-request-id', request.id);
      raw.setHeader('cache-control', MCP_CACHE_CONTROL); // unless the SDK names its own
      response.headers.forEach((value, name) => raw.setHeader(name, value));
      // The drain's `Connection: close` (set on the reply by the request hook) or the client's, over the
      // SDK's keep-alive.
      if (mustCloseConnection(reply.getHeader('connection'), raw)) forceConnectionClose(raw);
      raw.writeHead(response.status);
      // pipeline, not pipe: a stream the SDK errors (a client gone mid-exchange) must end this response,
      // not raise an unhandled 'error' event that would take the process down.
      await pipeline(Readable.fromWeb(response.body as NodeReadableStream<Uint8Array>), raw).catch(() =>
        raw.destroy(),
      );
      return;
    }
    void reply.code(response.status).header('cache-control', MCP_CACHE_CONTROL);
    response.headers.forEach((value, name) => void reply.header(name, value));
    const body = await response.text();
    // Its errors quote the client's headers and method as sent (a probe: 120 KB answers, C1 controls).
    const text = response.status >= 400 ? boundedJsonRpcErrorText(body) : body;
    if (text !== body) reply.removeHeader('content-length');
    // A 202 to a notification has no body: sent as nothing, not as an empty string, which Fastify
    // labels text/plain (the document, and the sessioned era, say no Content-Type; a fuzz probe).
    await (text === '' && contentType === '' ? reply.send() : reply.send(text));
  }

  /** Aborts in-flight exchanges (application shutdown). */
  async close(): Promise<void> {
    await this.handler.close();
  }
}

/** The request's JSON-RPC method for the debug line: the client's text, so bounded (printable, 128). */
const rpcMethodOf = (body: unknown): string | null =>
  typeof body === 'object' && body !== null && typeof (body as { method?: unknown }).method === 'string'
    ? printableText((body as { method: string }).method, 128)
    : null;
