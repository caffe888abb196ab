/**
 * @module verify/verify-hola.hints
 * The one line telling a sender how to fix each failed verification, for the 200 body's
 * `failureDetails` of `POST /api/identity/verify` and for the 400 details of `POST /api/testhola`.
 */
import { type VerifyFailureReason } from './verify-hola.types.js';

export const VERIFY_FAILURE_HINTS: Readonly<Record<VerifyFailureReason, string>> = Object.freeze({
  checksum_invalid: 'Recompute the checksum letter over the line as sent.',
  timestamp_stale_or_future:
    'Build a new line from a fresh GET /api/holanonce16ts; check the sender clock if it keeps failing.',
  nonce_replay: 'This line was already accepted once; build a new line with a new nonce.',
  token_missing: 'No passport has this token id; check the sender token id in the line.',
  token_expired: 'The passport is outside its not_before / not_after window or revoked.',
  signature_invalid:
    'Sign the UTF-8 of the uppercased line up to and including /<HOST>/ (an empty recipient signed as MUNDO) with the key of the passport owner.',
  public_key_unavailable: 'The passport owner has no Ed25519 key on chain to check the signature with.',
  public_key_error: 'The chain could not be read to check the signature; retry shortly.',
});

/**
 * `/api/testhola` tests the caller's own outbound line, so its two token hints speak of "the sender"
 * of that line; the others are the verify hints.
 */
export const TESTHOLA_FAILURE_HINTS: Readonly<Record<VerifyFailureReason, string>> = Object.freeze({
  ...VERIFY_FAILURE_HINTS,
  token_missing: 'No passport has the sender token id of this line.',
  token_expired: 'The sender passport is outside its not_before / not_after window or revoked.',
});
