/**
 * `/mcp`: the MCP streamable-HTTP endpoint, both protocol eras on one URL, chosen per request.
 * - A request carrying the 2026-07-28 `_meta` envelope claim is served statelessly by the 2.x SDK's
 *   per-request handler (no session; any instance can answer it).
 * - Everything else is the sessioned era on the v1 SDK: routing by `Mcp-Session-Id` (400 -32000
 *   without one, 404 -32001 for an unknown one), one transport per session, the session caps. That
 *   transport writes the raw response itself, so the reply is hijacked first (engineering anchors
 *   §2.4) and Fastify's bodyLimit is the only body cap.
 * Both eras first pass what the SDKs do not do: the Host/Origin allowlist, the /mcp burst and the
 * tool-call rate per client address.
 */
import { randomUUID } from 'node:crypto';
import { type Socket } from 'node:net';
import { Controller, Delete, Get, Inject, Optional, Post, Req, Res } from '@nestjs/common';
import { ApiOperation, ApiProduces, ApiResponse, ApiTags } from '@nestjs/swagger';
import { errorResponseSchema } from '../platform/openapi/error-response.schema.js';
import { RouteConfig } from '@nestjs/platform-fastify';
import { ERROR_SHAPE } from '../platform/http/json-rpc-body-failure.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { ErrorCode, isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { type RateLimitStore } from '@passport/core/ports';
import { printableText } from '@passport/core/codecs';
import { type FastifyReply, type FastifyRequest } from 'fastify';
import { MCP_FLEET_SESSIONS, PUBLIC_RATE_LIMIT_STORE } from '../platform/infrastructure/di-tokens.js';
import {
  jsonRpcError,
  JSON_RPC_ERROR_SCHEMA,
  RPC_INVALID_REQUEST,
  RPC_SESSION_NOT_FOUND,
  RPC_TRANSPORT_ERROR,
  type JsonRpcErrorBody,
} from './json-rpc-error.js';
import { McpHostAllowlist } from './mcp-host.allowlist.js';
import { ApiMcpPostRequest, ApiMcpSessionId, MCP_SESSION_ID_RESPONSE_HEADER } from './mcp-openapi.headers.js';
import { invalidInitializeAnswer, invalidParamsAnswer } from './mcp-request-params.js';
import { withoutIgnoredTasks } from './mcp-task-augmentation.js';
import {
  MCP_HOST_ALLOWLIST,
  MCP_SERVER_FACTORY,
  MCP_SESSION_REGISTRY,
  MCP_STATELESS_ENDPOINT,
} from './mcp.di-tokens.js';
import { claimsStatelessEnvelope, protocolEraOf } from './mcp-protocol-era.js';
import { bodyShapeProblem } from './mcp-body.rules.js';
import { claimRequestIds, releaseIdsOnAnswer, requestIdsOf, transportServes } from './mcp-request-ids.js';
import { sessionedTransportRefuses, unsupportedSessionedVersion } from './mcp-transport.rules.js';
import { lowercaseAcceptHeader } from './mcp-accept.header.js';
import { SESSIONED_PROTOCOL_VERSIONS, STATELESS_PROTOCOL_VERSION } from './mcp-protocol-versions.js';
import { type McpServerFactory } from './mcp-server.factory.js';
import { type McpFleetSessions, type McpSession, type McpSessionStore } from './mcp-session.store.js';
import { withoutCancellations } from './mcp-cancellations.js';
import {
  MCP_CACHE_CONTROL,
  MCP_MAX_OPENAPI_READS_PER_BATCH,
  MCP_MAX_READS_PER_BATCH,
  MCP_OPENAPI_RESOURCE_URI,
  MCP_RATE_LIMITS,
} from './mcp-settings.js';
import { type McpStatelessEndpoint } from './mcp-stateless.endpoint.js';
import { AppError } from '../platform/http/app.error.js';
import { forceConnectionClose, mustCloseConnection } from '../platform/http/connection-close.js';
import { clientAddressKey } from '../platform/http/client-address.js';

export const MCP_DISCOVERY_PATH = '/.well-known/mcp';

/**
 * Ends (each once) of the fleet POSTs served on a connection, called when it closes: one listener per
 * socket, however many POSTs are pipelined on it (a listener each went past Node's 10 and warned).
 */
const onSocketClose = new WeakMap<Socket, Set<() => void>>();
const whenSocketCloses = (socket: Socket, end: () => void): void => {
  let ends = onSocketClose.get(socket);
  if (!ends) {
    const pending = new Set<() => void>();
    ends = pending;
    onSocketClose.set(socket, pending);
    socket.once('close', () => {
      onSocketClose.delete(socket);
      for (const ended of pending) ended();
    });
  }
  ends.add(end);
};

const sessionIdOf = (request: FastifyRequest): string | undefined => {
  const value = request.headers['mcp-session-id'];
  return typeof value === 'string' && value !== '' ? value : undefined;
};

/** JSON-RPC messages in a POST body (one object or a batch). */
const messagesOf = (body: unknown): unknown[] =>
  Array.isArray(body) ? body : body === undefined ? [] : [body];

const rpcMethodOf = (body: unknown): string | null => {
  const [first] = messagesOf(body);
  return typeof first === 'object' &&
    first !== null &&
    typeof (first as { method?: unknown }).method === 'string'
    ? printableText((first as { method: string }).method, 128) // the client's text, for a log line: bounded
    : null;
};

/**
 * Messages the tool-call rate counts: `tools/call`, and `resources/read`, which reads the same
 * documents as the `get_resource` tool (else the OpenAPI resource, ~780 KB per answer, can be read past the
 * tool-call rate that way).
 */
const isDocumentRead = (
  message: unknown,
): message is { method: 'tools/call' | 'resources/read'; id?: string | number } => {
  if (typeof message !== 'object' || message === null) return false;
  const { method } = message as { method?: unknown };
  return method === 'tools/call' || method === 'resources/read';
};

/** The URI a document read asks for: `resources/read` params.uri, or the `get_resource` tool's argument. */
const readUriOf = (message: { method: string; params?: unknown }): unknown => {
  const params = message.params as { uri?: unknown; arguments?: { uri?: unknown } } | null | undefined;
  return message.method === 'resources/read' ? params?.uri : params?.arguments?.uri;
};

/** A documented error answer of the MCP transport: a JSON-RPC error body (spec: Errors). */
const ApiJsonRpcError = (status: number, description: string) =>
  ApiResponse({ status, description, content: { 'application/json': { schema: JSON_RPC_ERROR_SCHEMA } } });

@ApiTags('mcp')
@Controller('mcp')
export class McpTransportController {
  constructor(
    @Inject(MCP_SESSION_REGISTRY) private readonly sessions: McpSessionStore,
    @Inject(MCP_STATELESS_ENDPOINT) private readonly stateless: McpStatelessEndpoint,
    @Inject(MCP_SERVER_FACTORY) private readonly createServer: McpServerFactory,
    @Inject(MCP_HOST_ALLOWLIST) private readonly hosts: McpHostAllowlist,
    @Inject(PUBLIC_RATE_LIMIT_STORE) private readonly rateLimits: RateLimitStore,
    @Optional() @Inject(MCP_FLEET_SESSIONS) private readonly fleet: McpFleetSessions | null = null,
  ) {}

  @Post()
  // A body this route cannot read is answered as the MCP transport answers (platform/http/json-rpc-body-failure.ts).
  @RouteConfig({ [ERROR_SHAPE]: 'json-rpc' })
  @ApiOperation({
    summary: 'MCP streamable HTTP: send JSON-RPC messages (both protocol eras)',
    description:
      `Two eras on this one URL, chosen per request. Stateless (${STATELESS_PROTOCOL_VERSION}, recommended, ` +
      'works behind any balancer): no initialize and no session; every request carries ' +
      `params._meta {"io.modelcontextprotocol/protocolVersion":"${STATELESS_PROTOCOL_VERSION}", ` +
      '"io.modelcontextprotocol/clientInfo", "io.modelcontextprotocol/clientCapabilities"} and the headers ' +
      'MCP-Protocol-Version, Mcp-Method (and Mcp-Name for tools/call and resources/read); start with server/discover. ' +
      `Sessioned (${SESSIONED_PROTOCOL_VERSIONS.join(', ')}): start with an initialize request (no Mcp-Session-Id) and ` +
      'send the returned Mcp-Session-Id on every later request; the session lives on the instance that created it ' +
      '(with STORE=redis: on every instance of the fleet). ' +
      'Accept must list application/json and text/event-stream. Documentation only: no login happens here.',
  })
  @ApiProduces('text/event-stream', 'application/json')
  @ApiMcpSessionId(false)
  @ApiMcpPostRequest()
  @ApiResponse({
    status: 200,
    description:
      'JSON-RPC response (an SSE stream or JSON). A batch refused whole for one member (invalid params, a ' +
      'task call) is one JSON-RPC error with id null.',
    headers: MCP_SESSION_ID_RESPONSE_HEADER,
    content: {
      'text/event-stream': { schema: { type: 'string' } },
      'application/json': { schema: { oneOf: [{ type: 'object' }, { type: 'array' }] } },
    },
  })
  @ApiResponse({
    status: 202,
    description: 'Notifications or responses only: accepted, with no body (and no Content-Type).',
  })
  @ApiJsonRpcError(406, 'JSON-RPC error -32000: Accept must list application/json and text/event-stream.')
  @ApiJsonRpcError(
    400,
    'JSON-RPC error. Both eras: -32700 (id null) a body that is not JSON or not UTF-8; -32000 (id null) a body ' +
      'over 64 KiB; -32600 (id null) a body nested deeper than 64 levels, a batch of more than 100 messages, ' +
      'a batch whose requests share an id, more than 16 tool calls and resource reads or more than 2 reads of ' +
      'openapi:swagger in one batch. ' +
      'Sessioned: -32000 (id null) not an initialize request and no Mcp-Session-Id; -32602 initialize params over 8192 bytes. ' +
      `Stateless: -32022 unsupported protocol version (data.supported lists ${STATELESS_PROTOCOL_VERSION}), ` +
      '-32602 missing or malformed _meta envelope, -32020 headers and body disagree (MCP-Protocol-Version, Mcp-Method, Mcp-Name).',
  )
  @ApiJsonRpcError(403, 'JSON-RPC error -32000: Host or Origin not allowed.')
  @ApiJsonRpcError(
    415,
    'JSON-RPC error -32000 (id null): a body of another media type, in a charset other than UTF-8, or with a content coding.',
  )
  @ApiJsonRpcError(
    404,
    'JSON-RPC error. Sessioned: -32001 (id null) unknown or closed session, initialize again. Stateless: -32601 a method this server does not offer.',
  )
  @ApiJsonRpcError(
    409,
    'JSON-RPC error -32600 (id null), sessioned on one instance: a request id of the body belongs to a request of the session still in progress.',
  )
  @ApiJsonRpcError(
    429,
    'JSON-RPC error -32000: session cap (instance or per client address), /mcp burst or tool-call rate exceeded (Retry-After).',
  )
  @ApiJsonRpcError(
    503,
    'JSON-RPC error -32000: the fleet session store (STORE=redis) is unavailable; retry later.',
  )
  async post(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    if ((await this.admit(request, reply)) === null) return;
    // A body refused for its shape spends the request's one token, never a batch's worth.
    const badShape = bodyShapeProblem(request.body);
    if (badShape)
      return this.reject(reply, 400, jsonRpcError(RPC_INVALID_REQUEST, `Invalid Request: ${badShape}`));
    // A batch's other messages are charged once it is known to be served: not for a body refused
    // below or by the SDK, nor for a session that has ended (its client would find its burst spent when
    // it sends the batch again on a new session).
    const batchRest = Array.isArray(request.body) ? request.body.length - 1 : 0;
    // A session's request naming a revision neither era serves gets the sessioned transport's answer
    // (400 -32000 Unsupported protocol version): the SDK's classifier takes any unknown version for the
    // stateless era, whose answer asked a sessioned client for a `_meta` envelope (a probe).
    // An unknown session is 404 first, as the transport answers (on a fleet the session is looked up on
    // its path, after this).
    const postedSessionId = sessionIdOf(request);
    if (
      postedSessionId !== undefined &&
      !claimsStatelessEnvelope(request.body) &&
      request.headers['mcp-protocol-version'] !== STATELESS_PROTOCOL_VERSION &&
      !SESSIONED_PROTOCOL_VERSIONS.includes(String(request.headers['mcp-protocol-version'] ?? '')) &&
      typeof request.headers['mcp-protocol-version'] === 'string'
    ) {
      if (!this.fleet && !this.sessions.touch(postedSessionId))
        return this.reject(reply, 404, jsonRpcError(RPC_SESSION_NOT_FOUND, 'Session not found'));
      if (this.answeredUnsupportedVersion(request, reply)) return;
    }
    const era = protocolEraOf(request);
    if (era === 'unreadable')
      return this.reject(
        reply,
        400,
        jsonRpcError(RPC_INVALID_REQUEST, 'Invalid Request: the request cannot be read'),
      );
    // Refused by the SDK's classifier before any message is served: nothing is charged but the request's token.
    if (era === 'stateless-refused') return this.stateless.serve(request, reply);
    if (era === 'stateless') {
      // No batch is charged here: the stateless revision has none, and its SDK refuses every array (an
      // array reaches this path only holding a stateless or an invalid message).
      if (this.refusedReadBounds(request, reply)) return;
      if (this.answeredInvalidParams(request, reply, { envelopeRequired: true })) return;
      if (!(await this.takeToolCalls(request, reply))) return;
      return this.stateless.serve(request, reply);
    }
    const sessionId = sessionIdOf(request);
    if (sessionId !== undefined) {
      request.body = withoutIgnoredTasks(withoutCancellations(request.body));
      if (this.fleet) return this.serveFleetSession(this.fleet, sessionId, request, reply, batchRest);
      const session = this.sessions.touch(sessionId);
      if (!session) return this.reject(reply, 404, jsonRpcError(RPC_SESSION_NOT_FOUND, 'Session not found'));
      // Not idle while served: the cap's reclaim took the slot of a session in a slow read (a probe).
      const served = this.sessions.serve(session);
      try {
        return await this.serveSessionPost(session, request, reply, batchRest);
      } finally {
        served();
      }
    }
    const badInitialize = invalidInitializeAnswer(request.body);
    if (badInitialize) return this.reject(reply, 400, badInitialize);
    if (!messagesOf(request.body).some((m) => isInitializeRequest(m))) {
      return this.reject(
        reply,
        400,
        jsonRpcError(RPC_TRANSPORT_ERROR, 'Bad Request: Mcp-Session-Id header is required'),
      );
    }
    // Not charged for a batch either: the SDK refuses an initialize that is not alone in its body.
    if (this.fleet) return this.initializeFleetSession(this.fleet, request, reply);
    return this.initialize(request, reply);
  }

  @Get()
  @ApiOperation({
    summary: 'MCP streamable HTTP: open the server-to-client SSE stream of a session',
    description: `Needs Mcp-Session-Id. Without it: 400 MCP_TRANSPORT_SESSION_REQUIRED (ErrorResponse); read ${MCP_DISCOVERY_PATH} instead.`,
  })
  // The stream is SSE; errors (the envelope, JSON-RPC) are JSON.
  @ApiProduces('text/event-stream', 'application/json')
  @ApiMcpSessionId(true)
  @ApiResponse({
    status: 200,
    description: 'SSE stream.',
    content: { 'text/event-stream': { schema: { type: 'string' } } },
  })
  @ApiJsonRpcError(406, 'JSON-RPC error -32000: Accept must list text/event-stream.')
  @ApiJsonRpcError(403, 'JSON-RPC error -32000: Host or Origin not allowed.')
  @ApiJsonRpcError(429, 'JSON-RPC error -32000: /mcp burst exceeded (Retry-After).')
  // Two shapes at 400: the app's envelope without a session, the transport's JSON-RPC error with one.
  @ApiResponse({
    status: 400,
    description:
      'Without Mcp-Session-Id: MCP_TRANSPORT_SESSION_REQUIRED (ErrorResponse). With one: JSON-RPC error -32000, ' +
      'an MCP-Protocol-Version the transport does not serve.',
    content: {
      'application/json': {
        schema: { oneOf: [JSON_RPC_ERROR_SCHEMA, errorResponseSchema(['MCP_TRANSPORT_SESSION_REQUIRED'])] },
      },
    },
  })
  @ApiJsonRpcError(404, 'JSON-RPC error -32001: unknown or closed session.')
  @ApiJsonRpcError(
    409,
    'JSON-RPC error -32000: the session already has an open SSE stream (one per session).',
  )
  @ApiJsonRpcError(
    405,
    'JSON-RPC error -32000: STORE=redis (a fleet) offers no SSE stream; the session is served over POST.',
  )
  @ApiJsonRpcError(
    503,
    'JSON-RPC error -32000: the fleet session store (STORE=redis) is unavailable, or this instance is shutting down (no new SSE stream); retry later.',
  )
  async get(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    if ((await this.admit(request, reply)) === null) return;
    const sessionId = sessionIdOf(request);
    // A browser or a plain HTTP agent lands here: point it at the discovery document (app envelope).
    if (sessionId === undefined)
      throw new AppError('MCP_TRANSPORT_SESSION_REQUIRED', { mcpDiscovery: MCP_DISCOVERY_PATH });
    if (this.fleet) return this.serveFleetSession(this.fleet, sessionId, request, reply);
    const session = this.sessions.touch(sessionId);
    if (!session) return this.reject(reply, 404, jsonRpcError(RPC_SESSION_NOT_FOUND, 'Session not found'));
    // Draining: the streams were ended as the server stopped accepting; a new one would hold the drain.
    if (this.sessions.eventStreamsEnded)
      return this.reject(
        reply,
        503,
        jsonRpcError(RPC_TRANSPORT_ERROR, 'Service Unavailable: this instance is shutting down'),
      );
    // The event stream ends when its client does (its FIN). Half-closed clients are answered
    // (half-closed-clients.ts), and nothing is ever written on this stream that would find the client
    // gone, so a dropped stream kept the session's one stream taken (a probe: 409 on reconnect for ~30 s).
    const socket = request.raw.socket;
    const endWithClient = () => socket.destroy();
    socket.once('end', endWithClient);
    // The listener goes with its answer: a keep-alive connection's GETs answered at once (409) left one
    // each (a review: MaxListenersExceededWarning after 11).
    // Open until its answer closes: the session's client is connected (the address cap spares it).
    const listened = this.sessions.listen(session);
    reply.raw.once('close', () => {
      socket.off('end', endWithClient);
      listened();
    });
    return this.forward(session, request, reply);
  }

  @Delete()
  @RouteConfig({ [ERROR_SHAPE]: 'json-rpc' })
  @ApiOperation({ summary: 'MCP streamable HTTP: end a session', description: 'Needs Mcp-Session-Id.' })
  @ApiMcpSessionId(true)
  @ApiResponse({
    status: 200,
    description: 'Session closed: no body (and no Content-Type).',
  })
  @ApiJsonRpcError(415, 'JSON-RPC error -32000 (id null): a body of another media type, charset or coding.')
  @ApiJsonRpcError(429, 'JSON-RPC error -32000: the bucket of session ends exceeded (Retry-After).')
  @ApiJsonRpcError(403, 'JSON-RPC error -32000: Host or Origin not allowed.')
  @ApiJsonRpcError(
    400,
    'JSON-RPC error: -32000 no Mcp-Session-Id; -32700 (id null) a body that is not JSON; -32000 a body over 64 KiB; -32000 an MCP-Protocol-Version the transport does not serve (the session is kept).',
  )
  @ApiJsonRpcError(404, 'JSON-RPC error -32001: unknown or closed session.')
  @ApiJsonRpcError(
    503,
    'JSON-RPC error -32000: the fleet session store (STORE=redis) is unavailable; retry later.',
  )
  async delete(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    if ((await this.admit(request, reply)) === null) return;
    const sessionId = sessionIdOf(request);
    if (sessionId === undefined) {
      return this.reject(
        reply,
        400,
        jsonRpcError(RPC_TRANSPORT_ERROR, 'Bad Request: Mcp-Session-Id header is required'),
      );
    }
    if (this.fleet) return this.serveFleetSession(this.fleet, sessionId, request, reply);
    const session = this.sessions.touch(sessionId);
    if (!session) return this.reject(reply, 404, jsonRpcError(RPC_SESSION_NOT_FOUND, 'Session not found'));
    return this.forward(session, request, reply);
  }

  /**
   * Host/Origin allowlist, then one token of the /mcp burst. Answers and returns null when the request
   * may not proceed; else the tokens left (what a batch's other messages may take).
   */
  private async admit(request: FastifyRequest, reply: FastifyReply): Promise<number | null> {
    lowercaseAcceptHeader(request.raw);
    const localPort = request.raw.socket?.localPort;
    const origin = typeof request.headers.origin === 'string' ? request.headers.origin : undefined;
    if (!this.hosts.allowsHost(request.headers.host, localPort)) {
      this.reject(reply, 403, jsonRpcError(RPC_TRANSPORT_ERROR, 'Forbidden: Host header is not allowed'));
      return null;
    }
    if (!this.hosts.allowsOrigin(origin, localPort)) {
      this.reject(reply, 403, jsonRpcError(RPC_TRANSPORT_ERROR, 'Forbidden: Origin is not allowed'));
      return null;
    }
    // Ending a session draws on a bucket of its own: a client whose /mcp burst is spent can still free
    // its slots, and DELETEs stay bounded (in a fleet each is a Redis call).
    const ending = request.method === 'DELETE' && sessionIdOf(request) !== undefined;
    const take = await this.rateLimits.take(
      `mcp:${ending ? 'delete' : 'transport'}:${clientAddressKey(request.ip)}`,
      MCP_RATE_LIMITS.transport,
      Date.now(),
    );
    if (!take.allowed) {
      this.tooMany(
        reply,
        take.retryAfterMs,
        jsonRpcError(RPC_TRANSPORT_ERROR, 'Rate limit exceeded on /mcp'),
      );
      return null;
    }
    return take.remaining;
  }

  /**
   * Charges a sessioned batch's other messages, unless the SDK's transport will refuse the POST whole
   * (then it answers, uncharged beyond the request's own token); false when refused for the rate.
   */
  private async takeBatchRestIfServed(
    request: FastifyRequest,
    reply: FastifyReply,
    count: number,
  ): Promise<boolean> {
    if (count === 0 || sessionedTransportRefuses(request, true)) return true;
    return this.takeBatchRest(request, reply, count);
  }

  /**
   * The burst tokens of a batch's messages after its first (2025-03-26 batches): 100 list requests in
   * one POST were answered 278 KB and held the event loop ~45 ms for a single token. Refused whole when
   * the bucket cannot hold them.
   */
  private async takeBatchRest(request: FastifyRequest, reply: FastifyReply, count: number): Promise<boolean> {
    const policy = MCP_RATE_LIMITS.transport;
    // One take of all of them, all or none: one token per message taken one by one let concurrent
    // batches (on Redis, across a fleet) each run short partway, spend the burst and be served nothing.
    const take = await this.rateLimits.take(
      `mcp:transport:${clientAddressKey(request.ip)}`,
      policy,
      Date.now(),
      count,
    );
    if (take.allowed) return true;
    this.tooMany(
      reply,
      // A retry needs the whole batch again: its first message's token too.
      take.retryAfterMs + Math.ceil(1 / policy.refillPerMs),
      jsonRpcError(
        RPC_TRANSPORT_ERROR,
        `Rate limit exceeded on /mcp: a batch costs one request per message, this one ${count + 1}, ${take.remaining} more are available`,
      ),
    );
    return false;
  }

  /**
   * Refuses a batch with more document reads than one batch may hold, before it is charged anything
   * (else a batch of 105 reads spent the whole minute's tool calls and its burst, and was served nothing).
   */
  private refusedReadBounds(request: FastifyRequest, reply: FastifyReply): boolean {
    const reads = messagesOf(request.body).filter(isDocumentRead);
    if (reads.length > MCP_MAX_READS_PER_BATCH) {
      this.reject(
        reply,
        400,
        jsonRpcError(
          ErrorCode.InvalidRequest,
          `Invalid Request: at most ${MCP_MAX_READS_PER_BATCH} tool calls and resource reads in one batch`,
        ),
      );
      return true;
    }
    const openApiReads = reads.filter((message) => readUriOf(message) === MCP_OPENAPI_RESOURCE_URI).length;
    if (openApiReads > MCP_MAX_OPENAPI_READS_PER_BATCH) {
      this.reject(
        reply,
        400,
        jsonRpcError(
          ErrorCode.InvalidRequest,
          `Invalid Request: at most ${MCP_MAX_OPENAPI_READS_PER_BATCH} reads of ${MCP_OPENAPI_RESOURCE_URI} in one batch`,
        ),
      );
      return true;
    }
    return false;
  }

  /** One token per `tools/call` or `resources/read` message (100 per minute per address). */
  private async takeToolCalls(request: FastifyRequest, reply: FastifyReply): Promise<boolean> {
    const reads = messagesOf(request.body).filter(isDocumentRead);
    const policy = MCP_RATE_LIMITS.toolCalls;
    if (reads.length === 0) return true;
    // All of a batch's reads in one take, all or none (taken one by one, concurrent batches on Redis each
    // ran short partway and spent the minute's calls serving none).
    const take = await this.rateLimits.take(
      `mcp:tools:${clientAddressKey(request.ip)}`,
      policy,
      Date.now(),
      reads.length,
    );
    if (take.allowed) return true;
    const single = reads.length === 1 && !Array.isArray(request.body);
    const id =
      single && (typeof reads[0].id === 'string' || typeof reads[0].id === 'number') ? reads[0].id : null;
    this.tooMany(
      reply,
      take.retryAfterMs,
      jsonRpcError(
        RPC_TRANSPORT_ERROR,
        single
          ? 'MCP tool-call rate limit exceeded'
          : `MCP tool-call rate limit exceeded: this batch needs ${reads.length}, ${take.remaining} are available`,
        id,
      ),
    );
    return false;
  }

  /** A new transport and server for an initialize request, if the session caps allow. */
  private async initialize(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const address = clientAddressKey(request.ip);
    const reservation = this.sessions.tryReserve(address);
    if (reservation !== 'admitted') {
      const message =
        reservation === 'address-full'
          ? `Too many MCP sessions from this client address (limit ${this.sessions.maxSessionsPerAddress}); end unused sessions with DELETE /mcp, or use the stateless ${STATELESS_PROTOCOL_VERSION} revision, which needs none`
          : `Too many MCP sessions (limit ${this.sessions.maxSessions}); retry later, end unused sessions with DELETE /mcp, or use the stateless ${STATELESS_PROTOCOL_VERSION} revision, which needs none`;
      return this.tooMany(
        reply,
        this.sessions.retryAfterMs(reservation, address),
        jsonRpcError(RPC_TRANSPORT_ERROR, message),
      );
    }
    const server = this.createServer();
    let registered = false;
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        registered = true;
        this.sessions.register({ id, address, transport, server });
      },
      // DELETE: take the session out at once (later requests get 404), close it once the answer is written.
      onsessionclosed: (id) => void this.sessions.close(id),
    });
    transport.onclose = () => {
      if (transport.sessionId) this.sessions.forget(transport.sessionId);
    };
    try {
      await server.connect(transport);
      this.hijack(request, reply);
      await transport.handleRequest(request.raw, reply.raw, request.body);
    } finally {
      if (!registered) {
        // The initialize failed (bad version, bad Accept, …): nothing may stay behind.
        this.sessions.release(address);
        await transport.close().catch(() => undefined);
        await server.close().catch(() => undefined);
      }
    }
  }

  /**
   * STORE=redis: an initialize admitted by the fleet-wide caps registers its session id in Redis; the
   * transport and server answer this request only (any instance serves the later ones).
   */
  private async initializeFleetSession(
    fleet: McpFleetSessions,
    request: FastifyRequest,
    reply: FastifyReply,
  ): Promise<void> {
    const id = randomUUID();
    const address = clientAddressKey(request.ip);
    let admission;
    try {
      admission = await fleet.admit(id, address);
    } catch {
      // A timed-out admit may still run once Redis answers (it was queued on the connection): the
      // remove queued behind it undoes it, so the client is not charged a session it never learned of
      // (retries during a stall would lock its address out for the session TTL).
      void fleet.remove(id).catch(() => false);
      return this.reject(
        reply,
        503,
        jsonRpcError(RPC_TRANSPORT_ERROR, 'MCP session store unavailable; retry later'),
      );
    }
    if (admission !== 'admitted') {
      const message =
        admission === 'address-full'
          ? `Too many MCP sessions from this client address (limit ${this.sessions.maxSessionsPerAddress}); end unused sessions with DELETE /mcp, or use the stateless ${STATELESS_PROTOCOL_VERSION} revision, which needs none`
          : `Too many MCP sessions (limit ${this.sessions.maxSessions}); retry later, end unused sessions with DELETE /mcp, or use the stateless ${STATELESS_PROTOCOL_VERSION} revision, which needs none`;
      // When a slot frees: the fleet's reclaimable session, or this address's oldest idling out (a
      // fixed 60 s would tell clients at their address cap to come back far too early).
      const retryAfterMs = await fleet.retryAfterMs(admission, address).catch(() => 60_000);
      return this.tooMany(reply, retryAfterMs, jsonRpcError(RPC_TRANSPORT_ERROR, message));
    }
    let initialized = false;
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => id,
      onsessioninitialized: () => {
        initialized = true;
      },
    });
    try {
      await this.serveOnce(transport, request, reply);
    } finally {
      // The initialize failed (bad version, bad Accept, …): its admission must not stay behind.
      if (!initialized) await fleet.remove(id).catch(() => false);
    }
  }

  /** A POST on a local session: its ids claimed while it is served, then forwarded to its transport. */
  private async serveSessionPost(
    session: McpSession,
    request: FastifyRequest,
    reply: FastifyReply,
    batchRest: number,
  ): Promise<void> {
    // The transport refuses this POST whole (Accept, MCP-Protocol-Version): its answer, nothing charged.
    if (sessionedTransportRefuses(request, true)) return this.forward(session, request, reply);
    if (this.refusedReadBounds(request, reply)) return;
    if (this.answeredInvalidParams(request, reply)) return;
    // Claimed before the takes, whose await would let a second POST with the same id pass the check.
    const claim = claimRequestIds(session.transport, requestIdsOf(request.body));
    if (!claim.claimed) return this.refuseIdInUse(reply, claim.id);
    // Until the transport takes the POST in, its ids end with its response (a refusal, a client gone).
    let forwarded = false;
    reply.raw.once('close', () => {
      if (!forwarded) claim.release();
    });
    if (!(await this.takeBatchRestIfServed(request, reply, batchRest))) return;
    if (!(await this.takeToolCalls(request, reply))) return;
    // The client left during the takes: its ids are free again (released here too, in case the
    // response closed before the listener above was added; a release is idempotent).
    if (reply.raw.closed) return claim.release();
    forwarded = true;
    releaseIdsOnAnswer(session.transport);
    try {
      return await this.forward(session, request, reply);
    } finally {
      // An id the transport still serves (its client left, its handler runs on) is freed by its answer.
      claim.release((id) => transportServes(session.transport, id));
    }
  }

  /** STORE=redis: a session live in the fleet directory, served by a transport made for this request. */
  private async serveFleetSession(
    fleet: McpFleetSessions,
    id: string,
    request: FastifyRequest,
    reply: FastifyReply,
    batchRest = 0,
  ): Promise<void> {
    // The ids this service issues are UUIDs: anything else is unknown without a trip to Redis.
    if (!FLEET_SESSION_ID.test(id))
      return this.reject(reply, 404, jsonRpcError(RPC_SESSION_NOT_FOUND, 'Session not found'));
    let live: boolean;
    const serving = request.method === 'POST';
    // This POST's own mark in the directory: its end takes off its lease only, not that of another POST of
    // the session still served (a review of 1.14.1: a quick request's end made a slow read's session idle).
    const served = randomUUID();
    try {
      // A DELETE ends the session for the whole fleet before the answer is written (later requests
      // anywhere get 404), without the touch first: a touch is refused while Redis is out of memory, and
      // a client must still be able to free its slots then. Done here rather than in the SDK's
      // onsessionclosed, whose failure would become the SDK's bare 500.
      // A DELETE the transport will refuse for its MCP-Protocol-Version (400, below) only looks the
      // session up: a probe found such a 400 had ended it on a fleet, while one instance kept it.
      const ending = request.method === 'DELETE' && unsupportedSessionedVersion(request) === undefined;
      // A POST marks its session as serving until its response ends (then used from that moment): a
      // reclaim by a full cap took the slot of a session in a slow read, and its next request got 404.
      live = ending
        ? await fleet.remove(id)
        : serving
          ? await fleet.serve(id, served)
          : await fleet.touch(id);
      if (live && serving) {
        // Its connection's close ends it too: the response of a POST pipelined behind another's answer
        // has no socket until that answer is sent, and never emits 'close' when the connection goes first
        // (a review: POSTs pipelined behind a slow read, their connection reset, kept their leases 2 min).
        const socket = request.raw.socket;
        let over = false;
        const ended = () => {
          if (over) return;
          over = true;
          reply.raw.off('close', ended);
          onSocketClose.get(socket)?.delete(ended);
          void fleet.served(id, served).catch(() => undefined);
        };
        // A client gone during the await above closed the response before a listener could hear it:
        // ended now, or the session kept its whole lease (one reset POST held its slot 2 min).
        if (reply.raw.closed || socket.destroyed) ended();
        else {
          reply.raw.once('close', ended);
          whenSocketCloses(socket, ended);
        }
      }
    } catch {
      // A `serve` that timed out may still run in Redis: its end queued behind it takes its lease off
      // again (else the session stayed marked serving for the whole lease, by a request answered 503).
      if (serving) void fleet.served(id, served).catch(() => undefined);
      return this.reject(
        reply,
        503,
        jsonRpcError(RPC_TRANSPORT_ERROR, 'MCP session store unavailable; retry later'),
      );
    }
    if (!live) return this.reject(reply, 404, jsonRpcError(RPC_SESSION_NOT_FOUND, 'Session not found'));
    // No server-to-client stream on a fleet session: nothing is ever sent on it (the tools hold no
    // state), and a stream held by one instance would outlive a DELETE served by another (150 such
    // streams could stay open on one instance after the session ended). MCP lets a server answer 405.
    if (request.method === 'GET') {
      reply.header('allow', 'POST, DELETE');
      return this.reject(
        reply,
        405,
        jsonRpcError(
          RPC_TRANSPORT_ERROR,
          'Method Not Allowed: this server offers no SSE stream on a fleet session',
        ),
      );
    }
    if (request.method === 'POST' && !sessionedTransportRefuses(request, true)) {
      if (this.refusedReadBounds(request, reply)) return;
      if (this.answeredInvalidParams(request, reply)) return;
      if (!(await this.takeBatchRestIfServed(request, reply, batchRest))) return;
      if (!(await this.takeToolCalls(request, reply))) return;
    }
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => id });
    adoptInitializedSession(transport, id);
    await this.serveOnce(transport, request, reply);
  }

  /** Connects a fresh server to `transport`, answers this request, and closes both when the response ends. */
  private async serveOnce(
    transport: StreamableHTTPServerTransport,
    request: FastifyRequest,
    reply: FastifyReply,
  ): Promise<void> {
    if (this.answeredUnsupportedVersion(request, reply)) return;
    if (this.answeredCancellationsOnly(request, reply)) return;
    const server = this.createServer();
    reply.raw.once('close', () => {
      void transport.close().catch(() => undefined);
      void server.close().catch(() => undefined);
    });
    await server.connect(transport);
    this.hijack(request, reply);
    await transport.handleRequest(request.raw, reply.raw, request.body);
  }

  private async forward(session: McpSession, request: FastifyRequest, reply: FastifyReply): Promise<void> {
    if (this.answeredUnsupportedVersion(request, reply)) return;
    if (this.answeredCancellationsOnly(request, reply)) return;
    this.hijack(request, reply);
    await session.transport.handleRequest(request.raw, reply.raw, request.body);
  }

  /**
   * The transport's own 400 for an MCP-Protocol-Version it does not serve, in its words, but with the
   * header quoted printable and bounded: it quoted it whole (a probe: 8 KB headers with C1 controls came
   * back raw). An initialize is not checked (the version is negotiated in its body), as in the transport.
   */
  private answeredUnsupportedVersion(request: FastifyRequest, reply: FastifyReply): boolean {
    const version = unsupportedSessionedVersion(request);
    if (version === undefined) return false;
    this.reject(
      reply,
      400,
      jsonRpcError(
        RPC_TRANSPORT_ERROR,
        `Bad Request: Unsupported protocol version: ${printableText(version, 64)} (supported versions: ${SESSIONED_PROTOCOL_VERSIONS.join(', ')})`,
      ),
    );
    return true;
  }

  /** A POST of a session that held only cancellations (`withoutCancellations`) is answered 202, as a notification. */
  private answeredCancellationsOnly(request: FastifyRequest, reply: FastifyReply): boolean {
    if (request.method !== 'POST' || request.body !== undefined) return false;
    void reply.code(202).send();
    return true;
  }

  /**
   * Hands the raw response to a v1 transport. Fastify's own headers are not written on that path, so
   * the correlation id is set on the raw response (the transport's writeHead keeps it), and the
   * request is logged here with its id.
   */
  private hijack(request: FastifyRequest, reply: FastifyReply): void {
    reply.hijack();
    reply.raw.setHeader('x-request-id', request.id);
    // Kept unless the transport names its own (its event streams say no-cache).
    reply.raw.setHeader('cache-control', MCP_CACHE_CONTROL);
    // Fastify's headers are not written on this path, and the SDK writes keep-alive: the drain's or the
    // client's `Connection: close` is forced on the raw response (else MCP answers say keep-alive).
    if (mustCloseConnection(reply.getHeader('connection'), reply.raw)) forceConnectionClose(reply.raw);
    request.log.debug(
      {
        mcpEra: 'sessioned',
        rpcMethod: rpcMethodOf(request.body),
        hasSession: sessionIdOf(request) !== undefined,
      },
      'mcp request',
    );
  }

  /**
   * A request whose params break its method's schema is answered -32602 here (HTTP 200, as the SDKs
   * answer a request's own errors), with a one-line message (mcp-request-params.ts). On a session, an
   * `initialize` that could not start one is answered as without a session (HTTP 400): the SDK checks
   * its params before saying the session is initialized, and answered bad ones -32603 with the
   * validator's dump (a probe).
   */
  private answeredInvalidParams(
    request: FastifyRequest,
    reply: FastifyReply,
    options: { envelopeRequired?: boolean } = {},
  ): boolean {
    const badInitialize = options.envelopeRequired ? null : invalidInitializeAnswer(request.body);
    if (badInitialize) {
      this.reject(reply, 400, badInitialize);
      return true;
    }
    const answer = invalidParamsAnswer(request.body, options);
    if (answer) this.reject(reply, 200, answer);
    return answer !== null;
  }

  private reject(reply: FastifyReply, status: number, body: JsonRpcErrorBody): void {
    void reply
      .code(status)
      .header('content-type', 'application/json')
      .header('cache-control', MCP_CACHE_CONTROL)
      .send(body);
  }

  /** A request id another POST of this local session still waits on (mcp-request-ids.ts). */
  private refuseIdInUse(reply: FastifyReply, id: string | number): void {
    this.reject(
      reply,
      409,
      // id null: an error carrying the id would read, to the client, as the other request's answer.
      jsonRpcError(
        RPC_INVALID_REQUEST,
        `Invalid Request: id ${JSON.stringify(id)} belongs to a request of this session still in progress; use another id`,
      ),
    );
  }

  /** Like every 429 (docs/protocol.md §5): Retry-After, and the connection closed. */
  private tooMany(reply: FastifyReply, retryAfterMs: number, body: JsonRpcErrorBody): void {
    reply.header('retry-after', String(Math.max(1, Math.ceil(retryAfterMs / 1000))));
    reply.header('connection', 'close');
    this.reject(reply, 429, body);
  }
}

const FLEET_SESSION_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * Marks a fresh v1 transport as already initialized for session `id` (initialized on some instance of
 * the fleet), so that it checks Mcp-Session-Id against `id` and serves the request. The v1 SDK has no
 * public way to resume a session on a new transport; these two fields are what its initialize sets.
 */
function adoptInitializedSession(transport: StreamableHTTPServerTransport, id: string): void {
  const inner = (
    transport as unknown as { _webStandardTransport?: { sessionId?: string; _initialized?: boolean } }
  )._webStandardTransport;
  if (!inner || inner._initialized !== false) throw new Error('unexpected MCP SDK transport internals');
  inner.sessionId = id;
  inner._initialized = true;
}
