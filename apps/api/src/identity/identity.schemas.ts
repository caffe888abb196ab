/** OpenAPI schemas shared by the identity responses: the decoded face and the parsed DN. */
import { type SchemaObject } from '@nestjs/swagger';

export const faceSchema: SchemaObject = {
  type: 'object',
  nullable: true,
  description: 'Facial description decoded from the token id; null when a letter is outside its alphabet.',
  required: ['checksumValid', 'categories'],
  properties: {
    checksumValid: { type: 'boolean' },
    categories: {
      type: 'object',
      additionalProperties: {
        type: 'object',
        required: ['index', 'letter', 'value'],
        properties: {
          index: { type: 'integer' },
          letter: { type: 'string' },
          value: { type: 'string', nullable: true },
        },
      },
    },
  },
};

const nullableString: SchemaObject = { type: 'string', nullable: true };

/** The core's ParsedDn (dn/dn.parser.ts), as the identity responses carry it. */
export const dnSchema: SchemaObject = {
  type: 'object',
  nullable: true,
  description:
    'Parsed userselected_dn (self-declared, as written): null when absent, too long or without one readable component.',
  required: [
    'displayName',
    'nnswf',
    'nswf',
    'creature',
    'avatarUrl',
    'emojiUrl',
    'contactUris',
    'attributes',
    'unparsed',
  ],
  properties: {
    displayName: { ...nullableString, description: 'NNSWF and NSWF joined by a space (or the one present).' },
    nnswf: nullableString,
    nswf: nullableString,
    creature: nullableString,
    avatarUrl: nullableString,
    emojiUrl: nullableString,
    contactUris: {
      type: 'array',
      items: { type: 'string' },
      description: 'ContactURI values of the form scheme:authority:identifier.',
    },
    attributes: {
      type: 'array',
      description: 'Every readable component in order, names as written.',
      items: {
        type: 'object',
        required: ['name', 'value'],
        properties: { name: { type: 'string' }, value: { type: 'string' } },
      },
    },
    unparsed: {
      type: 'array',
      items: { type: 'string' },
      description: 'Components that could not be read, as written.',
    },
  },
};

export const metadataSchema: SchemaObject = {
  type: 'object',
  nullable: true,
  additionalProperties: { type: 'string' },
  description: 'The passport metadata as stored on chain (string values).',
};
