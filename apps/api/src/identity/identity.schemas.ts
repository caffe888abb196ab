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
        properties: { index: { type: 'integer' }, letter: { type: 'string' }, value: { type: 'string', nullable: true } },
      },
    },
  },
};

export const dnSchema: SchemaObject = {
  type: 'object',
  nullable: true,
  additionalProperties: true,
  description: 'Parsed userselected_dn (self-declared): displayName, creature, contactUris, avatarUrl, emojiUrl, other attributes.',
};

export const metadataSchema: SchemaObject = {
  type: 'object',
  nullable: true,
  additionalProperties: { type: 'string' },
  description: 'The passport metadata as stored on chain (string values).',
};
