/**
 * `/mcp`: the MCP streamable-HTTP endpoint (stateful sessions). Everything the SDK does not do is
 * done here before a request reaches a transport: the Host/Origin allowlist, the /mcp burst and the
 * tool-call rate, the session cap, and routing by `Mcp-Session-Id` (400 -32000 without one, 404
 * -32001 for an unknown one). The transport then writes the raw response itself, so the reply is
 * hijacked first (engineering anchors §2.4) and Fastify's bodyLimit is the only body cap.
 */
import { randomUUID } from 'node:crypto';
import { Controller, Delete, Get, Inject, Post, Req, Res } from '@nestjs/common';
import { ApiOperation, ApiProduces, ApiResponse, ApiTags } from '@nestjs/swagger';
import { ApiErrors } from '../openapi/api-errors.decorator.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { PassportError } from '@passport/core';
import { type RateLimitStore } from '@passport/core/ports';
import { type FastifyReply, type FastifyRequest } from 'fastify';
import { PUBLIC_RATE_LIMIT_STORE } from '../infrastructure/di-tokens.js';
import {
  jsonRpcError,
  RPC_SESSION_NOT_FOUND,
  RPC_TRANSPORT_ERROR,
  type JsonRpcErrorBody,
} from './json-rpc-error.js';
import { McpHostAllowlist } from './mcp-host.allowlist.js';
import { MCP_HOST_ALLOWLIST, MCP_SERVER_FACTORY, MCP_SESSION_REGISTRY } from './mcp.di-tokens.js';
import { type McpServerFactory } from './mcp-server.factory.js';
import { type McpSession, McpSessionRegistry } from './mcp-session.registry.js';
import { MCP_RATE_LIMITS } from './mcp-settings.js';

export const MCP_DISCOVERY_PATH = '/.well-known/mcp';

const sessionIdOf = (request: FastifyRequest): string | undefined => {
  const value = request.headers['mcp-session-id'];
  return typeof value === 'string' && value !== '' ? value : undefined;
};

/** JSON-RPC messages in a POST body (one object or a batch). */
const messagesOf = (body: unknown): unknown[] =>
  Array.isArray(body) ? body : body === undefined ? [] : [body];

const isToolCall = (message: unknown): message is { method: 'tools/call'; id?: string | number } =>
  typeof message === 'object' &&
  message !== null &&
  (message as { method?: unknown }).method === 'tools/call';

@ApiTags('mcp')
@Controller('mcp')
export class McpTransportController {
  constructor(
    @Inject(MCP_SESSION_REGISTRY) private readonly sessions: McpSessionRegistry,
    @Inject(MCP_SERVER_FACTORY) private readonly createServer: McpServerFactory,
    @Inject(MCP_HOST_ALLOWLIST) private readonly hosts: McpHostAllowlist,
    @Inject(PUBLIC_RATE_LIMIT_STORE) private readonly rateLimits: RateLimitStore,
  ) {}

  @Post()
  @ApiOperation({
    summary: 'MCP streamable HTTP: send JSON-RPC messages',
    description:
      'Start with an initialize request (no Mcp-Session-Id); send the returned Mcp-Session-Id on every later request. ' +
      'Accept must list application/json and text/event-stream. Documentation only: no login happens here.',
  })
  @ApiProduces('text/event-stream', 'application/json')
  @ApiResponse({ status: 200, description: 'JSON-RPC response (SSE stream or JSON).' })
  @ApiResponse({
    status: 400,
    description: 'JSON-RPC error -32000: not an initialize request and no Mcp-Session-Id.',
  })
  @ApiResponse({ status: 403, description: 'JSON-RPC error -32000: Host or Origin not allowed.' })
  @ApiResponse({ status: 404, description: 'JSON-RPC error -32001: unknown or closed session.' })
  @ApiResponse({
    status: 429,
    description: 'JSON-RPC error: session cap, /mcp burst or tool-call rate exceeded (Retry-After).',
  })
  async post(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    if (!(await this.admit(request, reply))) return;
    const sessionId = sessionIdOf(request);
    if (sessionId !== undefined) {
      const session = this.sessions.touch(sessionId);
      if (!session) return this.reject(reply, 404, jsonRpcError(RPC_SESSION_NOT_FOUND, 'Session not found'));
      if (!(await this.admitToolCalls(request, reply))) return;
      return this.forward(session, request, reply);
    }
    if (!messagesOf(request.body).some((m) => isInitializeRequest(m))) {
      return this.reject(
        reply,
        400,
        jsonRpcError(RPC_TRANSPORT_ERROR, 'Bad Request: Mcp-Session-Id header is required'),
      );
    }
    return this.initialize(request, reply);
  }

  @Get()
  @ApiOperation({
    summary: 'MCP streamable HTTP: open the server-to-client SSE stream of a session',
    description: `Needs Mcp-Session-Id. Without it: 400 MCP_TRANSPORT_SESSION_REQUIRED (ErrorResponse); read ${MCP_DISCOVERY_PATH} instead.`,
  })
  // The stream is SSE; errors (the envelope, JSON-RPC) are JSON.
  @ApiProduces('text/event-stream', 'application/json')
  @ApiResponse({ status: 200, description: 'SSE stream.' })
  @ApiErrors('MCP_TRANSPORT_SESSION_REQUIRED')
  @ApiResponse({ status: 404, description: 'JSON-RPC error -32001: unknown or closed session.' })
  async get(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    if (!(await this.admit(request, reply))) return;
    const sessionId = sessionIdOf(request);
    // A browser or a plain HTTP agent lands here: point it at the discovery document (app envelope).
    if (sessionId === undefined)
      throw new PassportError('MCP_TRANSPORT_SESSION_REQUIRED', { mcpDiscovery: MCP_DISCOVERY_PATH });
    const session = this.sessions.touch(sessionId);
    if (!session) return this.reject(reply, 404, jsonRpcError(RPC_SESSION_NOT_FOUND, 'Session not found'));
    return this.forward(session, request, reply);
  }

  @Delete()
  @ApiOperation({ summary: 'MCP streamable HTTP: end a session', description: 'Needs Mcp-Session-Id.' })
  @ApiResponse({ status: 200, description: 'Session closed.' })
  @ApiResponse({ status: 400, description: 'JSON-RPC error -32000: no Mcp-Session-Id.' })
  @ApiResponse({ status: 404, description: 'JSON-RPC error -32001: unknown or closed session.' })
  async delete(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    if (!(await this.admit(request, reply))) return;
    const sessionId = sessionIdOf(request);
    if (sessionId === undefined) {
      return this.reject(
        reply,
        400,
        jsonRpcError(RPC_TRANSPORT_ERROR, 'Bad Request: Mcp-Session-Id header is required'),
      );
    }
    const session = this.sessions.touch(sessionId);
    if (!session) return this.reject(reply, 404, jsonRpcError(RPC_SESSION_NOT_FOUND, 'Session not found'));
    return this.forward(session, request, reply);
  }

  /** Host/Origin allowlist, then the /mcp burst. Answers and returns false when the request may not proceed. */
  private async admit(request: FastifyRequest, reply: FastifyReply): Promise<boolean> {
    const localPort = request.raw.socket?.localPort;
    const origin = typeof request.headers.origin === 'string' ? request.headers.origin : undefined;
    if (!this.hosts.allowsHost(request.headers.host, localPort)) {
      this.reject(reply, 403, jsonRpcError(RPC_TRANSPORT_ERROR, 'Forbidden: Host header is not allowed'));
      return false;
    }
    if (!this.hosts.allowsOrigin(origin, localPort)) {
      this.reject(reply, 403, jsonRpcError(RPC_TRANSPORT_ERROR, 'Forbidden: Origin is not allowed'));
      return false;
    }
    const take = await this.rateLimits.take(
      `mcp:transport:${request.ip}`,
      MCP_RATE_LIMITS.transport,
      Date.now(),
    );
    if (!take.allowed) {
      this.tooMany(
        reply,
        take.retryAfterMs,
        jsonRpcError(RPC_TRANSPORT_ERROR, 'Rate limit exceeded on /mcp'),
      );
      return false;
    }
    return true;
  }

  /** One token per `tools/call` message (100 per minute per address). */
  private async admitToolCalls(request: FastifyRequest, reply: FastifyReply): Promise<boolean> {
    for (const message of messagesOf(request.body).filter(isToolCall)) {
      const take = await this.rateLimits.take(
        `mcp:tools:${request.ip}`,
        MCP_RATE_LIMITS.toolCalls,
        Date.now(),
      );
      if (!take.allowed) {
        const id = typeof message.id === 'string' || typeof message.id === 'number' ? message.id : null;
        this.tooMany(
          reply,
          take.retryAfterMs,
          jsonRpcError(RPC_TRANSPORT_ERROR, 'MCP tool-call rate limit exceeded', id),
        );
        return false;
      }
    }
    return true;
  }

  /** A new transport and server for an initialize request, if the session cap allows. */
  private async initialize(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    if (!this.sessions.tryReserve()) {
      const message = `Too many MCP sessions (limit ${this.sessions.maxSessions}); retry later or end unused sessions with DELETE /mcp`;
      return this.tooMany(reply, this.sessions.retryAfterMs(), jsonRpcError(RPC_TRANSPORT_ERROR, message));
    }
    const server = this.createServer();
    let registered = false;
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        registered = true;
        this.sessions.register({ id, transport, server });
      },
      // DELETE: take the session out at once (later requests get 404), close it once the answer is written.
      onsessionclosed: (id) => void this.sessions.close(id),
    });
    transport.onclose = () => {
      if (transport.sessionId) this.sessions.forget(transport.sessionId);
    };
    try {
      await server.connect(transport);
      reply.hijack();
      await transport.handleRequest(request.raw, reply.raw, request.body);
    } finally {
      if (!registered) {
        // The initialize failed (bad version, bad Accept, …): nothing may stay behind.
        this.sessions.release();
        await transport.close().catch(() => undefined);
        await server.close().catch(() => undefined);
      }
    }
  }

  private async forward(session: McpSession, request: FastifyRequest, reply: FastifyReply): Promise<void> {
    reply.hijack();
    await session.transport.handleRequest(request.raw, reply.raw, request.body);
  }

  private reject(reply: FastifyReply, status: number, body: JsonRpcErrorBody): void {
    void reply.code(status).header('content-type', 'application/json').send(body);
  }

  private tooMany(reply: FastifyReply, retryAfterMs: number, body: JsonRpcErrorBody): void {
    reply.header('retry-after', String(Math.max(1, Math.ceil(retryAfterMs / 1000))));
    this.reject(reply, 429, body);
  }
}
