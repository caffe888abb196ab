/** Response body of `GET /api/me/identity` (spec: Own identity body), described once. */
import { type Face } from '@passport/core';
import { z } from 'zod';
import { documentedAs, openApiComponent } from '../platform/openapi/zod-openapi.js';
import { dnSchema, faceSchema, metadataSchema } from './identity.schemas.js';

export const ownIdentitySchema = z.object({
  tokenId: z.string().regex(/^[a-z]{12}$/),
  dn: documentedAs<Record<string, unknown> | null>(dnSchema),
  face: documentedAs<Face | null>(faceSchema),
  notAfter: z
    .string()
    .nullable()
    .meta({ format: 'date-time', description: 'null when the passport does not expire.' }),
  metadata: documentedAs<Record<string, string> | null>(metadataSchema),
  requestId: z.string(),
});
export type OwnIdentityResponse = z.infer<typeof ownIdentitySchema>;

export const ownIdentityComponent = openApiComponent('OwnIdentityDto', ownIdentitySchema);
