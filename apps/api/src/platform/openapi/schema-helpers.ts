/**
 * Small builders for inline OpenAPI schemas of nested response objects, so DTO classes can describe
 * deep documents (discovery bodies) without one class per level. Every listed property is required
 * unless named in `optional`, and no other property is allowed: the document states the exact shape.
 */
import { type SchemaObject } from '@nestjs/swagger';

export const str: SchemaObject = { type: 'string' };
export const uri: SchemaObject = { type: 'string', format: 'uri' };
export const strArray: SchemaObject = { type: 'array', items: { type: 'string' } };

export function obj(
  properties: Record<string, SchemaObject>,
  optional: readonly string[] = [],
): SchemaObject {
  return {
    type: 'object',
    additionalProperties: false,
    properties,
    required: Object.keys(properties).filter((k) => !optional.includes(k)),
  };
}
