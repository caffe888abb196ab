/** Response schema of `GET /health` (spec: Health body; all six fields required). */
import { ApiProperty } from '@nestjs/swagger';

export class HealthInstanceDto {
  @ApiProperty({ description: 'Host name of the instance that answered.' })
  hostname!: string;

  @ApiProperty({ type: 'integer', description: 'Process id of the instance.' })
  pid!: number;
}

export class HealthDto {
  @ApiProperty({ enum: ['healthy', 'degraded'] })
  status!: 'healthy' | 'degraded';

  @ApiProperty({ description: 'True when at least one dependency check failed or timed out.' })
  degraded!: boolean;

  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description:
      'One entry per dependency (`chain`, `store`): `{status: "ok" | "fail", latencyMs, ...detail}`.',
  })
  checks!: Record<string, unknown>;

  @ApiProperty({ example: 'passport-identity-api' })
  service!: string;

  @ApiProperty({ type: 'string', format: 'date-time' })
  timestamp!: string;

  @ApiProperty({ type: HealthInstanceDto })
  instance!: HealthInstanceDto;
}
