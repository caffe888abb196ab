/**
 * The OpenAPI 3.0 document of this service, generated from the controllers and DTO classes of every
 * module (so it cannot drift from the code, and routes added by any module appear by themselves).
 * `createApp` attaches the application once it is built; `get()` generates the document on first use
 * and caches it. Cross-cutting error responses (docs/protocol.md §5, §7) are added to every operation here.
 * Any failure is a `PassportError('OPENAPI_LOAD_FAILED')`.
 */
import { Inject, Injectable, type INestApplication } from '@nestjs/common';
import {
  DocumentBuilder,
  type OpenAPIObject,
  type OperationObject,
  type ResponseObject,
  type SchemaObject,
  SwaggerModule,
} from '@nestjs/swagger';
import { type AppConfig } from '../config/app-config.js';
import { APP_NAME, APP_VERSION } from '../config/app-version.js';
import { APP_CONFIG } from '../infrastructure/di-tokens.js';
import { statusOfCode } from './api-errors.decorator.js';
import { codesOf, errorResponseSchema } from './error-response.schema.js';
import { addOpenApiComponents } from './zod-openapi.js';
import { AppError } from '../http/app.error.js';

/** Name of the bearer security scheme (use `@ApiBearerAuth(BEARER_AUTH)` on JWT routes). */
export const BEARER_AUTH = 'bearer';
/** Name of the security scheme of `GET /metrics`: the static `METRICS_TOKEN`, no passport's JWT. */
export const METRICS_TOKEN_AUTH = 'metricsToken';

const CROSS_CUTTING_CODES = [
  // Node's parser refusing the request itself (details.reason malformed_request), and an Expect header
  // other than 100-continue: any request may be answered so, with or without a body (a fuzz probe).
  'VALIDATION_FAILED',
  'EXPECTATION_FAILED',
  'REQUEST_HEADER_TOO_LARGE',
  'INVALID_URL',
  'HOST_HEADER_REQUIRED',
  'REQUEST_TIMEOUT',
  'RATE_LIMIT_EXCEEDED',
  'INTERNAL_ERROR',
];
/** Codes of operations with a path parameter (`maxParamLength`). */
const PATH_PARAMETER_CODES = ['URI_TOO_LONG'];
const BODY_CODES = ['INVALID_JSON', 'UNSUPPORTED_MEDIA_TYPE'];
const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

@Injectable()
export class OpenApiDocumentService {
  private app: INestApplication | undefined;
  private document: OpenAPIObject | undefined;
  private documentBytes: Buffer | undefined;

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  /** Called by `createApp` after the application's modules are built. */
  attach(app: INestApplication): void {
    this.app = app;
    this.document = undefined;
    this.documentBytes = undefined;
  }

  /**
   * The document as JSON (the bytes JSON.stringify gives), serialised once: the routes serving it send
   * this one buffer. Serialising ~320 KB per request would let a client that pipelines requests and never
   * reads the answers hold hundreds of MB per socket (enough to run a 512 MB heap out of memory).
   */
  bytes(): Buffer {
    const document = this.get();
    if (this.documentBytes === undefined) this.documentBytes = Buffer.from(JSON.stringify(document));
    return this.documentBytes;
  }

  get(): OpenAPIObject {
    if (this.document) return this.document;
    if (!this.app) throw new AppError('OPENAPI_LOAD_FAILED');
    try {
      this.document = this.generate(this.app);
    } catch {
      throw new AppError('OPENAPI_LOAD_FAILED');
    }
    return this.document;
  }

  private generate(app: INestApplication): OpenAPIObject {
    const base = new DocumentBuilder()
      .setOpenAPIVersion('3.0.3')
      .setTitle(APP_NAME)
      .setVersion(APP_VERSION)
      .setDescription(
        'Passports for AI agents: Ed25519 challenge login issuing EdDSA JWTs, HOLA handshake lines and their ' +
          'verification, identity and public profiles, DID documents, and documentation over REST and MCP. ' +
          'Every error uses the ErrorResponse envelope; `X-Request-Id` is echoed on every response.',
      )
      .addServer(this.config.publicBaseUrl)
      .addBearerAuth({ type: 'http', scheme: 'bearer', bearerFormat: 'passport-issued JWT' }, BEARER_AUTH)
      .addBearerAuth(
        { type: 'http', scheme: 'bearer', bearerFormat: 'METRICS_TOKEN (a static token; no passport JWT)' },
        METRICS_TOKEN_AUTH,
      )
      .build();
    const document = SwaggerModule.createDocument(app, base, {
      operationIdFactory: (controllerKey, methodKey) =>
        `${controllerKey.replace(/Controller$/, '')}_${aliasFreeMethodKey(methodKey)}`,
    });
    addOpenApiComponents(document);
    addCrossCuttingErrors(document);
    addNewTokenHeader(document);
    addRequestIdHeader(document);
    dropUnusedSecuritySchemes(document);
    return document;
  }
}

/**
 * Nest names a route served at several paths `method[0]`, `method[1]`, …; code generators and agent
 * tool registries take only `[A-Za-z0-9_-]` names. The first path keeps the method's name, the others
 * get `_<index>`.
 */
export function aliasFreeMethodKey(methodKey: string): string {
  return methodKey.replace(/\[(\d+)\]$/, (_, index: string) => (index === '0' ? '' : `_${index}`));
}

/** Adds (or merges into existing error responses) the errors every operation can answer with. */
export function addCrossCuttingErrors(document: OpenAPIObject): void {
  for (const [path, pathItem] of Object.entries(document.paths)) {
    for (const method of HTTP_METHODS) {
      const operation = pathItem[method] as OperationObject | undefined;
      if (!operation) continue;
      const codes = [
        ...CROSS_CUTTING_CODES,
        ...(path.includes('{') ? PATH_PARAMETER_CODES : []),
        ...(operation.requestBody || method === 'post' ? BODY_CODES : []),
      ];
      for (const code of codes) addErrorCode(operation, code);
      const tooMany = operation.responses['429'] as ResponseObject;
      tooMany.headers = {
        'Retry-After': {
          description: 'Seconds to wait before retrying.',
          schema: { type: 'integer', minimum: 1 },
        },
      };
      const unavailable = operation.responses['503'] as ResponseObject | undefined;
      if (unavailable)
        unavailable.headers = {
          ...unavailable.headers,
          'Retry-After': {
            description:
              'Sent only when the service knows when to try again (a store paused after losing replay records, or ' +
              'a login refused SESSION_CAPACITY_REACHED): the seconds to wait.',
            schema: { type: 'integer', minimum: 1 },
          },
        };
      // Every 401 names the scheme (RFC 9110 §15.5.2); a generated client reads it only if declared (a probe).
      const unauthorized = operation.responses['401'] as ResponseObject | undefined;
      if (unauthorized) unauthorized.headers = { ...unauthorized.headers, ...WWW_AUTHENTICATE_HEADER };
    }
  }
}

const WWW_AUTHENTICATE_HEADER = {
  'WWW-Authenticate': {
    description:
      'Bearer realm="passport", with error="invalid_token" when the bearer token sent was itself refused ' +
      '(drop it and log in again).',
    schema: { type: 'string' },
  },
} as const;

/** Name of the `X-Request-Id` response header object in `components.headers`. */
export const REQUEST_ID_HEADER = 'X-Request-Id';

/**
 * `X-Request-Id` on every response, by reference (one definition, not one per response): the client's
 * own id when it sent a valid one, else the ULID the service made. Declared so that a generated client
 * can read it (a probe found it named only in `info.description`).
 */
export function addRequestIdHeader(document: OpenAPIObject): void {
  document.components = {
    ...document.components,
    headers: {
      ...document.components?.headers,
      [REQUEST_ID_HEADER]: {
        description:
          "The request's id: the caller's X-Request-Id (or X-Correlation-Id) when valid, else a ULID made here; " +
          "the same as the error envelope's requestId.",
        schema: { type: 'string' },
      },
    },
  };
  for (const pathItem of Object.values(document.paths))
    for (const method of HTTP_METHODS) {
      const operation = pathItem[method] as OperationObject | undefined;
      if (!operation) continue;
      for (const response of Object.values(operation.responses) as ResponseObject[])
        response.headers = {
          ...response.headers,
          [REQUEST_ID_HEADER]: { $ref: `#/components/headers/${REQUEST_ID_HEADER}` },
        };
    }
}

/** Removes a security scheme no operation uses (the scrape token's, when METRICS_TOKEN is unset). */
export function dropUnusedSecuritySchemes(document: OpenAPIObject): void {
  const schemes = document.components?.securitySchemes;
  if (!schemes) return;
  const used = new Set<string>();
  for (const requirement of document.security ?? [])
    for (const name of Object.keys(requirement)) used.add(name);
  for (const pathItem of Object.values(document.paths))
    for (const method of HTTP_METHODS)
      for (const requirement of (pathItem[method] as OperationObject | undefined)?.security ?? [])
        for (const name of Object.keys(requirement)) used.add(name);
  for (const name of Object.keys(schemes)) if (!used.has(name)) delete schemes[name];
}

/** The `New-Token` response header, declared on every response of every JWT-tier operation. */
export const NEW_TOKEN_HEADER_OBJECT = {
  description:
    'Sent when the bearer token is in the last 20 % of its lifetime: a renewed JWT of the same session (use it from ' +
    'now on; the one sent stays valid until its own exp). On logout: a 60 s termination token (session_status "closed").',
  schema: { type: 'string' },
} as const;

export function addNewTokenHeader(document: OpenAPIObject): void {
  for (const pathItem of Object.values(document.paths)) {
    for (const method of HTTP_METHODS) {
      const operation = pathItem[method] as OperationObject | undefined;
      if (!operation?.security?.some((requirement) => BEARER_AUTH in requirement)) continue;
      // A renewal is decided once the token is accepted and within the passport's quota: never on a 401
      // or the quota's 429 (any later answer, an error included, may carry it).
      for (const [status, response] of Object.entries(operation.responses) as Array<
        [string, ResponseObject]
      >) {
        if (status === '401' || status === '429') continue;
        response.headers = { ...response.headers, 'New-Token': NEW_TOKEN_HEADER_OBJECT };
      }
    }
  }
}

function addErrorCode(operation: OperationObject, code: string): void {
  const status = String(statusOfCode(code));
  const existing = operation.responses[status] as ResponseObject | undefined;
  const existingSchema = existing?.content?.['application/json']?.schema as SchemaObject | undefined;
  const existingCodes = codesOf(existingSchema);
  if (existing && !existingSchema) return; // description-only: its author's to keep as written
  if (existing && existingSchema && !existingCodes) {
    // The operation's own error shape (a JSON-RPC error of /mcp): the framework's envelope errors at this
    // status (a header too large, the public rate limit) are answered before the operation runs, so the
    // document allows either (oneOf: a JSON-RPC error has `jsonrpc`, an ErrorResponse `requestId`).
    const members = existingSchema.oneOf as SchemaObject[] | undefined;
    const own = members ? members.filter((member) => !codesOf(member)) : [existingSchema];
    const envelope = members?.map((member) => codesOf(member)).find((codes) => codes !== undefined) ?? [];
    const codes = [...new Set([...envelope, code])];
    operation.responses[status] = {
      ...existing,
      content: { 'application/json': { schema: { oneOf: [...own, errorResponseSchema(codes)] } } },
    };
    return;
  }
  const codes = [...new Set([...(existingCodes ?? []), code])];
  operation.responses[status] = {
    description: `Error: ${codes.join(', ')}`,
    ...(existing?.headers ? { headers: existing.headers } : {}),
    content: { 'application/json': { schema: errorResponseSchema(codes) } },
  };
}
