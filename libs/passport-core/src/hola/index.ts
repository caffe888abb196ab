/**
 * @module @passport/core/hola
 * HOLA lines: build, parse, checksum, timestamp grammar, and the verification use case.
 */

// Build and parse
export { buildHolaLine, holaSignedPrefix, type BuildHolaParams } from './hola.builder.js';
export { isServiceHostMarker } from './service-host.js';
export { isLineDelegateId } from './delegate-id.js';
export {
  parseHola,
  HOLA_MAX_LENGTH,
  HOLA_DELEGATE_ID_MAX_LENGTH,
  HOLA_PUBLIC_KEY_BASE32_LENGTH,
  HOLA_SIGNATURE_BASE32_LENGTH,
} from './hola.parser.js';
export {
  HOLA_REASON_CODES,
  HOLA_VALIDATION_STAGE,
  type ParsedHola,
  type HolaParseResult,
  type HolaValidationFailure,
  type HolaReasonCode,
} from './hola.types.js';
export { codeUnitSum, holaChecksum, holaChecksumLetter, HOLA_CHECKSUM_ALPHABET } from './hola.checksum.js';
export { parseHolaTimestamp, HOLA_TIMESTAMP_GRAMMAR } from './hola-timestamp.parser.js';

// Verification
export {
  createHolaVerifier,
  holaReplayKey,
  holaQuotaOwner,
  type HolaVerifier,
  type HolaVerifierDeps,
} from '../verify/verify-hola.use-case.js';
export { verifyRequestFromBody, testHolaRequestFromBody } from '../verify/verify-hola-request.validator.js';
export { testHolaGateError } from '../verify/testhola.gates.js';
export { VERIFY_FAILURE_HINTS, TESTHOLA_FAILURE_HINTS } from '../verify/verify-hola.hints.js';
export {
  VERIFY_FAILURE_REASONS,
  DEFAULT_HOLA_MAX_AGE_MS,
  MAX_HOLA_MAX_AGE_MS,
  type VerifyFailureReason,
  type VerifyHolaBody,
  type VerifyHolaChecks,
  type VerifyHolaFacts,
  type VerifyHolaRequest,
  type VerifyHolaResult,
  type VerifyHolaWarning,
} from '../verify/verify-hola.types.js';
