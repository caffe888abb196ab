/**
 * @module login/login.errors
 * The codes of login (docs/protocol.md §3): request validation, then credential verification, each
 * group in the order the checks run, and the challenge. Stable wire contracts.
 */
import { type AreaErrors } from '../errors/area-errors.js';

export const LOGIN_ERRORS = {
  // Request validation, in the order checked
  LOGIN_PAYLOAD_DEPRECATED: { message: 'The login payload uses deprecated keys or two signature fields.' },
  LOGIN_IDENTIFIER_AMBIGUOUS: { message: 'Send exactly one of accountid or passportid.' },
  MISSING_LOGIN_IDENTIFIER: { message: 'Send one of accountid or passportid.' },
  LOGIN_TIMESTAMP_AMBIGUOUS: { message: 'Send exactly one of timestamp or timestamp_iso.' },
  INVALID_LOGIN_TIMESTAMP: { message: 'The login timestamp is missing or malformed.' },
  MISSING_BASE64URL_SIGNATURE: { message: 'The login signature is missing.' },

  // Credential verification, in the order checked
  LOGIN_CHALLENGE_TIMESTAMP_INVALID: {
    message:
      'The login challenge timestamp was rejected: too old, too far ahead or already used (details.reason says which).',
  },
  PASSPORT_NOT_FOUND: { message: 'No on-chain passport exists for this identifier.' },
  PASSPORT_MISSING_METADATA: { message: 'The passport lacks required metadata.' },
  SERVER_PASSPORT_LOGIN_REFUSED: {
    message:
      "This server's own passport does not log in here: every token the server issues carries a signature with the bytes of its login.",
  },
  LOGIN_BASE64URL_SIGNATURE_INVALID: {
    message: 'The signature does not verify over the identifier and timestamp_iso.',
  },
  SERVER_CONFIG_INCOMPLETE: { message: 'The server passport configuration is incomplete.' },
  PASSPORT_FAMILY_MISMATCH: { message: 'The passport belongs to another family than this server.' },
  /** Also the prefix of the dynamic `LOGIN_MODE_POLICY_REJECTED_*` codes. */
  LOGIN_MODE_POLICY_REJECTED: { message: 'The login mode of this server rejects this passport.' },
  PASSPORT_NOT_LIVE: { message: 'The passport is outside its not_before / not_after window.' },
  PASSPORT_REVOKED: { message: 'The passport has been revoked.' },
  PASSPORT_METADATA_TOO_LARGE: {
    message: 'The passport metadata would make a token larger than a request may carry (8 KiB).',
  },
  SMART_CONTRACT_NOT_TRUSTED: {
    message: 'The passport was issued by a contract this server does not trust.',
  },
  LOGIN_ERROR: { message: 'Login failed unexpectedly.' },
  INVALID_CREDENTIALS: { message: 'Invalid credentials.' },

  // The challenge
  AGENT_AUTH_PARAMS_FAILED: { message: 'The login challenge could not be generated.' },
} as const satisfies AreaErrors;
