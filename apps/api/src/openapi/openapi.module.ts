/** The OpenAPI document (global, so that MCP resources and `/api/mcp/schema` can reuse it) and its routes. */
import { Global, Module } from '@nestjs/common';
import { OpenApiController } from './openapi.controller.js';
import { OpenApiDocumentService } from './openapi-document.service.js';

@Global()
@Module({
  controllers: [OpenApiController],
  providers: [OpenApiDocumentService],
  exports: [OpenApiDocumentService],
})
export class OpenApiModule {}
