/**
 * `GET /docs`: the browser documentation portal (Swagger UI from the installed package, reading
 * `/openapi.json`), and the removed documentation paths `/docs/enrollment` and `/api-docs`, which
 * answer 410 `ENDPOINT_REMOVED` (spec: Versioning).
 */
import { Controller, Get, Inject, Param, Res } from '@nestjs/common';
import { ApiExcludeEndpoint, ApiOkResponse, ApiOperation, ApiProduces, ApiTags } from '@nestjs/swagger';
import { type FastifyReply } from 'fastify';
import { PATHS } from './discovery.paths.js';
import { ApiErrors } from '../platform/openapi/api-errors.decorator.js';
import { DOCS_HTML, DOCS_INIT_JS, swaggerUiAsset } from './swagger-ui.assets.js';
import { AppError } from '../platform/http/app.error.js';
import { type AppConfig } from '../platform/config/app-config.js';
import { APP_CONFIG } from '../platform/infrastructure/di-tokens.js';

/**
 * The portal's page may load and call only this origin: Swagger UI renders text from the OpenAPI
 * document and from API answers ("Try it out"), so a script injected there must find nothing to run or
 * reach. Inline styles and data: images are Swagger UI's own; it needs no eval. The page cannot be
 * framed (clickjacking).
 */
function docsPageHeaders(publicBaseUrl: string): Record<string, string> {
  // "Try it out" calls the document's server, PUBLIC_BASE_URL, which may be another origin than the
  // page's (the portal opened on localhost behind a public name).
  const api = new URL(publicBaseUrl).origin;
  return {
    'content-security-policy':
      "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; " +
      `connect-src 'self' ${api}; font-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`,
    'x-frame-options': 'DENY',
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
  };
}

function removed(replacement: string): AppError {
  return new AppError('ENDPOINT_REMOVED', { replacement });
}

@ApiTags('documentation')
@Controller()
export class DocsController {
  private readonly pageHeaders: Record<string, string>;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.pageHeaders = docsPageHeaders(config.publicBaseUrl);
  }

  @Get('docs')
  @ApiOperation({ summary: 'Browser documentation portal (Swagger UI)' })
  @ApiProduces('text/html')
  @ApiOkResponse({ description: 'HTML page', content: { 'text/html': { schema: { type: 'string' } } } })
  docs(@Res() reply: FastifyReply): void {
    void reply.type('text/html; charset=utf-8').headers(this.pageHeaders).send(DOCS_HTML);
  }

  @Get('docs/enrollment')
  @ApiOperation({ summary: 'Removed: use /.well-known/enrollment', deprecated: true })
  @ApiErrors('ENDPOINT_REMOVED')
  docsEnrollment(): never {
    throw removed(PATHS.enrollment);
  }

  @Get('api-docs')
  @ApiOperation({ summary: 'Removed: use /docs and /openapi.json', deprecated: true })
  @ApiErrors('ENDPOINT_REMOVED')
  apiDocs(): never {
    throw removed(PATHS.docs);
  }

  @Get('docs/docs-init.js')
  @ApiExcludeEndpoint()
  init(@Res() reply: FastifyReply): void {
    void reply
      .type('application/javascript; charset=utf-8')
      .header('Cache-Control', 'no-cache')
      .header('X-Content-Type-Options', 'nosniff')
      .send(DOCS_INIT_JS);
  }

  @Get('docs/:asset')
  @ApiExcludeEndpoint()
  asset(@Param('asset') name: string, @Res() reply: FastifyReply): void {
    const asset = swaggerUiAsset(name);
    if (!asset) throw new AppError('ENDPOINT_NOT_FOUND');
    void reply
      .type(asset.type)
      .header('Cache-Control', 'public, max-age=3600')
      .header('X-Content-Type-Options', 'nosniff')
      .send(asset.body);
  }
}
