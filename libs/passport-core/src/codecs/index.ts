/**
 * @module @passport/core/codecs
 * Byte codecs (base32, base64url, base58, hex, UTF-8) and NEAR implicit account ids.
 */

// Codecs
export { encodeBase32, decodeBase32, isBase32 } from './base32.codec.js';
export { encodeBase64Url, decodeBase64Url } from './base64url.codec.js';
export { encodeBase58, decodeBase58 } from './base58.codec.js';
export { encodeHex, decodeHex } from './hex.codec.js';
export { utf8, fromUtf8, bytesEqual, concatBytes } from './utf8.codec.js';
export { hasUnprintable, printableText } from './printable-text.js';
export { urlForMessage } from './url-for-message.js';
export { withoutTrailing } from './trailing.js';

// NEAR implicit accounts
export { implicitAccountId, isImplicitAccountId, publicKeyOfImplicitAccount } from './account-id.js';
