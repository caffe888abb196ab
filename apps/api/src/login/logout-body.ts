/**
 * What a logout body may not say. Logout closes the session of the token that calls it and takes only a
 * `reason`; other fields are ignored (clients send what their SDKs send). But a field naming *another*
 * session or passport is refused: `POST /api/sessions/logout` sits beside the privileged
 * `POST /api/sessions/revoke`, and an administrator's script that sent it `{"sessionId": "<a
 * compromised holder's session>"}` was answered "Session closed." while its own session was closed and
 * the holder's stayed open (an admin probe).
 */
import { PassportError } from '@passport/core';

/** Body field names (compared lowercase, without `_` and `-`) that name a session, and a passport. */
const SESSION_FIELDS = new Set(['sessionid', 'sid', 'session']);
const PASSPORT_FIELDS = new Set(['tokenid', 'passportid']);

/**
 * Throws `VALIDATION_FAILED` naming the field when `body` names a session other than `own.sessionId`
 * or a passport other than `own.tokenId` (in any case); a field naming the caller's own, null or "" is
 * accepted. A body that is no object (an array, a string, a number, a boolean) is refused as `body`:
 * ignored, a list of sessions to end (`[{"sessionId": …}]`) closed the caller's own (a mutation probe).
 * No body, or JSON null, is none.
 */
export function refuseLogoutOfAnother(
  body: unknown,
  own: { readonly sessionId: string; readonly tokenId: string },
): void {
  if (body === undefined || body === null) return;
  if (typeof body !== 'object' || Array.isArray(body))
    throw new PassportError('VALIDATION_FAILED', {
      field: 'body',
      problem: 'a logout body is a JSON object ({"reason": "<why>"}, optional) or none',
    });
  for (const [field, value] of Object.entries(body as Record<string, unknown>)) {
    const name = field.toLowerCase().replace(/[_-]/g, '');
    const names = SESSION_FIELDS.has(name) ? 'session' : PASSPORT_FIELDS.has(name) ? 'passport' : null;
    if (names === null) continue;
    // Not given: a client that fills optional fields with null or "" (a review).
    if (value === null || value === '') continue;
    if (names === 'session' && value === own.sessionId) continue;
    // Token ids are lowercase; a client may write the caller's own in capitals.
    if (names === 'passport' && typeof value === 'string' && value.toLowerCase() === own.tokenId) continue;
    throw new PassportError('VALIDATION_FAILED', {
      field,
      problem:
        `logout closes the session of the token that calls it and names no other ${names}; ` +
        'to close another session, an administrator calls POST /api/sessions/revoke {"sessionId": …}',
    });
  }
}
