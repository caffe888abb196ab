/**
 * Response bodies of `GET /api/identity/token/{tokenId}/public` and `/full`, described once: the
 * handlers' types and the OpenAPI components come from these schemas.
 */
import { type Face } from '@passport/core';
import { z } from 'zod';
import { documentedAs, openApiComponent } from '../platform/openapi/zod-openapi.js';
import { dnSchema, faceSchema, metadataSchema } from './identity.schemas.js';
import { publicProfileProperties as profile } from './public-profile.schema.js';

export const publicProfileResponseSchema = z.object({
  tokenId: documentedAs<string>(profile.tokenId),
  did: documentedAs<string>(profile.did),
  ownerAccountId: documentedAs<string | null>(profile.ownerAccountId),
  displayName: documentedAs<string | null>(profile.displayName),
  creature: documentedAs<string | null>(profile.creature),
  contactUris: documentedAs<string[]>(profile.contactUris),
  avatarUrl: documentedAs<string | null>(profile.avatarUrl),
  emojiUrl: documentedAs<string | null>(profile.emojiUrl),
  webhookUrl: documentedAs<string | null>(profile.webhookUrl),
  face: documentedAs<Face | null>(faceSchema),
  requestId: z.string(),
});
export type PublicProfileResponse = z.infer<typeof publicProfileResponseSchema>;

export const fullIdentitySchema = z.object({
  tokenId: z.string().regex(/^[a-z]{12}$/),
  dn: documentedAs<Record<string, unknown> | null>(dnSchema),
  face: documentedAs<Face | null>(faceSchema),
  contactUris: z.array(z.string()).meta({ description: 'Self-declared contact URIs from the DN.' }),
  metadata: documentedAs<Record<string, string>>({ ...metadataSchema, nullable: false }),
  disclaimer: z
    .string()
    .meta({ description: 'Creature, DN, contact URIs, webhook URL and other metadata are self-declared.' }),
  requestId: z.string(),
});
export type FullIdentityResponse = z.infer<typeof fullIdentitySchema>;

export const publicProfileComponent = openApiComponent('PublicProfileDto', publicProfileResponseSchema);
export const fullIdentityComponent = openApiComponent('FullIdentityDto', fullIdentitySchema);
