import { ChainUnavailableError } from '@passport/core';

/** The reason a chain read failed with (`ChainUnavailableError.reason`, else the error's text), or null when it succeeded. */
export const chainFailureReasonOf = (promise: Promise<unknown>): Promise<string | null> =>
  promise.then(
    () => null,
    (error: unknown) => (error instanceof ChainUnavailableError ? error.reason : String(error)),
  );
