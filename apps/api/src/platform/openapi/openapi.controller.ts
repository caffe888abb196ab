/**
 * Serves the OpenAPI document at `/openapi.json` and `/swagger.json` (the same document), and the
 * deprecated `/api/v1/openapi.json` as a 301 to `/openapi.json` (spec: Versioning), under the path of
 * `PUBLIC_BASE_URL` when it has one (a deployment behind a proxy's path prefix).
 */
import { Controller, Get, Header, HttpCode, Inject, Redirect, Res } from '@nestjs/common';
import { type FastifyReply } from 'fastify';
import {
  ApiMovedPermanentlyResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
  type SchemaObject,
} from '@nestjs/swagger';
import { ApiErrors } from './api-errors.decorator.js';
import { OpenApiDocumentService } from './openapi-document.service.js';
import { JSON_UTF8 } from '../http/json-content-type.js';
import { type AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../infrastructure/di-tokens.js';

const DOCUMENT_SCHEMA: SchemaObject = {
  type: 'object',
  required: ['openapi', 'info', 'paths'],
  additionalProperties: true,
  properties: {
    openapi: { type: 'string' },
    info: { type: 'object', additionalProperties: true },
    paths: { type: 'object', additionalProperties: true },
  },
};

@ApiTags('documentation')
@Controller()
export class OpenApiController {
  /** `/openapi.json` under the public base URL's path (`/openapi.json` itself by default). */
  private readonly documentPath: string;

  constructor(
    private readonly documents: OpenApiDocumentService,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    // One leading slash: a path starting `//` would make the Location another host (`//evil.example/…`).
    const basePath = new URL(config.publicBaseUrl).pathname.replace(/\/+$/, '').replace(/^\/+/, '/');
    this.documentPath = `${basePath}/openapi.json`;
  }

  @Get('openapi.json')
  @ApiOperation({ summary: 'The canonical OpenAPI 3.0 document of this service' })
  @ApiOkResponse({ schema: DOCUMENT_SCHEMA })
  @ApiErrors('OPENAPI_LOAD_FAILED')
  openapi(@Res({ passthrough: true }) reply: FastifyReply): Buffer {
    return this.send(reply);
  }

  @Get('swagger.json')
  @ApiOperation({ summary: 'Same document as /openapi.json' })
  @ApiOkResponse({ schema: DOCUMENT_SCHEMA })
  @ApiErrors('OPENAPI_LOAD_FAILED')
  swagger(@Res({ passthrough: true }) reply: FastifyReply): Buffer {
    return this.send(reply);
  }

  @Get('api/v1/openapi.json')
  @HttpCode(301)
  @Redirect('/openapi.json', 301)
  @Header('Cache-Control', 'public, max-age=86400')
  @ApiOperation({ summary: 'Deprecated: moved permanently to /openapi.json', deprecated: true })
  @ApiMovedPermanentlyResponse({
    description: "Location: /openapi.json (under PUBLIC_BASE_URL's path when it has one)",
    headers: {
      Location: {
        description: "/openapi.json, under PUBLIC_BASE_URL's path when it has one.",
        schema: { type: 'string' },
      },
    },
  })
  legacyOpenapi(): { url: string; statusCode: number } {
    return { url: this.documentPath, statusCode: 301 };
  }

  /** The document's one buffer (serialised once), as JSON. */
  private send(reply: FastifyReply): Buffer {
    const bytes = this.documents.bytes();
    void reply.type(JSON_UTF8);
    return bytes;
  }
}
