/**
 * Request and 200 body of `POST /api/identity/verify` (spec "Verify request and response";
 * docs/protocol.md §2, §4), described once: the OpenAPI models and the controller's return type come from
 * these schemas, and the response schema is checked at compile time against the core's `VerifyHolaBody`.
 * Every verdict is on the 200 body; only early validation is a 400. The core reads requests itself
 * (`verifyRequestFromBody`), so the request schema documents the shape and validates nothing.
 */
import {
  MAX_HOLA_MAX_AGE_MS,
  DEFAULT_HOLA_MAX_AGE_MS,
  HOLA_MAX_LENGTH,
  VERIFY_FAILURE_REASONS,
  type VerifyHolaBody,
} from '@passport/core/hola';
import { type PublicProfile } from '@passport/core/profile';
import { z } from 'zod';
import { publicProfileSchema } from '../identity/public-profile.schema.js';
import { openApiComponent, type SameShape } from '../platform/openapi/zod-openapi.js';

export const HOLA_LINE_EXAMPLE =
  'HOLA/MUNDO/BKBVEHBDCRGM/2026-04-19T10:47:00.000Z/4F9A3C7E2D1B9A4CDEADBEEFCAFEBABE/API.EXAMPLE.COM/<103 base32 characters>/H';

export const tokenIdSchema = z.string().regex(/^[a-z]{12}$/);

export const holaLineSchema = z
  .string()
  .max(HOLA_MAX_LENGTH)
  .meta({
    description:
      'The HOLA line as one string: HOLA/<recipient>/<tokenId>/<timestamp>/<nonceHex>/<HOST>/<base32 signature>/<checksum> ' +
      '(or the subagent form with delegateId, issuer tokenId and base32 public key). Never a nested JSON object.',
    example: HOLA_LINE_EXAMPLE,
  });

export const recipientWarningsSchema = z
  .array(
    z
      .object({ code: z.enum(['RECIPIENT_MISMATCH', 'DELEGATION_NOT_CHECKED']), message: z.string() })
      .strict(),
  )
  .meta({
    description:
      'Present only when non-empty. DELEGATION_NOT_CHECKED on every subagent line: it proves only that the key in the line signed it; POST /api/isauthorizedsigner says whether the issuer delegated that key.',
  });

/** The fields a subagent line adds to verify's and testhola's 200 bodies (docs/protocol.md §4). */
export const subagentFields = {
  isSubagentFormat: z.literal(true).meta({ description: 'Subagent lines only.' }).optional(),
  delegateId: z
    .string()
    .meta({ description: 'Subagent lines only: the delegate id as in the line (uppercase).' })
    .optional(),
  issuerTokenId: tokenIdSchema.meta({ description: 'Subagent lines only: the issuing passport.' }).optional(),
};

export const verifyRequestSchema = z.object({
  hola: holaLineSchema,
  expectedRecipient: z
    .string()
    .meta({
      description:
        'The recipient you expect (MUNDO or a token id). When given, RECIPIENT_MISMATCH is reported only if the line is addressed elsewhere.',
      example: 'MUNDO',
    })
    .optional(),
  constraints: z
    .object({
      maxAgeMs: z.int().min(1).max(MAX_HOLA_MAX_AGE_MS).default(DEFAULT_HOLA_MAX_AGE_MS).meta({
        description:
          'Freshness window in milliseconds. Outside 1..86400000 or not an integer: 400 INVALID_CONSTRAINTS.',
      }),
    })
    .optional(),
  includeProfile: z
    .boolean()
    .meta({ description: 'When true, the public passport profile is returned under `profile`.' })
    .optional(),
});

const reasonSchema = z.enum(VERIFY_FAILURE_REASONS);

export const verifyResponseSchema = z.object({
  verified: z
    .boolean()
    .meta({ description: 'True only when every check passed and the nonce was recorded now.' }),
  peerTokenId: tokenIdSchema.meta({ description: 'Sender token id (the issuer for subagent lines).' }),
  destinatary: z
    .string()
    .meta({ description: 'The recipient of the line: MUNDO or a lowercase token id.', example: 'MUNDO' }),
  checks: z
    .object({
      tokenExists: z.boolean(),
      tokenActive: z.boolean(),
      timestampFresh: z.boolean(),
      nonceReplaySafe: z.boolean(),
      signatureValid: z.boolean(),
      checksumValid: z.boolean(),
    })
    .partial()
    .strict()
    .meta({
      description:
        'Checks that were evaluated; on failures only some are present (nonceReplaySafe only when everything else passed).',
    }),
  failureReasons: z.array(reasonSchema),
  failureDetails: z.array(z.object({ reasonCode: reasonSchema, hint: z.string() }).strict()),
  nonceReplayDetails: z
    .object({
      holaTimestamp: z.string().meta({ description: 'The timestamp of the line, verbatim.' }),
      maxAgeMs: z.int(),
      firstSeenAt: z
        .string()
        .meta({ format: 'date-time', description: 'When the line was first accepted.' })
        .optional(),
    })
    .strict()
    .meta({ description: 'Present when nonce_replay is in failureReasons.' })
    .optional(),
  signatureVerificationImplemented: z.literal(true),
  warnings: recipientWarningsSchema.optional(),
  ...subagentFields,
  profile: z
    .custom<PublicProfile>()
    .meta({ ...publicProfileSchema, description: 'With includeProfile: true.' })
    .optional(),
  requestId: z.string(),
});

export type VerifyResponse = z.infer<typeof verifyResponseSchema>;
/** The core's body plus the request id is exactly this wire shape. */
export const verifyResponseMatchesCore: SameShape<VerifyResponse, VerifyHolaBody & { requestId: string }> =
  true;

export const verifyRequestComponent = openApiComponent('VerifyRequestDto', verifyRequestSchema);
export const verifyResponseComponent = openApiComponent('VerifyResponseDto', verifyResponseSchema);
