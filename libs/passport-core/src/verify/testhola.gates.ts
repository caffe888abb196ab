/**
 * @module verify/testhola.gates
 * `POST /api/testhola` (docs/protocol.md §4) is the caller's self-test of an outbound HOLA line: the same
 * verification as `/api/identity/verify`, but a failed line is an error, not a 200 body. The verdict
 * passes these gates in pipeline order and the first that fails is the error:
 *
 *   1. format, lint, checksum → 400 HOLA_VALIDATION_FAILED (thrown by the verification itself)
 *   2. freshness              → 400 HOLA_TIMESTAMP_INVALID (stage timestamp_freshness_validation,
 *                               ageSeconds, maxAgeSeconds)
 *   3. token and signature    → 400 HOLA_SIGNATURE_INVALID (stage signature_verification; reasonCode
 *                               token_missing | token_expired | signature_invalid | public_key_unavailable,
 *                               the first in the spec's order)
 *   4. single use             → 400 HOLA_VALIDATION_FAILED (reasonCode nonce_replay, stage nonce_replay_validation)
 *
 * A chain failure is not the sender's fault: 500 VERIFY_FAILED, never a 400 verdict.
 */
import { PassportError } from '../errors/passport.error.js';
import { TESTHOLA_FAILURE_HINTS } from './verify-hola.hints.js';
import { type VerifyFailureReason, type VerifyHolaResult } from './verify-hola.types.js';

/** Signature-stage reason codes, in the order they are reported. */
const SIGNATURE_GATE: readonly VerifyFailureReason[] = [
  'token_missing',
  'token_expired',
  'signature_invalid',
  'public_key_unavailable',
];

/** The error of the first gate the verification failed; null when it verified. */
export function testHolaGateError({ body, facts }: VerifyHolaResult): PassportError | null {
  if (body.verified) return null;
  const reasons = body.failureReasons;
  if (reasons.includes('timestamp_stale_or_future')) {
    const maxAgeSeconds = Math.floor(facts.maxAgeMs / 1000);
    return new PassportError(
      'HOLA_TIMESTAMP_INVALID',
      {
        reasonCode: 'timestamp_stale_or_future',
        stage: 'timestamp_freshness_validation',
        hint: TESTHOLA_FAILURE_HINTS.timestamp_stale_or_future,
        ageSeconds: facts.ageSeconds,
        maxAgeSeconds,
        holaTimestamp: facts.parsed.timestamp,
      },
      facts.ageSeconds < 0
        ? `The HOLA timestamp is ${-facts.ageSeconds} s in the future.`
        : `The HOLA timestamp is ${facts.ageSeconds} s old; at most ${maxAgeSeconds} s are accepted.`,
    );
  }
  if (reasons.includes('public_key_error') || facts.chainError) {
    return new PassportError('VERIFY_FAILED', { reason: 'chain_unavailable' });
  }
  const signatureReason = SIGNATURE_GATE.find((reason) => reasons.includes(reason));
  if (signatureReason) {
    return new PassportError('HOLA_SIGNATURE_INVALID', {
      reasonCode: signatureReason,
      stage: 'signature_verification',
      hint: TESTHOLA_FAILURE_HINTS[signatureReason],
      peerTokenId: body.peerTokenId,
    });
  }
  // What is left of the reasons after the gates above is nonce_replay (reported alone: the nonce is
  // only recorded when everything else passed).
  return new PassportError(
    'HOLA_VALIDATION_FAILED',
    {
      reasonCode: 'nonce_replay',
      stage: 'nonce_replay_validation',
      hint: TESTHOLA_FAILURE_HINTS.nonce_replay,
      ...body.nonceReplayDetails,
    },
    'The nonce of this HOLA line was already used.',
  );
}
