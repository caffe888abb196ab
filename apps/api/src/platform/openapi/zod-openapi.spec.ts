/**
 * zod → OpenAPI 3.0: the bounds written are the ones chosen, a `z.custom` carries a schema written
 * elsewhere, a component name stands for one shape only, and the verify shapes the generator used to
 * get wrong (checks dropped from `required`, nested required lists lost) come out right.
 */
import { type OpenAPIObject } from '@nestjs/swagger';
import { z } from 'zod';
import { isAuthorizedSignerResponseSchema } from '../../hola/isauthorizedsigner.schema.js';
import { testHolaResponseSchema } from '../../hola/testhola.schema.js';
import { verifyResponseSchema } from '../../hola/verify.schema.js';
import { addOpenApiComponents, openApiComponent, openApiSchema } from './zod-openapi.js';

describe('openApiSchema', () => {
  it('writes only the integer bounds that were chosen', () => {
    expect(openApiSchema(z.int())).toEqual({ type: 'integer' });
    expect(openApiSchema(z.int().min(0))).toEqual({ type: 'integer', minimum: 0 });
    expect(openApiSchema(z.int().min(1).max(86_400_000))).toEqual({
      type: 'integer',
      minimum: 1,
      maximum: 86_400_000,
    });
  });

  it('writes a z.custom as the schema in its meta', () => {
    const written = {
      type: 'object',
      properties: { a: { type: 'string' } },
      description: 'elsewhere',
    } as const;
    expect(openApiSchema(z.object({ p: z.custom().meta(written) }))).toMatchObject({
      properties: { p: written },
      required: ['p'],
    });
  });

  it('states true-only flags as enum [true] and closes objects', () => {
    expect(openApiSchema(z.object({ ok: z.literal(true) }).strict())).toEqual({
      type: 'object',
      properties: { ok: { type: 'boolean', enum: [true] } },
      required: ['ok'],
      additionalProperties: false,
    });
  });
});

describe('openApiComponent', () => {
  it('returns a reference and writes the component into the document', () => {
    const ref = openApiComponent('ZodOpenApiSpecThing', z.object({ a: z.string() }));
    expect(ref).toEqual({ $ref: '#/components/schemas/ZodOpenApiSpecThing' });
    const document = { openapi: '3.0.3', info: { title: 't', version: '1' }, paths: {} } as OpenAPIObject;
    addOpenApiComponents(document);
    expect(document.components?.schemas?.ZodOpenApiSpecThing).toEqual({
      type: 'object',
      properties: { a: { type: 'string' } },
      required: ['a'],
    });
  });

  it('refuses one name for two different shapes, accepts the same shape twice', () => {
    openApiComponent('ZodOpenApiSpecTwice', z.object({ a: z.string() }));
    expect(() => openApiComponent('ZodOpenApiSpecTwice', z.object({ a: z.string() }))).not.toThrow();
    expect(() => openApiComponent('ZodOpenApiSpecTwice', z.object({ a: z.number() }))).toThrow(
      /ZodOpenApiSpecTwice/,
    );
  });
});

describe('the verify shapes', () => {
  it.each([
    ['verify', verifyResponseSchema],
    ['testhola', testHolaResponseSchema],
    ['isauthorizedsigner', isAuthorizedSignerResponseSchema],
  ])('%s: checks is required (it is always sent)', (_route, schema) => {
    expect(openApiSchema(schema).required).toContain('checks');
  });

  it('verify: nonceReplayDetails and profile keep their own required lists', () => {
    const { properties } = openApiSchema(verifyResponseSchema) as {
      properties: Record<string, { required?: string[] }>;
    };
    expect(properties.nonceReplayDetails.required).toEqual(['holaTimestamp', 'maxAgeMs']);
    expect(properties.profile.required).toEqual(expect.arrayContaining(['tokenId', 'did', 'face']));
    expect(properties.checks.required).toBeUndefined();
  });
});
