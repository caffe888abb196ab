/**
 * Response bodies of the `did:passport` endpoints (spec "DID document"; docs/protocol.md §4; DID Core
 * 1.0), described once. The nested verification method and service entries are plain OpenAPI fragments.
 */
import { type SchemaObject } from '@nestjs/swagger';
import { z } from 'zod';
import { obj } from '../platform/openapi/schema-helpers.js';
import { documentedAs, openApiComponent } from '../platform/openapi/zod-openapi.js';

const verificationMethod: SchemaObject = obj({
  id: { type: 'string', example: 'did:passport:bjbvcjzqbdsj#owner' },
  type: { type: 'string', enum: ['Ed25519VerificationKey2018'] },
  controller: { type: 'string' },
  publicKeyBase58: {
    type: 'string',
    description: 'Raw 32-byte Ed25519 key of the current owner, base58btc, no prefix.',
  },
});

const service: SchemaObject = obj({
  id: { type: 'string' },
  type: { type: 'string' },
  serviceEndpoint: {
    oneOf: [
      { type: 'string', description: 'A URL (self-declared for metadata services).' },
      obj({
        tokenId: { type: 'string', pattern: '^[a-z]{12}$' },
        ownerAccountId: { type: 'string', nullable: true },
        metadata: {
          type: 'object',
          additionalProperties: { type: 'string' },
          description: 'The token metadata as on chain, userselected_dn included.',
        },
      }),
    ],
    description: 'A URL; for #metadata (type PassportTokenMetadata), the token metadata itself.',
  } as SchemaObject,
});

/** The DID document's properties (without requestId), for the did:web copy that has none. */
export const didDocumentBodySchema = z.object({
  '@context': z.array(z.string()).meta({
    example: ['https://www.w3.org/ns/did/v1', 'https://w3id.org/security/suites/ed25519-2018/v1'],
  }),
  id: z.string().meta({ example: 'did:passport:bjbvcjzqbdsj' }),
  controller: z.string().meta({ description: 'The DID itself: the passport controls its document.' }),
  verificationMethod: z
    .array(documentedAs<unknown>(verificationMethod))
    .meta({ description: 'The current owner key(s): #owner, #owner-2, …' }),
  authentication: z.array(z.string()),
  assertionMethod: z.array(z.string()),
  service: z.array(documentedAs<unknown>(service)),
  alsoKnownAs: z
    .array(z.string())
    .meta({
      description:
        'The did:web form of the passport on this deployment (in the did:web copy: the did:passport DID).',
    })
    .optional(),
  deactivated: z
    .literal(true)
    .meta({
      description:
        'Present only when the passport is revoked: the DID is deactivated, and verificationMethod, authentication and assertionMethod are empty.',
    })
    .optional(),
});
export type DidDocumentBody = z.infer<typeof didDocumentBodySchema>;

export const didDocumentSchema = didDocumentBodySchema.extend({ requestId: z.string() });
export type DidDocumentResponse = z.infer<typeof didDocumentSchema>;

export const didMethodSchema = z.object({
  method: z.enum(['passport']),
  syntax: z.string().meta({ example: 'did:passport:<tokenId>' }),
  tokenIdPattern: z.string(),
  example: z.string(),
  resolve: z.string().meta({ description: 'URL template of the resolver.' }),
  methodDocument: z
    .string()
    .meta({ description: 'URL template of the did-method document of one passport.' }),
  verificationMethodType: z.string(),
  contexts: z.array(z.string()),
  alsoKnownAs: z.string().meta({ description: 'Template of the did:web alias.' }),
  operations: z
    .object({ create: z.string(), read: z.string(), update: z.string(), deactivate: z.string() })
    .strict(),
  errors: z.object({ INVALID_DID: z.int(), DID_NOT_FOUND: z.int(), DID_RESOLUTION_FAILED: z.int() }).strict(),
  requestId: z.string(),
});
export type DidMethodResponse = z.infer<typeof didMethodSchema>;

export const didDocumentBodyComponent = openApiComponent('DidDocumentBodyDto', didDocumentBodySchema);
export const didDocumentComponent = openApiComponent('DidDocumentDto', didDocumentSchema);
export const didMethodComponent = openApiComponent('DidMethodDto', didMethodSchema);
