/** `GET /api/concierge/trust-anchor`: the official onboarding concierge's identity, from configuration. */
import { Controller, Get, Inject, Logger } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { type AppConfig } from '../platform/config/app-config.js';
import { RequestId } from '../platform/http/request-id.decorator.js';
import { APP_CONFIG } from '../platform/infrastructure/di-tokens.js';
import { ApiErrors } from '../platform/openapi/api-errors.decorator.js';
import { buildTrustAnchor } from './trust-anchor.js';
import { trustAnchorComponent, type TrustAnchorResponse } from './trust-anchor.schema.js';
import { AppError } from '../platform/http/app.error.js';

@ApiTags('discovery')
@Controller('api/concierge')
export class ConciergeController {
  private readonly logger = new Logger('Concierge');

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  @Get('trust-anchor')
  @ApiOperation({
    summary: 'Trust anchor of the official onboarding concierge',
    description:
      'Compare a verified peerTokenId with `lobbyTokenId` before treating messages as coming from the concierge.',
  })
  @ApiOkResponse({ schema: trustAnchorComponent })
  @ApiErrors('CONCIERGE_CONFIG_FAILED')
  trustAnchor(@RequestId() requestId: string): TrustAnchorResponse {
    const result = buildTrustAnchor(this.config.concierge);
    if (!result.ok) {
      this.logger.error(`concierge trust anchor misconfigured: ${result.problems.join(', ')}`);
      throw new AppError('CONCIERGE_CONFIG_FAILED');
    }
    return { ...result.anchor, requestId };
  }
}
