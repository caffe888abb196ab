/**
 * Request and response bodies of `POST /api/login` and `POST /api/logout` (spec: Login request and
 * response; docs/protocol.md §3), described once: the OpenAPI components and the handlers' return
 * types come from these schemas. (The core validates the login request; this describes it.)
 */
import { z } from 'zod';
import { openApiComponent } from '../platform/openapi/zod-openapi.js';

export const loginRequestSchema = z.object({
  accountid: z
    .string()
    .meta({
      description:
        '64 lowercase hex (implicit account) or a named account. Exactly one of accountid / passportid.',
    })
    .optional(),
  passportid: z
    .string()
    .meta({ description: '12-letter passport token id (never the account hex).', example: 'bjbvcjzqbdsj' })
    .optional(),
  timestamp: z
    .int()
    .meta({ description: 'Unix seconds from the challenge. Send exactly one of timestamp / timestamp_iso.' })
    .optional(),
  timestamp_iso: z
    .string()
    .meta({
      description: 'The challenge timestamp_iso exactly as returned.',
      example: '2026-04-19T10:47:00.000Z',
    })
    .optional(),
  base64url_signature: z
    .string()
    .meta({ description: 'base64url (no padding) Ed25519 signature of UTF-8 identifier + timestamp_iso.' })
    .optional(),
  passportid_base64url_signature: z
    .string()
    .meta({
      description:
        'The same signature, in the field used with passportid logins (either field serves either identifier).',
    })
    .optional(),
});

export const loginResponseSchema = z.object({
  jwt_token: z
    .string()
    .meta({ description: 'EdDSA JWT; send as Authorization: Bearer <jwt_token>. Lifetime 3600 s at most.' }),
  requestId: z.string(),
  passportid: z
    .string()
    .meta({ description: 'The token id of the passport that logged in.', example: 'bjbvcjzqbdsj' }),
});
export type LoginResponse = z.infer<typeof loginResponseSchema>;

export const logoutRequestSchema = z.object({
  reason: z
    .string()
    .meta({
      description:
        'Why the client logs out, kept with the closed session when it is 1-100 characters of printable ' +
        'ASCII; any other value is not kept and does not stop the logout.',
    })
    .optional(),
  sessionId: z
    .string()
    .meta({
      description:
        "Not needed: logout closes the calling token's session. When sent (also as session_id, sid, " +
        "tokenId or passportid), it must be the caller's own; another value is refused 400 VALIDATION_FAILED " +
        'and closes nothing (POST /api/sessions/revoke closes another session).',
    })
    .optional(),
});

export const logoutResponseSchema = z.object({
  message: z.string(),
  sessionClosed: z.boolean(),
  sessionId: z.string(),
  requestId: z.string(),
});
export type LogoutResponse = z.infer<typeof logoutResponseSchema>;

export const loginRequestComponent = openApiComponent('LoginRequestDto', loginRequestSchema);
export const loginResponseComponent = openApiComponent('LoginResponseDto', loginResponseSchema);
export const logoutRequestComponent = openApiComponent('LogoutRequestDto', logoutRequestSchema);
export const logoutResponseComponent = openApiComponent('LogoutResponseDto', logoutResponseSchema);
