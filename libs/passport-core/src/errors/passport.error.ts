/**
 * @module errors/passport.error
 * The domain's one error type. It carries a catalogue code, the HTTP status the adapter should answer
 * with, and client-safe details; the HTTP app turns it into the ErrorResponse envelope unchanged.
 */
import { describeError, type ErrorCode } from './error-catalogue.js';

export type ErrorDetails = Record<string, unknown>;

export class PassportError extends Error {
  override readonly name = 'PassportError';
  readonly status: number;

  constructor(
    readonly code: ErrorCode,
    readonly details: ErrorDetails | null = null,
    message?: string,
  ) {
    const descriptor = describeError(code);
    if (!descriptor) throw new TypeError(`Unknown error code: ${code}`);
    super(message ?? descriptor.message);
    this.status = descriptor.status;
  }
}

export function isPassportError(value: unknown): value is PassportError {
  return value instanceof PassportError;
}
