/** @module signclient/signclient.errors The codes of minting requests (fee check, family signing). Stable wire contracts. */
import { type AreaErrors } from '../errors/area-errors.js';

export const SIGNCLIENT_ERRORS = {
  SIGNCLIENT_FAILED: { message: 'The minting request could not be signed.' },
  SIGNCLIENT_FEE_MISMATCH: { message: 'The client minting fee differs from the server fee.' },
  SIGNCLIENT_INVALID_REQUEST: {
    message: 'The minting request is malformed or lacks a value the fee depends on.',
  },
  SIGNCLIENT_TOKEN_EXISTS: {
    message: 'A passport with this token id exists already: metadata is signed for new passports only.',
  },
} as const satisfies AreaErrors;
