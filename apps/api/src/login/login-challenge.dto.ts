/** Response schema of `GET /api/login/timestamp` (spec: Login challenge body; all three required). */
import { ApiProperty } from '@nestjs/swagger';

export class LoginChallengeDto {
  @ApiProperty({
    type: 'integer',
    description: 'Unix seconds (floor of the server time).',
    example: 1776595620,
  })
  timestamp!: number;

  @ApiProperty({
    type: 'string',
    format: 'date-time',
    description:
      'The same instant as a canonical ISO string (always `.000Z`); sign `identifier + timestamp_iso`.',
    example: '2026-04-19T10:47:00.000Z',
  })
  timestamp_iso!: string;

  @ApiProperty()
  requestId!: string;
}
