/** Schemas of the privileged session endpoints (docs/protocol.md §4: Sessions admin) and metrics. */
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

export class SessionViewDto {
  @ApiProperty({ example: 'sess_bjbvcjzqbdsj_01JZ3K5V7W8X9Y0Z1A2B3C4D5E' })
  sessionId!: string;

  @ApiProperty({ pattern: '^[a-z]{12}$' })
  tokenId!: string;

  @ApiProperty()
  ownerId!: string;

  @ApiProperty({ enum: ['open', 'closed', 'expired'] })
  status!: 'open' | 'closed' | 'expired';

  @ApiProperty({ format: 'date-time' })
  createdAt!: string;

  @ApiProperty({ format: 'date-time' })
  expiresAt!: string;

  @ApiProperty({ type: 'string', format: 'date-time', nullable: true })
  closedAt!: string | null;

  @ApiProperty({ type: 'string', nullable: true })
  closeReason!: string | null;

  @ApiProperty({ type: 'string', nullable: true, description: 'Home API URL of a federated login.' })
  federatedFrom!: string | null;

  @ApiProperty({ type: 'integer', minimum: 0, description: 'Tokens renewed within this session (New-Token).' })
  renewalCount!: number;

  @ApiProperty({ type: 'string', format: 'date-time', nullable: true, description: 'When the last renewal was issued.' })
  lastRenewedAt!: string | null;
}

export class SessionListDto {
  @ApiProperty({ type: [SessionViewDto] })
  sessions!: SessionViewDto[];

  @ApiProperty({ type: 'integer' })
  total!: number;

  @ApiProperty({ type: 'string', nullable: true, description: 'Pass as cursor for the next page; null at the end.' })
  nextCursor!: string | null;

  @ApiProperty()
  requestId!: string;
}

export class SessionCleanupDto {
  @ApiProperty({ type: 'integer', description: 'Expired or closed sessions removed.' })
  removed!: number;

  @ApiProperty()
  requestId!: string;
}

export class SessionRevokeRequestDto {
  @ApiProperty()
  sessionId!: string;

  @ApiPropertyOptional({ maxLength: 200 })
  reason?: string;
}

export class SessionRevokeDto {
  @ApiProperty()
  sessionId!: string;

  @ApiProperty({ description: 'false when the session was already closed.' })
  revoked!: boolean;

  @ApiProperty()
  reason!: string;

  @ApiProperty()
  requestId!: string;
}
