/** Request and 200 body of `POST /api/testhola` (resolutions §4). */
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { obj } from '../openapi/schema-helpers.js';
import { holaLineProperty, recipientWarningSchema } from './verify.dto.js';

export class TestHolaRequestDto {
  @ApiProperty(holaLineProperty as never)
  hola!: string;

  @ApiPropertyOptional({
    description:
      'The recipient the line is meant for. Without it, RECIPIENT_MISMATCH is reported when the line is addressed neither to MUNDO nor to this server passport.',
  })
  expectedRecipient?: string;
}

const CHECK_NAMES = [
  'formatValid',
  'checksumValid',
  'timestampValid',
  'timestampFresh',
  'noncetsValid',
  'nonceReplaySafe',
  'tokenExists',
  'tokenActive',
  'signatureValid',
  'publicKeyAvailable',
] as const;

export class TestHolaResponseDto {
  @ApiProperty({ type: 'boolean', enum: [true] } as never)
  valid!: boolean;

  @ApiProperty({ pattern: '^[a-z]{12}$', description: 'Sender of the tested line (need not be the caller).' })
  peerTokenId!: string;

  @ApiProperty({ description: 'Recipient of the tested line: MUNDO or a lowercase token id.' })
  destinatary!: string;

  @ApiProperty({ type: 'boolean', enum: [true] } as never)
  peerVerified!: boolean;

  @ApiProperty({
    description:
      "The server's own signed reply line, addressed to the caller (fresh nonce, server passport key).",
  })
  hola!: string;

  @ApiProperty({ pattern: '^[a-z]{12}$', description: 'The server passport (sender of the reply line).' })
  serverTokenId!: string;

  @ApiProperty({ pattern: '^[a-z]{12}$', description: 'The caller: the recipient of the reply line.' })
  serverDestinatary!: string;

  @ApiProperty({ format: 'date-time', description: 'Timestamp of the reply line.' })
  serverTimestamp!: string;

  @ApiProperty(
    obj(Object.fromEntries(CHECK_NAMES.map((name) => [name, { type: 'boolean', enum: [true] }]))) as never,
  )
  checks!: Record<string, boolean>;

  @ApiPropertyOptional(recipientWarningSchema as never)
  warnings?: { code: string; message: string }[];

  @ApiProperty()
  requestId!: string;
}
