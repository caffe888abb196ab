/**
 * @module errors/error-catalogue
 * The one list of machine codes this service can answer with: HTTP status and a client-safe default
 * message for each. The HTTP app, the OpenAPI document and the client library all read it from here.
 * Codes are stable wire contracts: never rename one; add a new one instead. An area may keep its
 * codes beside its code (HOLA verification: `verify/verify.errors`); they are gathered here.
 */
import { VERIFY_ERRORS } from '../verify/verify.errors.js';

export interface ErrorDescriptor {
  /** HTTP status the code is answered with (client-side codes use the status the client should treat it as). */
  readonly status: number;
  /** Client-safe default message; never upstream exception text. */
  readonly message: string;
  /** Raised by the client library, never returned by the server. */
  readonly clientSide?: boolean;
}

const entry = (status: number, message: string, clientSide?: boolean): ErrorDescriptor =>
  clientSide ? { status, message, clientSide } : { status, message };

export const ERROR_CATALOGUE = {
  // Transport and cross-cutting HTTP rules (spec: Errors; docs/protocol.md §5, §7)
  REQUEST_HEADER_TOO_LARGE: entry(400, 'Request headers or payload exceed the size limits.'),
  INVALID_JSON: entry(400, 'The request body is not valid JSON.'),
  VALIDATION_FAILED: entry(400, 'The request does not match the expected shape.'),
  INVALID_QUERY_PARAMETER: entry(400, 'A query parameter is missing or out of range.'),
  INVALID_TOKEN_ID: entry(400, 'The token id must be 12 lowercase letters.'),
  INVALID_URL: entry(400, 'The request path is not a valid URL (malformed percent-encoding).'),
  HOST_HEADER_REQUIRED: entry(400, 'HTTP/1.1 requests must carry a Host header.'),
  ENDPOINT_NOT_FOUND: entry(404, 'No endpoint matches this path. See the documentation links.'),
  METHOD_NOT_ALLOWED: entry(405, 'This method is not allowed on this path.'),
  REQUEST_TIMEOUT: entry(408, 'The request did not arrive whole in time; the connection is closed.'),
  ENDPOINT_REMOVED: entry(410, 'This endpoint has been removed.'),
  URI_TOO_LONG: entry(414, 'A path parameter exceeds the length limit.'),
  UNSUPPORTED_MEDIA_TYPE: entry(415, 'Request bodies must be sent as application/json.'),
  EXPECTATION_FAILED: entry(417, 'Only the Expect value 100-continue is supported.'),
  RATE_LIMIT_EXCEEDED: entry(429, 'Rate limit exceeded. Retry after the time given in Retry-After.'),
  INTERNAL_ERROR: entry(500, 'An internal error occurred.'),
  UPSTREAM_UNAVAILABLE: entry(502, 'The gateway could not reach the application.'),
  SERVICE_UNAVAILABLE: entry(503, 'The service is temporarily unavailable.'),
  AUTH_SERVICE_UNAVAILABLE: entry(503, 'The authentication service is not available on this instance.'),

  // Documents and discovery
  OPENAPI_LOAD_FAILED: entry(500, 'The OpenAPI document could not be loaded.'),
  CONCIERGE_CONFIG_FAILED: entry(500, 'The concierge trust anchor is not configured correctly.'),

  // Login request validation (400), in the order they are checked (docs/protocol.md §3)
  LOGIN_PAYLOAD_DEPRECATED: entry(400, 'The login payload uses deprecated keys or two signature fields.'),
  LOGIN_IDENTIFIER_AMBIGUOUS: entry(400, 'Send exactly one of accountid or passportid.'),
  MISSING_LOGIN_IDENTIFIER: entry(400, 'Send one of accountid or passportid.'),
  LOGIN_TIMESTAMP_AMBIGUOUS: entry(400, 'Send exactly one of timestamp or timestamp_iso.'),
  INVALID_LOGIN_TIMESTAMP: entry(400, 'The login timestamp is missing or malformed.'),
  MISSING_BASE64URL_SIGNATURE: entry(400, 'The login signature is missing.'),

  // Login credential verification (401), in the order they are checked (docs/protocol.md §3)
  LOGIN_CHALLENGE_TIMESTAMP_INVALID: entry(401, 'The login challenge timestamp was rejected. Fetch a new challenge.'),
  PASSPORT_NOT_FOUND: entry(401, 'No on-chain passport exists for this identifier.'),
  PASSPORT_MISSING_METADATA: entry(401, 'The passport lacks required metadata.'),
  LOGIN_BASE64URL_SIGNATURE_INVALID: entry(401, 'The signature does not verify over the identifier and timestamp_iso.'),
  SERVER_CONFIG_INCOMPLETE: entry(401, 'The server passport configuration is incomplete.'),
  PASSPORT_FAMILY_MISMATCH: entry(401, 'The passport belongs to another family than this server.'),
  LOGIN_MODE_POLICY_REJECTED: entry(401, 'The login mode of this server rejects this passport.'),
  PASSPORT_NOT_LIVE: entry(401, 'The passport is outside its not_before / not_after window.'),
  PASSPORT_REVOKED: entry(401, 'The passport has been revoked.'),
  SMART_CONTRACT_NOT_TRUSTED: entry(401, 'The passport was issued by a contract this server does not trust.'),
  LOGIN_ERROR: entry(401, 'Login failed unexpectedly.'),
  INVALID_CREDENTIALS: entry(401, 'Invalid credentials.'),
  AGENT_AUTH_PARAMS_FAILED: entry(500, 'The login challenge could not be generated.'),

  // Bearer tier (spec: Bearer validation failures) and privileged tier
  MISSING_TOKEN: entry(401, 'Authorization: Bearer <jwt_token> is required.'),
  INVALIDATED_TOKEN: entry(401, 'The bearer token is invalid, expired or its session is closed. Log in again.'),
  PERMISSION_DENIED: entry(403, 'This passport is not permitted to call this route.'),

  // Nonce and identity
  AGENT_DISCOVERY_FAILED: entry(500, 'The HOLA nonce could not be issued.'),
  IDENTITY_SUB_MISSING: entry(400, 'The token subject is missing or unparsable.'),
  IDENTITY_NOT_FOUND: entry(404, 'No passport exists for this token id.'),
  IDENTITY_LOOKUP_FAILED: entry(500, 'The identity could not be looked up.'),
  AGENTS_RETRIEVE_FAILED: entry(500, 'The passport holders could not be listed.'),
  TOKEN_NOT_FOUND: entry(404, 'No passport exists for this token id.'),

  // HOLA verification, the single-use record, the delegation check
  ...VERIFY_ERRORS,

  // DID
  INVALID_DID: entry(400, 'The DID or its token identifier is invalid.'),
  DID_NOT_FOUND: entry(404, 'No passport exists for this DID.'),
  DID_RESOLUTION_FAILED: entry(500, 'The DID could not be resolved.'),

  // Minting
  SIGNCLIENT_FAILED: entry(500, 'The minting request could not be signed.'),
  SIGNCLIENT_FEE_MISMATCH: entry(400, 'The client minting fee differs from the server fee.'),
  SIGNCLIENT_INVALID_REQUEST: entry(400, 'The minting request is malformed or lacks a value the fee depends on.'),

  // MCP
  MCP_TRANSPORT_SESSION_REQUIRED: entry(400, 'GET /mcp needs an Mcp-Session-Id from an initialize request.'),
  MCP_LIST_FAILED: entry(500, 'The MCP resources could not be listed.'),
  MCP_RESOURCE_NOT_FOUND: entry(404, 'No MCP resource has this URI.'),
  MCP_RESOURCE_FAILED: entry(500, 'The MCP resource could not be read.'),

  // Sessions and metrics (privileged)
  SESSION_NOT_FOUND: entry(404, 'No session has this id.'),
  SESSIONS_RETRIEVE_FAILED: entry(500, 'The sessions could not be retrieved.'),
  SESSION_CLEANUP_FAILED: entry(500, 'The expired sessions could not be cleaned up.'),
  SESSION_TERMINATION_FAILED: entry(500, 'The session could not be terminated.'),
  SESSION_CAPACITY_REACHED: entry(503, 'The service holds as many open sessions as it allows. Retry later.'),
  METRICS_FAILED: entry(500, 'The metrics could not be collected.'),

  // Webhooks (receiver side)
  WEBHOOK_SIGNATURE_INVALID: entry(401, 'The webhook signature, key or timestamp is invalid.'),

  // Client-side federation and server-passport checks (client library; never sent by the server)
  FEDERATED_ISSUER_MISSING: entry(401, 'The federated token carries no issuer.', true),
  FEDERATED_ISSUER_MISMATCH: entry(401, 'The federated token was issued for another API.', true),
  SERVER_PASSPORT_FAMILY_MISMATCH: entry(401, 'The server passport belongs to another family.', true),
  SERVER_PASSPORT_NOT_LIVE: entry(401, 'The server passport is not live.', true),
  SERVER_PASSPORT_REVOKED: entry(401, 'The server passport has been revoked.', true),
  SERVER_SMART_CONTRACT_NOT_TRUSTED: entry(401, 'The server passport was issued by an untrusted contract.', true),
  SERVER_TOKEN_IDENTITY_MISMATCH: entry(401, 'The token was not signed by the expected server passport.', true),
} as const satisfies Record<string, ErrorDescriptor>;

export type CatalogueCode = keyof typeof ERROR_CATALOGUE;

/**
 * Codes with a dynamic suffix (spec: `LOGIN_MODE_POLICY_REJECTED_*`; docs/protocol.md §4:
 * `ISAUTHORIZEDSIGNER_<FIELD>_<PROBLEM>`). They share the descriptor of their prefix entry.
 */
export const DYNAMIC_CODE_PREFIXES = ['LOGIN_MODE_POLICY_REJECTED', 'ISAUTHORIZEDSIGNER'] as const;

/** Any code the service can emit: a catalogue code or a dynamic code built on one of the prefixes. */
export type ErrorCode = CatalogueCode | `${(typeof DYNAMIC_CODE_PREFIXES)[number]}_${string}`;

const CODE_PATTERN = /^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*$/;

/** The descriptor of a code, dynamic suffixes included; undefined for codes not in the catalogue. */
export function describeError(code: string): ErrorDescriptor | undefined {
  if (Object.prototype.hasOwnProperty.call(ERROR_CATALOGUE, code)) {
    return ERROR_CATALOGUE[code as CatalogueCode];
  }
  if (!CODE_PATTERN.test(code)) return undefined;
  const prefix = DYNAMIC_CODE_PREFIXES.find((p) => code.startsWith(`${p}_`));
  return prefix ? ERROR_CATALOGUE[prefix] : undefined;
}
