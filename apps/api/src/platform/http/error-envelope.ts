/**
 * The ErrorResponse envelope of the spec, `{error: {code, message, details}, requestId, timestamp}`,
 * built from a `PassportError` only: every error the app answers with goes through here, so code,
 * status and message always come from the core's error catalogue.
 */
import { type PassportError } from '@passport/core';
import { isoTimestamp } from './iso-timestamp.js';

export interface ErrorEnvelope {
  readonly error: {
    readonly code: string;
    readonly message: string;
    readonly details: Record<string, unknown> | null;
  };
  readonly requestId: string;
  readonly timestamp: string;
}

export function buildErrorEnvelope(
  error: PassportError<string>,
  requestId: string,
  now?: Date,
): ErrorEnvelope {
  return {
    error: { code: error.code, message: error.message, details: error.details ?? null },
    requestId,
    timestamp: now === undefined ? isoTimestamp() : now.toISOString(),
  };
}
