/** Response body of `GET /health` (spec: Health body; all six fields required), described once. */
import { z } from 'zod';
import { openApiComponent } from '../openapi/zod-openapi.js';

export const healthInstanceSchema = z.object({
  hostname: z.string().meta({ description: 'Host name of the instance that answered.' }),
  pid: z.int().meta({ description: 'Process id of the instance.' }),
});
export type HealthInstance = z.infer<typeof healthInstanceSchema>;

export const healthInstanceComponent = openApiComponent('HealthInstanceDto', healthInstanceSchema);

export const healthSchema = z.object({
  status: z.enum(['healthy', 'degraded']),
  degraded: z.boolean().meta({ description: 'True when at least one dependency check failed or timed out.' }),
  checks: z.record(z.string(), z.unknown()).meta({
    additionalProperties: true,
    description:
      'One entry per dependency (`chain`, `store`): `{status: "ok" | "fail", latencyMs, ...detail}`.',
  }),
  service: z.string().meta({ example: 'passport-identity-api' }),
  timestamp: z.string().meta({ format: 'date-time' }),
  // The instance is its own component (referenced, as before).
  instance: z.custom<HealthInstance>().meta({ ...healthInstanceComponent }),
});
export type Health = z.infer<typeof healthSchema>;

export const healthComponent = openApiComponent('HealthDto', healthSchema);
