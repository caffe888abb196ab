/** Response schemas of the `did:passport` endpoints (spec "DID document"; docs/protocol.md §4; DID Core 1.0). */
import { ApiProperty, ApiPropertyOptional, type SchemaObject } from '@nestjs/swagger';
import { obj } from '../platform/openapi/schema-helpers.js';

const strings: SchemaObject = { type: 'array', items: { type: 'string' } };

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
export class DidDocumentBodyDto {
  @ApiProperty({
    ...strings,
    example: ['https://www.w3.org/ns/did/v1', 'https://w3id.org/security/suites/ed25519-2018/v1'],
  } as never)
  '@context'!: string[];

  @ApiProperty({ example: 'did:passport:bjbvcjzqbdsj' })
  id!: string;

  @ApiProperty({ description: 'The DID itself: the passport controls its document.' })
  controller!: string;

  @ApiProperty({
    type: 'array',
    items: verificationMethod,
    description: 'The current owner key(s): #owner, #owner-2, …',
  } as never)
  verificationMethod!: unknown[];

  @ApiProperty(strings as never)
  authentication!: string[];

  @ApiProperty(strings as never)
  assertionMethod!: string[];

  @ApiProperty({ type: 'array', items: service } as never)
  service!: unknown[];

  @ApiPropertyOptional({
    ...strings,
    description: 'The did:web form of the passport on this deployment.',
  } as never)
  alsoKnownAs?: string[];
}

export class DidDocumentDto extends DidDocumentBodyDto {
  @ApiProperty()
  requestId!: string;
}

export class DidMethodDto {
  @ApiProperty({ enum: ['passport'] }) method!: string;
  @ApiProperty({ example: 'did:passport:<tokenId>' }) syntax!: string;
  @ApiProperty() tokenIdPattern!: string;
  @ApiProperty() example!: string;
  @ApiProperty({ description: 'URL template of the resolver.' }) resolve!: string;
  @ApiProperty({ description: 'URL template of the did-method document of one passport.' })
  methodDocument!: string;
  @ApiProperty() verificationMethodType!: string;
  @ApiProperty(strings as never) contexts!: string[];
  @ApiProperty({ description: 'Template of the did:web alias.' }) alsoKnownAs!: string;
  @ApiProperty(
    obj({
      create: { type: 'string' },
      read: { type: 'string' },
      update: { type: 'string' },
      deactivate: { type: 'string' },
    }) as never,
  )
  operations!: Record<string, string>;
  @ApiProperty(
    obj({
      INVALID_DID: { type: 'integer' },
      DID_NOT_FOUND: { type: 'integer' },
      DID_RESOLUTION_FAILED: { type: 'integer' },
    }) as never,
  )
  errors!: Record<string, number>;
  @ApiProperty() requestId!: string;
}
