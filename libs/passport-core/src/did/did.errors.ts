/** @module did/did.errors The codes of DID resolution. Stable wire contracts. */
import { type AreaErrors } from '../errors/area-errors.js';

export const DID_ERRORS = {
  INVALID_DID: { message: 'The DID or its token identifier is invalid.' },
  DID_NOT_FOUND: { message: 'No passport exists for this DID.' },
  DID_RESOLUTION_FAILED: { message: 'The DID could not be resolved.' },
} as const satisfies AreaErrors;
