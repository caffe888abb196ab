/**
 * Wire shapes described once, with zod: the same schema gives the TypeScript type (`z.infer`) and the
 * OpenAPI 3.0 schema (zod's own JSON Schema output, OpenAPI 3.0 flavour). `openApiComponent` registers a
 * schema as one named component and returns its `$ref` for `@ApiBody({ schema })` /
 * `@ApiOkResponse({ schema })`, so the document keeps one named component per shape.
 */
import { type OpenAPIObject, type ReferenceObject, type SchemaObject } from '@nestjs/swagger';
import { z } from 'zod';

/**
 * The OpenAPI 3.0 schema of `schema`, as a client sends it (defaults are optional on input). A
 * `z.custom()` stands for a shape documented elsewhere as a plain OpenAPI schema: its `.meta()` is that
 * schema. zod bounds every integer to the safe range; the document states only the bounds we chose.
 */
export function openApiSchema(schema: z.ZodType): SchemaObject {
  return z.toJSONSchema(schema, {
    target: 'openapi-3.0',
    io: 'input',
    unrepresentable: 'any',
    override: ({ jsonSchema }) => {
      if (jsonSchema.type !== 'integer') return;
      if (jsonSchema.minimum === Number.MIN_SAFE_INTEGER) delete jsonSchema.minimum;
      if (jsonSchema.maximum === Number.MAX_SAFE_INTEGER) delete jsonSchema.maximum;
    },
  }) as SchemaObject;
}

/** The named schemas declared with `openApiComponent`, written into the document's components. */
const components = new Map<string, SchemaObject>();

/**
 * Declares `schema` as the document component `name` and returns the reference to use in
 * `@ApiBody({ schema })` / `@ApiOkResponse({ schema })`: one named component per wire shape, written
 * exactly as zod describes it. Called while modules load (like the decorators that use it).
 */
export function openApiComponent(name: string, schema: z.ZodType): ReferenceObject {
  const existing = components.get(name);
  const described = openApiSchema(schema);
  if (existing && JSON.stringify(existing) !== JSON.stringify(described))
    throw new Error(`Two different OpenAPI components are named ${name}`);
  components.set(name, described);
  return { $ref: `#/components/schemas/${name}` };
}

/** Writes the components declared with `openApiComponent` into `document`. */
export function addOpenApiComponents(document: OpenAPIObject): void {
  const schemas = (document.components ??= {}).schemas ?? {};
  for (const [name, schema] of components) schemas[name] = schema;
  document.components.schemas = schemas;
}

/** Compile-time proof that two types are the same shape (each assignable to the other). */
export type SameShape<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

/**
 * A zod schema that stands for a shape already written as a plain OpenAPI schema (shared fragments such
 * as the decoded face): typed as `T`, documented exactly as `schema`. It checks nothing at run time;
 * use it for response shapes the server builds itself.
 */
export function documentedAs<T>(schema: SchemaObject | ReferenceObject): z.ZodCustom<T> {
  return z.custom<T>().meta({ ...schema });
}
