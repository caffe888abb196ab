/** DI tokens of the verification surface. */

/** The core's `HolaVerifier`, shared by `/api/identity/verify` and `/api/testhola` (one replay record). */
export const HOLA_VERIFIER = Symbol('HOLA_VERIFIER');
