/**
 * @module verify/verify.errors
 * The error codes of HOLA verification, the single-use record, the delegation check and the HOLA nonce,
 * with each one's client-safe default message. Part of the error catalogue (`errors/error-catalogue`),
 * which gathers every area's codes; stable wire contracts.
 */
import { type AreaErrors } from '../errors/area-errors.js';

export const VERIFY_ERRORS = {
  HOLA_VALIDATION_FAILED: { message: 'The HOLA line failed validation.' },
  HOLA_TIMESTAMP_INVALID: { message: 'The HOLA timestamp is stale or in the future.' },
  HOLA_SIGNATURE_INVALID: { message: 'The HOLA signature could not be verified.' },
  INVALID_CONSTRAINTS: { message: 'constraints.maxAgeMs must be an integer from 1 to 86400000.' },
  INVALID_VERIFY_OPTION: { message: 'includeProfile must be a boolean and expectedRecipient a string.' },
  VERIFY_FAILED: { message: 'The verification could not be completed.' },
  REPLAY_QUOTA_EXCEEDED: {
    message: 'This sender has too many unexpired single-use records; retry when older lines expire.',
  },
  REPLAY_STORE_FULL: {
    message: 'The single-use record store is full; the line was not accepted. Retry later.',
  },
  REPLAY_STORE_UNAVAILABLE: {
    message: 'The single-use record store is unavailable; the line was not accepted.',
  },
  /** Prefix of the dynamic `ISAUTHORIZEDSIGNER_<FIELD>_<PROBLEM>` codes. */
  ISAUTHORIZEDSIGNER: { message: 'The delegation check request is invalid.' },
  AGENT_DISCOVERY_FAILED: { message: 'The HOLA nonce could not be issued.' },
} as const satisfies AreaErrors;
