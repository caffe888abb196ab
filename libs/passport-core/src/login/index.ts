/**
 * @module @passport/core/login
 * Login: request validation, credential verification, login modes, JWT claims, session ids (ULID),
 * privileged routes, and a client's checks of a federated token and of the server passport.
 */

// Login requests and credentials
export {
  isChallengeTimestampIso,
  validateLoginRequest,
  type LoginIdentifierKind,
  type LoginRequest,
} from './login-request.validator.js';
export {
  buildLoginRequest,
  type BuildLoginRequestParams,
  type LoginIdentity,
  type LoginRequestBody,
} from './login-request.builder.js';
export {
  challengeAlreadyUsed,
  loginChallengeKey,
  createLoginVerifier,
  type CheckedLogin,
  LOGIN_CHALLENGE_MAX_AGE_MS,
  LOGIN_CHALLENGE_MAX_FUTURE_MS,
  type LoginFederation,
  type LoginServerConfig,
  type LoginVerification,
  type LoginVerifier,
  type LoginVerifierDeps,
} from './login-credentials.verifier.js';
export { sequentialLoginRecorder } from './login-recorder.js';
export { LOGIN_MODES, isLoginMode, type LoginMode, type LoginRelation } from './login-mode.js';

// JWT claims and session ids
export {
  buildJwtClaims,
  newJwtId,
  positiveIntegerClaim,
  tokenIdFromSubject,
  JWT_DEFAULT_LIFETIME_SECONDS,
  SESSION_STATUS_RENEWED,
  type BuildJwtClaimsParams,
  type BuiltJwtClaims,
  type PassportJwtClaims,
} from './jwt-claims.js';
export {
  loginTokenBytes,
  sessionTokenBytes,
  MAX_LOGIN_TOKEN_BYTES,
  type LoginTokenBytesParams,
} from './jwt-size.js';
export { ulid, ulidTimeMs, ULID_PATTERN, type RandomBytes } from './ulid.js';

// Privileged routes
export {
  isExactRoutePath,
  isRouteAllowed,
  isRouteGranted,
  parsePermissionedRoutes,
  PRIVILEGED_ROUTE_ALIASES,
  type RouteGrantSources,
} from '../auth/permissioned-routes.js';

// Federation: a client's checks
export {
  checkFederatedClaims,
  checkServerPassport,
  isFederatedToken,
  type DecodedJwt,
  type ServerPassportCheckParams,
} from '../federation/federated-token.checks.js';
export { isHttpUrl, normalizeApiUrl, normalizedBaseUrl, sameApiUrl } from '../federation/api-url.js';

// Token renewal within a session, and the client that follows it
export {
  isRenewalDue,
  renewTokenClaims,
  terminationTokenClaims,
  RENEWAL_LIFETIME_FACTOR,
  RENEWAL_WINDOW_DIVISOR,
  TERMINATION_TOKEN_SECONDS,
  type RenewableClaims,
  type RenewTokenParams,
  type RenewedToken,
  type TerminationTokenParams,
} from './jwt-renewal.js';
export {
  createRenewingFetch,
  NEW_TOKEN_HEADER,
  type RenewingFetch,
  type RenewingFetchOptions,
} from '../client/renewing-fetch.js';
