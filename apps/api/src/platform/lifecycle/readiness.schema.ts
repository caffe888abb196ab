/** Response body of `GET /health/ready`, described once. */
import { z } from 'zod';
import { openApiComponent } from '../openapi/zod-openapi.js';

export const readySchema = z.object({
  status: z.literal('ready'),
  requestId: z.string(),
  timestamp: z.string().meta({ format: 'date-time' }),
});
export type Ready = z.infer<typeof readySchema>;

export const readyComponent = openApiComponent('ReadyDto', readySchema);
