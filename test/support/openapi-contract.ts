/**
 * Contract checks of real responses against the served OpenAPI document. Any e2e test can call
 * `await expectMatchesOpenApi(baseUrl, method, path, status, body)` (or `contractFor(baseUrl)` once
 * and `.expectMatches(...)`) after each request.
 *
 * Strictness: object schemas that list `properties` and say nothing about `additionalProperties` are
 * treated as closed, so a response field missing from the document fails, and so does a documented
 * required field missing from the response. A status the operation does not document fails too.
 */
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';

// ajv-formats is CommonJS: under ESM its default export may arrive wrapped.
const addFormats = ((addFormatsModule as any).default ?? addFormatsModule) as (ajv: Ajv) => Ajv;

type Json = Record<string, any>;

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'options', 'head'];

function closeObjects(node: unknown): void {
  if (Array.isArray(node)) {
    node.forEach(closeObjects);
    return;
  }
  if (typeof node !== 'object' || node === null) return;
  const obj = node as Json;
  if (
    obj.properties &&
    typeof obj.properties === 'object' &&
    obj.additionalProperties === undefined &&
    !obj.allOf
  ) {
    obj.additionalProperties = false;
  }
  for (const value of Object.values(obj)) closeObjects(value);
}

const escapePointer = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');

export class OpenApiContract {
  private readonly ajv: Ajv;
  private readonly validators = new Map<string, ValidateFunction>();
  private readonly templates: { template: string; regex: RegExp; literal: number }[];

  constructor(readonly document: Json) {
    const strictDoc = structuredClone(document);
    closeObjects(strictDoc.components);
    closeObjects(strictDoc.paths);
    this.ajv = new Ajv({ strict: false, allErrors: true, validateSchema: false });
    addFormats(this.ajv);
    this.ajv.addSchema(strictDoc, 'openapi.json');
    this.templates = Object.keys(document.paths).map((template) => ({
      template,
      regex: new RegExp(
        `^${template
          .split('/')
          .map((seg) => (/^\{.+\}$/.test(seg) ? '[^/]+' : seg.replace(/[.*+?^$()|[\]\\]/g, '\\$&')))
          .join('/')}$`,
      ),
      literal: template.replace(/\{[^}]+\}/g, '').length,
    }));
  }

  static async load(baseUrl: string): Promise<OpenApiContract> {
    const res = await fetch(`${baseUrl}/openapi.json`);
    if (res.status !== 200) throw new Error(`GET /openapi.json answered ${res.status}`);
    return new OpenApiContract((await res.json()) as Json);
  }

  /** The document's path template for a concrete path (the most literal match wins). */
  templateFor(path: string): string | undefined {
    const clean = decodeURI(path.split('?')[0]);
    const matches = this.templates.filter((t) => t.regex.test(clean)).sort((a, b) => b.literal - a.literal);
    return matches[0]?.template;
  }

  /** Problems of one response; empty when it matches the document. */
  problems(
    method: string,
    path: string,
    status: number,
    body: unknown,
    contentType = 'application/json',
  ): string[] {
    const template = this.templateFor(path);
    if (!template) return [`${path}: no path of the document matches`];
    const verb = method.toLowerCase() === 'head' ? 'get' : method.toLowerCase();
    const operation = this.document.paths[template]?.[verb];
    if (!operation || !METHODS.includes(verb)) return [`${method} ${template}: operation not documented`];
    const key = operation.responses[String(status)]
      ? String(status)
      : operation.responses.default
        ? 'default'
        : undefined;
    if (!key) return [`${method} ${template}: status ${status} not documented`];
    const response = operation.responses[key];
    if (status === 301 || status === 302 || status === 204 || verb !== method.toLowerCase()) return [];
    // An answer without a Content-Type ('' here): an empty one matches a response documented with no
    // content, and nothing else (a probe: two empty MCP answers were documented as application/json).
    if (contentType === '') {
      if (body !== '' && body !== undefined)
        return [`${method} ${template} ${status}: a body without Content-Type`];
      return response.content
        ? [
            `${method} ${template} ${status}: no Content-Type, the document lists ${Object.keys(response.content).join(', ')}`,
          ]
        : [];
    }
    const mediaType = contentType.split(';')[0].trim();
    if (!response.content?.[mediaType]) {
      return [`${method} ${template} ${status}: media type ${mediaType} not documented`];
    }
    if (mediaType !== 'application/json') return [];
    const pointer = `openapi.json#/paths/${escapePointer(template)}/${verb}/responses/${key}/content/${escapePointer(mediaType)}/schema`;
    const validate = this.validators.get(pointer) ?? this.ajv.compile({ $ref: pointer });
    this.validators.set(pointer, validate);
    if (validate(body)) return [];
    return (validate.errors ?? []).map(
      (e) =>
        `${method} ${template} ${status}: ${e.instancePath || '(body)'} ${e.message}${e.params && 'additionalProperty' in e.params ? ` "${e.params.additionalProperty}"` : ''}`,
    );
  }

  expectMatches(method: string, path: string, status: number, body: unknown, contentType?: string): void {
    const problems = this.problems(method, path, status, body, contentType);
    if (problems.length > 0)
      throw new Error(`Response does not match the OpenAPI document:\n${problems.join('\n')}`);
  }
}

const contracts = new Map<string, Promise<OpenApiContract>>();

/** The contract of a running app, loaded once per base URL. */
export function contractFor(baseUrl: string): Promise<OpenApiContract> {
  let contract = contracts.get(baseUrl);
  if (!contract) {
    contract = OpenApiContract.load(baseUrl);
    contracts.set(baseUrl, contract);
  }
  return contract;
}

export async function expectMatchesOpenApi(
  baseUrl: string,
  method: string,
  path: string,
  status: number,
  body: unknown,
  contentType?: string,
): Promise<void> {
  (await contractFor(baseUrl)).expectMatches(method, path, status, body, contentType);
}
