/**
 * The codes the HTTP app owns: they describe its own layers (HTTP transport rules, the gateway in front
 * of it, the MCP surface, the OpenAPI document, the concierge configuration), which the domain core
 * knows nothing of. Each with its client-safe default message; stable wire contracts like the core's.
 */
import { type AreaErrors } from '@passport/core/errors';

export const APP_ERROR_CATALOGUE = {
  // HTTP transport rules (docs/protocol.md §5, §7)
  REQUEST_HEADER_TOO_LARGE: { message: 'Request headers or payload exceed the size limits.' },
  INVALID_JSON: { message: 'The request body is not valid JSON.' },
  INVALID_URL: { message: 'The request path is not a valid URL (malformed percent-encoding).' },
  HOST_HEADER_REQUIRED: { message: 'HTTP/1.1 requests must carry exactly one Host header.' },
  ENDPOINT_NOT_FOUND: { message: 'No endpoint matches this path. See the documentation links.' },
  METHOD_NOT_ALLOWED: { message: 'This method is not allowed on this path.' },
  REQUEST_TIMEOUT: { message: 'The request did not arrive whole in time; the connection is closed.' },
  ENDPOINT_REMOVED: { message: 'This endpoint has been removed.' },
  URI_TOO_LONG: { message: 'A path parameter exceeds the length limit.' },
  UNSUPPORTED_MEDIA_TYPE: { message: 'Request bodies must be sent as application/json.' },
  EXPECTATION_FAILED: { message: 'Only the Expect value 100-continue is supported.' },

  // The edge gateway (docker/: nginx answers it when no instance is reachable)
  UPSTREAM_UNAVAILABLE: { message: 'The gateway could not reach the application.' },

  // Documents and discovery
  OPENAPI_LOAD_FAILED: { message: 'The OpenAPI document could not be loaded.' },
  CONCIERGE_CONFIG_FAILED: { message: 'The concierge trust anchor is not configured correctly.' },

  // MCP
  MCP_TRANSPORT_SESSION_REQUIRED: { message: 'GET /mcp needs an Mcp-Session-Id from an initialize request.' },
  MCP_LIST_FAILED: { message: 'The MCP resources could not be listed.' },
  MCP_RESOURCE_NOT_FOUND: { message: 'No MCP resource has this URI.' },
  MCP_RESOURCE_FAILED: { message: 'The MCP resource could not be read.' },
} as const satisfies AreaErrors;

export type AppCatalogueCode = keyof typeof APP_ERROR_CATALOGUE;
