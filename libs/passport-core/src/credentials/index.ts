/**
 * @module @passport/core/credentials
 * NEAR credential files (`{account_id, public_key, private_key}`) and `ed25519:` key text.
 */

// Credential files and key text
export {
  parseNearCredentials,
  formatNearCredentials,
  nearCredentialsFromSeed,
  isNearAccountId,
  InvalidNearCredentialsError,
  type NearCredentials,
  type NearCredentialsJson,
} from './near-credentials.js';
export { parseNearPublicKey, formatNearPublicKey } from './near-key-text.js';
