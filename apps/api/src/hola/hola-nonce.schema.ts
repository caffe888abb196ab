/** Response body of `GET /api/holanonce16ts` (spec: Nonce body), described once. */
import { z } from 'zod';
import { openApiComponent } from '../platform/openapi/zod-openapi.js';

export const holaNonceSchema = z.object({
  noncetsHex: z
    .string()
    .regex(/^[0-9A-F]{32}$/)
    .meta({ description: '16 random bytes as 32 uppercase hex; used verbatim in the HOLA line.' }),
  timestamp: z
    .string()
    .meta({ format: 'date-time', description: 'ISO 8601 UTC; used verbatim in the HOLA line.' }),
  length: z.literal(16).meta({ type: 'integer' }),
  algorithm: z.literal('randomBytes(16)_hex'),
  requestId: z.string(),
});
export type HolaNonce = z.infer<typeof holaNonceSchema>;

export const holaNonceComponent = openApiComponent('HolaNonceDto', holaNonceSchema);
