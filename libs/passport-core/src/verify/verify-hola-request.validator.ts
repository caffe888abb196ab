/**
 * @module verify/verify-hola-request.validator
 * The JSON bodies of `POST /api/identity/verify` and `POST /api/testhola` as verification requests.
 * Only the envelope is read here (a non-object `constraints` is refused); the values themselves
 * (`hola`, `constraints.maxAgeMs`) are checked by the verification's format step, in its order.
 */
import { PassportError } from '../errors/passport.error.js';
import { type VerifyHolaRequest } from './verify-hola.types.js';

type JsonObject = Record<string, unknown>;

const isObject = (value: unknown): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * `{ hola, constraints?: { maxAgeMs? }, includeProfile?, expectedRecipient? }`; any other body reads as
 * `{}`. An option of the wrong type is refused (`INVALID_VERIFY_OPTION`), not ignored: an
 * `expectedRecipient` sent as a number left the line's recipient unchecked while its sender thought it
 * checked (null counts as absent).
 */
export function verifyRequestFromBody(body: unknown, callerTokenId: string | null): VerifyHolaRequest {
  const fields = isObject(body) ? body : {};
  const expectedRecipient = expectedRecipientOf(fields.expectedRecipient);
  if (fields.includeProfile != null && typeof fields.includeProfile !== 'boolean')
    throw new PassportError('INVALID_VERIFY_OPTION', {
      field: 'includeProfile',
      reason: 'must be a boolean',
    });
  return {
    hola: fields.hola,
    maxAgeMs: maxAgeOf(fields.constraints),
    includeProfile: fields.includeProfile === true,
    callerTokenId,
    ...(expectedRecipient === undefined ? {} : { expectedRecipient }),
  };
}

/** `expectedRecipient` as sent: a string, or absent (undefined or null); anything else is refused. */
function expectedRecipientOf(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string') return value;
  throw new PassportError('INVALID_VERIFY_OPTION', {
    field: 'expectedRecipient',
    reason: 'must be a string',
  });
}

/**
 * `{ hola, expectedRecipient? }` of `/api/testhola`: the line is meant for this server, so the server's
 * token id stands in for the caller's in the RECIPIENT_MISMATCH rule; the window is the default.
 */
export function testHolaRequestFromBody(body: unknown, serverTokenId: string): VerifyHolaRequest {
  const fields = isObject(body) ? body : {};
  const expectedRecipient = expectedRecipientOf(fields.expectedRecipient);
  return {
    hola: fields.hola,
    callerTokenId: serverTokenId,
    ...(expectedRecipient === undefined ? {} : { expectedRecipient }),
  };
}

/** `constraints.maxAgeMs` as sent; a `constraints` that is neither absent, null nor an object is refused. */
function maxAgeOf(constraints: unknown): unknown {
  if (constraints === undefined || constraints === null) return undefined;
  if (!isObject(constraints)) {
    throw new PassportError('INVALID_CONSTRAINTS', { field: 'constraints', reason: 'must be an object' });
  }
  return constraints.maxAgeMs;
}
