/**
 * @module errors/passport.error
 * The domain's one error type: a catalogue code, its client-safe message and details. The HTTP app
 * decides the status it is answered with and turns it into the ErrorResponse envelope unchanged.
 * A host with codes of its own (the HTTP app's transport codes) subclasses it: `Code` widens the codes
 * accepted and `describe` looks them up.
 */
import { describeError, type ErrorCode } from './error-catalogue.js';

export type ErrorDetails = Record<string, unknown>;

/**
 * Marks PassportErrors across copies of this package (two installs, a bundler's duplicate): `instanceof`
 * is false across copies, and a typed error would then read as an unexpected one.
 */
const PASSPORT_ERROR_BRAND = Symbol.for('@passport/core.PassportError');

export class PassportError<Code extends string = ErrorCode> extends Error {
  override readonly name = 'PassportError';

  /** The message of a code, or undefined for a code this class does not know. */
  protected static describe(code: string): { readonly message: string } | undefined {
    return describeError(code);
  }

  constructor(
    readonly code: NoInfer<Code>,
    readonly details: ErrorDetails | null = null,
    message?: string,
    /** What failed underneath (for logs; never sent to clients). */
    options?: { readonly cause?: unknown },
  ) {
    const descriptor = (new.target as typeof PassportError).describe(code);
    if (!descriptor) throw new TypeError(`Unknown error code: ${code}`);
    super(message ?? descriptor.message, options);
  }
}

Object.defineProperty(PassportError.prototype, PASSPORT_ERROR_BRAND, { value: true });

/** A PassportError of this copy of the package or of another copy. */
export function isPassportError(value: unknown): value is PassportError<string> {
  return (
    value instanceof PassportError ||
    (value instanceof Error && (value as unknown as Record<symbol, unknown>)[PASSPORT_ERROR_BRAND] === true)
  );
}
