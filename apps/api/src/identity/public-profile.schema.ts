/**
 * OpenAPI schema of the public passport profile (spec "Public passport profile"), shared by
 * `GET /api/identity/token/{tokenId}/public` and `POST /api/identity/verify` with `includeProfile`.
 */
import { type SchemaObject } from '@nestjs/swagger';
import { faceSchema } from './identity.schemas.js';

const nullableString = (description: string): SchemaObject => ({
  type: 'string',
  nullable: true,
  description,
});

/** The profile's properties (a DTO adds `requestId`; verify embeds the object as `profile`). */
export const publicProfileProperties: Record<string, SchemaObject> = {
  tokenId: { type: 'string', pattern: '^[a-z]{12}$' },
  did: {
    type: 'string',
    description: 'DID of the holder: did:passport:<tokenId>.',
    example: 'did:passport:bjbvcjzqbdsj',
  },
  ownerAccountId: nullableString('Current on-chain owner account.'),
  displayName: nullableString('From the DN (NNSWF and NSWF); self-declared.'),
  creature: nullableString('From the DN; self-declared.'),
  contactUris: {
    type: 'array',
    items: { type: 'string' },
    description: 'Self-declared, form scheme:authority:identifier.',
  },
  avatarUrl: nullableString('From the DN; self-declared.'),
  emojiUrl: nullableString('From the DN; self-declared.'),
  webhookUrl: nullableString('metadata.webhook_url: a self-declared routing hint.'),
  face: faceSchema,
  error: {
    type: 'string',
    enum: ['profile_unavailable'],
    description: 'Present only when enrichment failed; then only what the token id tells is filled in.',
  },
};

export const publicProfileSchema: SchemaObject = {
  type: 'object',
  additionalProperties: false,
  description:
    'Public passport profile. Everything except tokenId, did, ownerAccountId and face is self-declared.',
  required: Object.keys(publicProfileProperties).filter((k) => k !== 'error'),
  properties: publicProfileProperties,
};
