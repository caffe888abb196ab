/**
 * The HTTP status each code is answered with: the one place statuses are decided (the core's catalogue
 * holds codes and messages only). Client-side codes (raised by the client library, never sent) carry the
 * status a client should treat them as. `satisfies` makes the compiler insist on every code, core and app,
 * having exactly one row; `http-status.table.spec.ts` pins the table, and test/contract checks that the
 * served OpenAPI document lists every code under its status.
 */
import { catalogueCodeOf, type CatalogueCode } from '@passport/core/errors';
import { type AppCatalogueCode } from './app-error.catalogue.js';
import { isAppCatalogueCode } from './app.error.js';

export const HTTP_STATUS = {
  // The core's codes
  VALIDATION_FAILED: 400,
  INVALID_QUERY_PARAMETER: 400,
  INVALID_TOKEN_ID: 400,
  RATE_LIMIT_EXCEEDED: 429,
  INTERNAL_ERROR: 500,
  SERVICE_UNAVAILABLE: 503,
  AUTH_SERVICE_UNAVAILABLE: 503,
  LOGIN_PAYLOAD_DEPRECATED: 400,
  LOGIN_IDENTIFIER_AMBIGUOUS: 400,
  MISSING_LOGIN_IDENTIFIER: 400,
  LOGIN_TIMESTAMP_AMBIGUOUS: 400,
  INVALID_LOGIN_TIMESTAMP: 400,
  MISSING_BASE64URL_SIGNATURE: 400,
  LOGIN_CHALLENGE_TIMESTAMP_INVALID: 401,
  PASSPORT_NOT_FOUND: 401,
  PASSPORT_MISSING_METADATA: 401,
  SERVER_PASSPORT_LOGIN_REFUSED: 401,
  LOGIN_BASE64URL_SIGNATURE_INVALID: 401,
  SERVER_CONFIG_INCOMPLETE: 401,
  PASSPORT_FAMILY_MISMATCH: 401,
  LOGIN_MODE_POLICY_REJECTED: 401,
  PASSPORT_NOT_LIVE: 401,
  PASSPORT_METADATA_TOO_LARGE: 401,
  PASSPORT_REVOKED: 401,
  SMART_CONTRACT_NOT_TRUSTED: 401,
  LOGIN_ERROR: 401,
  INVALID_CREDENTIALS: 401,
  AGENT_AUTH_PARAMS_FAILED: 500,
  MISSING_TOKEN: 401,
  INVALIDATED_TOKEN: 401,
  PERMISSION_DENIED: 403,
  AGENT_DISCOVERY_FAILED: 500,
  IDENTITY_SUB_MISSING: 400,
  IDENTITY_NOT_FOUND: 404,
  IDENTITY_LOOKUP_FAILED: 500,
  AGENTS_RETRIEVE_FAILED: 500,
  TOKEN_NOT_FOUND: 404,
  HOLA_VALIDATION_FAILED: 400,
  HOLA_TIMESTAMP_INVALID: 400,
  HOLA_SIGNATURE_INVALID: 400,
  INVALID_CONSTRAINTS: 400,
  INVALID_VERIFY_OPTION: 400,
  VERIFY_FAILED: 500,
  REPLAY_QUOTA_EXCEEDED: 429,
  REPLAY_STORE_FULL: 503,
  REPLAY_STORE_UNAVAILABLE: 503,
  ISAUTHORIZEDSIGNER: 400,
  INVALID_DID: 400,
  DID_NOT_FOUND: 404,
  DID_RESOLUTION_FAILED: 500,
  SIGNCLIENT_FAILED: 500,
  SIGNCLIENT_FEE_MISMATCH: 400,
  SIGNCLIENT_INVALID_REQUEST: 400,
  SIGNCLIENT_TOKEN_EXISTS: 409,
  SESSION_NOT_FOUND: 404,
  SESSIONS_RETRIEVE_FAILED: 500,
  SESSION_CLEANUP_FAILED: 500,
  SESSION_TERMINATION_FAILED: 500,
  SESSION_CAPACITY_REACHED: 503,
  METRICS_FAILED: 500,
  WEBHOOK_SIGNATURE_INVALID: 401,
  FEDERATED_ISSUER_MISSING: 401,
  FEDERATED_ISSUER_MISMATCH: 401,
  SERVER_PASSPORT_FAMILY_MISMATCH: 401,
  SERVER_PASSPORT_NOT_LIVE: 401,
  SERVER_PASSPORT_REVOKED: 401,
  SERVER_SMART_CONTRACT_NOT_TRUSTED: 401,
  SERVER_TOKEN_IDENTITY_MISMATCH: 401,

  // The app's own codes
  REQUEST_HEADER_TOO_LARGE: 400,
  INVALID_JSON: 400,
  INVALID_URL: 400,
  HOST_HEADER_REQUIRED: 400,
  ENDPOINT_NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  REQUEST_TIMEOUT: 408,
  ENDPOINT_REMOVED: 410,
  URI_TOO_LONG: 414,
  UNSUPPORTED_MEDIA_TYPE: 415,
  EXPECTATION_FAILED: 417,
  UPSTREAM_UNAVAILABLE: 502,
  OPENAPI_LOAD_FAILED: 500,
  CONCIERGE_CONFIG_FAILED: 500,
  MCP_TRANSPORT_SESSION_REQUIRED: 400,
  MCP_LIST_FAILED: 500,
  MCP_RESOURCE_NOT_FOUND: 404,
  MCP_RESOURCE_FAILED: 500,
} as const satisfies Record<CatalogueCode | AppCatalogueCode, number>;

/** The status of any code the app answers with, dynamic suffixes included; undefined for unknown codes. */
export function httpStatusOf(code: string): number | undefined {
  if (isAppCatalogueCode(code)) return HTTP_STATUS[code];
  const known = catalogueCodeOf(code);
  return known === undefined ? undefined : HTTP_STATUS[known];
}

/** The status an error is answered with (500 for a code without a row, which the constructor prevents). */
export function httpStatusOfError(error: { readonly code: string }): number {
  return httpStatusOf(error.code) ?? 500;
}
