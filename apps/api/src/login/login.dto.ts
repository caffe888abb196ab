/** Request and response schemas of `POST /api/login` (spec: Login request and response; docs/protocol.md §3). */
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

export class LoginRequestDto {
  @ApiPropertyOptional({ description: '64 lowercase hex (implicit account) or a named account. Exactly one of accountid / passportid.' })
  accountid?: string;

  @ApiPropertyOptional({ description: '12-letter passport token id (never the account hex).', example: 'bjbvcjzqbdsj' })
  passportid?: string;

  @ApiPropertyOptional({ type: 'integer', description: 'Unix seconds from the challenge. Send exactly one of timestamp / timestamp_iso.' })
  timestamp?: number;

  @ApiPropertyOptional({ description: 'The challenge timestamp_iso exactly as returned.', example: '2026-04-19T10:47:00.000Z' })
  timestamp_iso?: string;

  @ApiPropertyOptional({ description: 'base64url (no padding) Ed25519 signature of UTF-8 identifier + timestamp_iso.' })
  base64url_signature?: string;

  @ApiPropertyOptional({ description: 'The same signature, in the field used with passportid logins (either field serves either identifier).' })
  passportid_base64url_signature?: string;
}

export class LoginResponseDto {
  @ApiProperty({ description: 'EdDSA JWT; send as Authorization: Bearer <jwt_token>. Lifetime 3600 s at most.' })
  jwt_token!: string;

  @ApiProperty()
  requestId!: string;

  @ApiProperty({ description: 'The token id of the passport that logged in.', example: 'bjbvcjzqbdsj' })
  passportid!: string;
}

export class LogoutRequestDto {
  @ApiPropertyOptional({ description: 'Why the client logs out (printable ASCII, up to 100 characters); kept with the closed session.' })
  reason?: string;
}

export class LogoutResponseDto {
  @ApiProperty()
  message!: string;

  @ApiProperty()
  sessionClosed!: boolean;

  @ApiProperty()
  sessionId!: string;

  @ApiProperty()
  requestId!: string;
}
