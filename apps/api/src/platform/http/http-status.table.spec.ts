/**
 * The code → HTTP status table, pinned: every code answers with exactly the status it had when the
 * statuses lived in the core's catalogue (the rows below are those values, copied when they moved), and a
 * new code adds its row here too, so that a status changes only on purpose.
 * The served OpenAPI document lists each code under this status (test/contract/openapi-document.spec.ts).
 */
import { ERROR_CATALOGUE, PassportError } from '@passport/core/errors';
import { APP_ERROR_CATALOGUE } from './app-error.catalogue.js';
import { AppError, describeAnyError } from './app.error.js';
import { HTTP_STATUS, httpStatusOf, httpStatusOfError } from './http-status.table.js';

const PINNED: Record<string, number> = {
  REQUEST_HEADER_TOO_LARGE: 400,
  INVALID_JSON: 400,
  VALIDATION_FAILED: 400,
  INVALID_QUERY_PARAMETER: 400,
  INVALID_TOKEN_ID: 400,
  INVALID_URL: 400,
  HOST_HEADER_REQUIRED: 400,
  ENDPOINT_NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  REQUEST_TIMEOUT: 408,
  ENDPOINT_REMOVED: 410,
  URI_TOO_LONG: 414,
  UNSUPPORTED_MEDIA_TYPE: 415,
  EXPECTATION_FAILED: 417,
  RATE_LIMIT_EXCEEDED: 429,
  INTERNAL_ERROR: 500,
  UPSTREAM_UNAVAILABLE: 502,
  SERVICE_UNAVAILABLE: 503,
  AUTH_SERVICE_UNAVAILABLE: 503,
  OPENAPI_LOAD_FAILED: 500,
  CONCIERGE_CONFIG_FAILED: 500,
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
  MCP_TRANSPORT_SESSION_REQUIRED: 400,
  MCP_LIST_FAILED: 500,
  MCP_RESOURCE_NOT_FOUND: 404,
  MCP_RESOURCE_FAILED: 500,
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
};

describe('HTTP status table', () => {
  it('maps every code to the status it had before statuses left the core, and has no other rows', () => {
    expect(HTTP_STATUS).toEqual(PINNED);
    expect(Object.keys(HTTP_STATUS).sort()).toEqual(Object.keys(PINNED).sort());
  });

  it('has one row per catalogue code, core and app, and the two catalogues share no code', () => {
    const core = Object.keys(ERROR_CATALOGUE);
    const app = Object.keys(APP_ERROR_CATALOGUE);
    expect(core.filter((c) => app.includes(c))).toEqual([]);
    expect([...core, ...app].sort()).toEqual(Object.keys(HTTP_STATUS).sort());
  });

  it('gives dynamic codes the status of their prefix and unknown codes none', () => {
    expect(httpStatusOf('LOGIN_MODE_POLICY_REJECTED_FAMILY_ONLY')).toBe(401);
    expect(httpStatusOf('ISAUTHORIZEDSIGNER_TOKENID_MISSING')).toBe(400);
    expect(httpStatusOf('ISAUTHORIZEDSIGNER_')).toBeUndefined();
    expect(httpStatusOf('NOT_A_CODE')).toBeUndefined();
    expect(httpStatusOf('toString')).toBeUndefined();
  });

  it("the core refuses the app's codes; AppError takes both with their messages", () => {
    expect(() => new PassportError('INVALID_JSON' as never)).toThrow(/Unknown error code/);
    expect(() => new AppError('NOT_A_CODE' as never)).toThrow(/Unknown error code/);
    const transport = new AppError('INVALID_JSON');
    expect([transport instanceof PassportError, transport.message, httpStatusOfError(transport)]).toEqual([
      true,
      APP_ERROR_CATALOGUE.INVALID_JSON.message,
      400,
    ]);
    const domain = new AppError('INVALIDATED_TOKEN');
    expect([domain.message, httpStatusOfError(domain)]).toEqual([
      ERROR_CATALOGUE.INVALIDATED_TOKEN.message,
      401,
    ]);
    expect(describeAnyError('MCP_RESOURCE_NOT_FOUND')?.message).toBe(
      APP_ERROR_CATALOGUE.MCP_RESOURCE_NOT_FOUND.message,
    );
  });
});
