/** Response schema of `GET /api/concierge/trust-anchor` (spec: Concierge trust anchor). */
import { ApiProperty } from '@nestjs/swagger';

export class TrustAnchorDto {
  @ApiProperty()
  displayName!: string;

  @ApiProperty({ type: 'string', format: 'uri' })
  host!: string;

  @ApiProperty({ type: 'string', format: 'uri' })
  verifyHost!: string;

  @ApiProperty({ type: 'string', format: 'email' })
  supportEmail!: string;

  @ApiProperty()
  a2aRegistryId!: string;

  @ApiProperty({ type: 'string', format: 'uri' })
  a2aRegistryUrl!: string;

  @ApiProperty({ type: 'string', format: 'uri' })
  agentCardUrl!: string;

  @ApiProperty({ type: 'string', format: 'uri' })
  a2aEndpoint!: string;

  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'string' },
    properties: {
      a2a: { type: 'string' },
      email: { type: 'string' },
      discord: { type: 'string' },
      telegram: { type: 'string' },
    },
    description: 'Contact channels of the concierge; other string keys allowed.',
  })
  contactUris!: Record<string, string>;

  @ApiProperty({ description: 'Command line a verifier runs to check a HOLA line against this service.' })
  verifyCli!: string;

  @ApiProperty({
    type: 'string',
    nullable: true,
    required: false,
    pattern: '^[a-z]{12}$',
    description:
      'Token id of the official concierge passport; null until configured. Compare a verified peerTokenId with it.',
  })
  lobbyTokenId?: string | null;

  @ApiProperty()
  requestId!: string;
}
