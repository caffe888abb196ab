/**
 * Serves the OpenAPI document at `/openapi.json` and `/swagger.json` (the same document), and the
 * deprecated `/api/v1/openapi.json` as a 301 to `/openapi.json` (spec: Versioning).
 */
import { Controller, Get, Header, HttpCode, Redirect } from '@nestjs/common';
import {
  ApiMovedPermanentlyResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
  type OpenAPIObject,
  type SchemaObject,
} from '@nestjs/swagger';
import { ApiErrors } from './api-errors.decorator.js';
import { OpenApiDocumentService } from './openapi-document.service.js';

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
  constructor(private readonly documents: OpenApiDocumentService) {}

  @Get('openapi.json')
  @ApiOperation({ summary: 'The canonical OpenAPI 3.0 document of this service' })
  @ApiOkResponse({ schema: DOCUMENT_SCHEMA })
  @ApiErrors('OPENAPI_LOAD_FAILED')
  openapi(): OpenAPIObject {
    return this.documents.get();
  }

  @Get('swagger.json')
  @ApiOperation({ summary: 'Same document as /openapi.json' })
  @ApiOkResponse({ schema: DOCUMENT_SCHEMA })
  @ApiErrors('OPENAPI_LOAD_FAILED')
  swagger(): OpenAPIObject {
    return this.documents.get();
  }

  @Get('api/v1/openapi.json')
  @HttpCode(301)
  @Redirect('/openapi.json', 301)
  @Header('Cache-Control', 'public, max-age=86400')
  @ApiOperation({ summary: 'Deprecated: moved permanently to /openapi.json', deprecated: true })
  @ApiMovedPermanentlyResponse({ description: 'Location: /openapi.json' })
  legacyOpenapi(): void {}
}
