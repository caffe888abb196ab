/**
 * Request and 200 body of `POST /api/identity/verify` (spec "Verify request and response";
 * resolutions §2, §4). Every verdict is on the 200 body; only early validation is a 400.
 */
import { ApiProperty, ApiPropertyOptional, type SchemaObject } from '@nestjs/swagger';
import { VERIFY_FAILURE_REASONS } from '@passport/core';
import { publicProfileSchema } from '../identity/public-profile.schema.js';
import { obj } from '../openapi/schema-helpers.js';

export const HOLA_LINE_EXAMPLE =
  'HOLA/MUNDO/BKBVEHBDCRGM/2026-04-19T10:47:00.000Z/4F9A3C7E2D1B9A4CDEADBEEFCAFEBABE/API.EXAMPLE.COM/<103 base32 characters>/H';

export const holaLineProperty: SchemaObject = {
  type: 'string',
  maxLength: 512,
  description:
    'The HOLA line as one string: HOLA/<recipient>/<tokenId>/<timestamp>/<nonceHex>/<HOST>/<base32 signature>/<checksum> ' +
    '(or the subagent form with delegateId, issuer tokenId and base32 public key). Never a nested JSON object.',
  example: HOLA_LINE_EXAMPLE,
};

export const recipientWarningSchema: SchemaObject = {
  type: 'array',
  description: 'Present only when non-empty.',
  items: obj({
    code: { type: 'string', enum: ['RECIPIENT_MISMATCH'] },
    message: { type: 'string' },
  }),
};

export class VerifyConstraintsDto {
  @ApiPropertyOptional({
    type: 'integer',
    minimum: 1,
    maximum: 86_400_000,
    default: 300_000,
    description:
      'Freshness window in milliseconds. Outside 1..86400000 or not an integer: 400 INVALID_CONSTRAINTS.',
  })
  maxAgeMs?: number;
}

export class VerifyRequestDto {
  @ApiProperty(holaLineProperty as never)
  hola!: string;

  @ApiPropertyOptional({
    description:
      'The recipient you expect (MUNDO or a token id). When given, RECIPIENT_MISMATCH is reported only if the line is addressed elsewhere.',
    example: 'MUNDO',
  })
  expectedRecipient?: string;

  @ApiPropertyOptional({ type: VerifyConstraintsDto })
  constraints?: VerifyConstraintsDto;

  @ApiPropertyOptional({ description: 'When true, the public passport profile is returned under `profile`.' })
  includeProfile?: boolean;
}

const reasonEnum: SchemaObject = { type: 'string', enum: [...VERIFY_FAILURE_REASONS] };

export class VerifyResponseDto {
  @ApiProperty({ description: 'True only when every check passed and the nonce was recorded now.' })
  verified!: boolean;

  @ApiProperty({ pattern: '^[a-z]{12}$', description: 'Sender token id (the issuer for subagent lines).' })
  peerTokenId!: string;

  @ApiProperty({ description: 'The recipient of the line: MUNDO or a lowercase token id.', example: 'MUNDO' })
  destinatary!: string;

  @ApiProperty({
    ...obj(
      {
        tokenExists: { type: 'boolean' },
        tokenActive: { type: 'boolean' },
        timestampFresh: { type: 'boolean' },
        nonceReplaySafe: { type: 'boolean' },
        signatureValid: { type: 'boolean' },
        checksumValid: { type: 'boolean' },
      },
      ['tokenExists', 'tokenActive', 'timestampFresh', 'nonceReplaySafe', 'signatureValid', 'checksumValid'],
    ),
    description:
      'Checks that were evaluated; on failures only some are present (nonceReplaySafe only when everything else passed).',
  } as never)
  checks!: Record<string, boolean>;

  @ApiProperty({ type: 'array', items: reasonEnum } as never)
  failureReasons!: string[];

  @ApiProperty({
    type: 'array',
    items: obj({ reasonCode: reasonEnum, hint: { type: 'string' } }),
  } as never)
  failureDetails!: { reasonCode: string; hint: string }[];

  @ApiPropertyOptional({
    ...obj(
      {
        holaTimestamp: { type: 'string', description: 'The timestamp of the line, verbatim.' },
        maxAgeMs: { type: 'integer' },
        firstSeenAt: {
          type: 'string',
          format: 'date-time',
          description: 'When the line was first accepted.',
        },
      },
      ['firstSeenAt'],
    ),
    description: 'Present when nonce_replay is in failureReasons.',
  } as never)
  nonceReplayDetails?: Record<string, unknown>;

  @ApiProperty({ enum: [true], type: 'boolean' } as never)
  signatureVerificationImplemented!: boolean;

  @ApiPropertyOptional(recipientWarningSchema as never)
  warnings?: { code: string; message: string }[];

  @ApiPropertyOptional({ type: 'boolean', enum: [true], description: 'Subagent lines only.' } as never)
  isSubagentFormat?: boolean;

  @ApiPropertyOptional({ description: 'Subagent lines only: the delegate id as in the line (uppercase).' })
  delegateId?: string;

  @ApiPropertyOptional({ pattern: '^[a-z]{12}$', description: 'Subagent lines only: the issuing passport.' })
  issuerTokenId?: string;

  @ApiPropertyOptional({ ...publicProfileSchema, description: 'With includeProfile: true.' } as never)
  profile?: Record<string, unknown>;

  @ApiProperty()
  requestId!: string;
}
