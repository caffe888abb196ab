/**
 * @module verify/verify.errors
 * The error codes of HOLA verification, the single-use record and the delegation check, with the
 * HTTP status each is answered with and its client-safe default message. Part of the error catalogue
 * (`errors/error-catalogue`), which gathers every area's codes; stable wire contracts.
 */
export const VERIFY_ERRORS = {
  HOLA_VALIDATION_FAILED: { status: 400, message: 'The HOLA line failed validation.' },
  HOLA_TIMESTAMP_INVALID: { status: 400, message: 'The HOLA timestamp is stale or in the future.' },
  HOLA_SIGNATURE_INVALID: { status: 400, message: 'The HOLA signature could not be verified.' },
  INVALID_CONSTRAINTS: { status: 400, message: 'constraints.maxAgeMs must be an integer from 1 to 86400000.' },
  VERIFY_FAILED: { status: 500, message: 'The verification could not be completed.' },
  REPLAY_QUOTA_EXCEEDED: {
    status: 429,
    message: 'This sender has too many unexpired single-use records; retry when older lines expire.',
  },
  REPLAY_STORE_FULL: {
    status: 503,
    message: 'The single-use record store is full; the line was not accepted. Retry later.',
  },
  REPLAY_STORE_UNAVAILABLE: {
    status: 503,
    message: 'The single-use record store is unavailable; the line was not accepted.',
  },
  /** Prefix of the dynamic `ISAUTHORIZEDSIGNER_<FIELD>_<PROBLEM>` codes. */
  ISAUTHORIZEDSIGNER: { status: 400, message: 'The delegation check request is invalid.' },
} as const;
