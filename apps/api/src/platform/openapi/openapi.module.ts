/** The OpenAPI document (exported through the platform module, so that MCP resources and `/api/mcp/schema` can reuse it) and its routes. */
import { Module } from '@nestjs/common';
import { OpenApiController } from './openapi.controller.js';
import { OpenApiDocumentService } from './openapi-document.service.js';

@Module({
  controllers: [OpenApiController],
  providers: [OpenApiDocumentService],
  exports: [OpenApiDocumentService],
})
export class OpenApiModule {}
