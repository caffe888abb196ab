/**
 * @module errors/area-errors
 * The shape of one area's error codes: a client-safe default message each, and a flag for the codes the
 * client library raises itself. HTTP statuses are not the core's: the HTTP app maps each code to one.
 */
export interface AreaErrorDescriptor {
  /** Client-safe default message; never upstream exception text. */
  readonly message: string;
  /** Raised by the client library, never returned by the server. */
  readonly clientSide?: true;
}

export type AreaErrors = Record<string, AreaErrorDescriptor>;
