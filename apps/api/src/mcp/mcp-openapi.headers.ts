/**
 * The MCP transport's headers and body as OpenAPI declares them, so that a client generated from the
 * served document can send and read them (a probe: `POST /mcp` had no request body, so a generated
 * client typed it `never`, and none of these headers was a parameter). `Accept` cannot be declared
 * (OpenAPI 3.0 ignores a header parameter of that name): the operations' descriptions say it.
 */
import { applyDecorators } from '@nestjs/common';
import { ApiBody, ApiHeader } from '@nestjs/swagger';

/** `Mcp-Session-Id` as a request header: required where a session is the point (GET, DELETE). */
export const ApiMcpSessionId = (required: boolean) =>
  ApiHeader({
    name: 'Mcp-Session-Id',
    required,
    description: required
      ? 'The session, as the answer to initialize named it.'
      : 'Sessioned era: the session, as the answer to initialize named it (absent on initialize itself). ' +
        'Stateless era: absent.',
    schema: { type: 'string' },
  });

/** The request headers of a `POST /mcp` besides the session, and its JSON-RPC body. */
export const ApiMcpPostRequest = () =>
  applyDecorators(
    ApiHeader({
      name: 'MCP-Protocol-Version',
      required: false,
      description:
        'The protocol version: required by the stateless era (every request), and sent after initialize in the ' +
        'sessioned era.',
      schema: { type: 'string' },
    }),
    ApiHeader({
      name: 'Mcp-Method',
      required: false,
      description: "Stateless era: the JSON-RPC message's method.",
      schema: { type: 'string' },
    }),
    ApiHeader({
      name: 'Mcp-Name',
      required: false,
      description: 'Stateless era, tools/call and resources/read: the tool name or resource URI.',
      schema: { type: 'string' },
    }),
    ApiBody({
      required: true,
      description: 'One JSON-RPC 2.0 message (request, notification or response), or a batch of them.',
      schema: { oneOf: [{ type: 'object' }, { type: 'array', items: { type: 'object' } }] },
    }),
  );

/** `Mcp-Session-Id` on the answer to a sessioned initialize. */
export const MCP_SESSION_ID_RESPONSE_HEADER = {
  'Mcp-Session-Id': {
    description:
      'On the answer to initialize (sessioned era): the new session, to send on every later request.',
    schema: { type: 'string' },
  },
} as const;
