/** Response body of `GET /api/login/timestamp` (spec: Login challenge body; all three required), described once. */
import { z } from 'zod';
import { openApiComponent } from '../platform/openapi/zod-openapi.js';

export const loginChallengeSchema = z.object({
  timestamp: z.int().meta({ description: 'Unix seconds (floor of the server time).', example: 1776595620 }),
  timestamp_iso: z.string().meta({
    format: 'date-time',
    description:
      'The same instant as a canonical ISO string (always `.000Z`); sign `identifier + timestamp_iso`.',
    example: '2026-04-19T10:47:00.000Z',
  }),
  requestId: z.string(),
});
export type LoginChallenge = z.infer<typeof loginChallengeSchema>;

export const loginChallengeComponent = openApiComponent('LoginChallengeDto', loginChallengeSchema);
